/**
 * Request schemas: every request parser of the domain is a zod schema (fields in the spec's order) plus a thin function
 * that runs it. Each field's failure carries its domain code in the issue message (`CODE` or `CODE: message`), so the
 * first failing field becomes the same DomainError (code, message, path) for REST v1, v2, GraphQL and bank
 * notifications; the same schemas are rendered to JSON Schema for /openapi.json (rest-compat/openapi), so the document
 * cannot drift from what is checked.
 */
import { z } from 'zod';
import { DomainError, isErrorCode, type ErrorCode } from './errors.ts';

/** The issue message that names a domain code (and optionally the error's message). */
export function fail(code: ErrorCode, message?: string): string {
  return message ? `${code}: ${message}` : code;
}

/** The domain code and message an issue names (BAD_REQUEST for an issue that names none). */
export function issueError(message: string): { code: ErrorCode; message?: string } {
  const m = /^([A-Z][A-Z0-9_]*)(?:: ([\s\S]*))?$/.exec(message);
  if (m && isErrorCode(m[1])) return { code: m[1], message: m[2] };
  return { code: 'BAD_REQUEST' };
}

/** For a body that may be omitted: an absent body reads as `{}` (its required fields then report); any other non-object stays BAD_REQUEST. */
export const absentBodyIsEmpty = (v: unknown): unknown => (v === undefined ? {} : v);

/** The schema of a body that may be omitted (read as `{}`, so its required fields report); anything but an object is BAD_REQUEST. */
export const optionalBody = <S extends z.core.$ZodLooseShape>(shape: S) => z.preprocess(absentBodyIsEmpty, z.object(shape, { error: fail('BAD_REQUEST') }));

/** Length in code points (the spec's "characters"; JSON Schema's maxLength counts the same way). */
export const codePoints = (s: string): number => [...s].length;

/**
 * The JSON Schema a value has on the wire, where zod's rendering would describe how it is parsed instead (a query
 * integer is parsed from a number or from text, but is an integer on the wire). Read by the OpenAPI generator.
 */
export const wireSchemas = z.registry<Record<string, unknown>>();

/** Registers the JSON Schema `schema` has on the wire and returns it. */
export function onWire<S extends z.ZodType>(schema: S, jsonSchema: Record<string, unknown>): S {
  wireSchemas.add(schema, jsonSchema);
  return schema;
}

/** The keys of the object a schema parses, through pipes, defaults and optionals (the spec's field order). */
function fieldOrder(schema: z.core.$ZodType | undefined, depth = 0): string[] {
  if (!schema || depth > 10) return [];
  const def = schema._zod.def as unknown as { type: string; shape?: Record<string, unknown>; in?: z.core.$ZodType; out?: z.core.$ZodType; innerType?: z.core.$ZodType };
  if (def.type === 'object' && def.shape) return Object.keys(def.shape);
  if (def.type === 'pipe') {
    const out = fieldOrder(def.out, depth + 1);
    return out.length ? out : fieldOrder(def.in, depth + 1);
  }
  return fieldOrder(def.innerType, depth + 1);
}

/**
 * Text the database can store: no U+0000 (PostgreSQL text and jsonb cannot hold it) and well-formed UTF-16 (a lone
 * surrogate has no UTF-8 form). Anything else in a request is refused as VALIDATION_FAILED at its field, never a 500.
 */
const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(s: string): boolean {
  return !UNSTORABLE_TEXT.test(s);
}

export const UNSTORABLE_TEXT_MESSAGE = 'Text must be valid Unicode without U+0000 (NUL) characters.';

/**
 * The path of the first string (value or object key) in `value` that is not storable text, or null when there is none.
 * Walks iteratively (a hostile, deeply nested JSON body cannot overflow the stack) and visits each object once.
 */
export function unstorableTextPath(value: unknown): string[] | null {
  // Each item links to its parent, so the path is built only for the string that fails (deep bodies stay linear).
  interface Item {
    v: unknown;
    key: string | null;
    parent: Item | null;
  }
  const pathOf = (item: Item | null, last?: string): string[] => {
    const out: string[] = last === undefined ? [] : [last];
    for (let i = item; i && i.key !== null; i = i.parent) out.push(i.key);
    return out.reverse();
  };
  const stack: Item[] = [{ v: value, key: null, parent: null }];
  const seen = new Set<object>();
  while (stack.length) {
    const item = stack.pop()!;
    const v = item.v;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return pathOf(item);
      continue;
    }
    if (typeof v !== 'object' || v === null || seen.has(v) || v instanceof Date) continue;
    seen.add(v);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: String(i), parent: item });
      continue;
    }
    const keys = Object.keys(v);
    for (const key of keys) if (!isStorableText(key)) return pathOf(item, key);
    // Pushed in reverse so the first field is looked at first.
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ v: (v as Record<string, unknown>)[keys[i]], key: keys[i], parent: item });
  }
  return null;
}

/** Throws VALIDATION_FAILED at the first string in `value` that the database cannot store. */
export function assertStorableText(value: unknown, at: readonly string[] = []): void {
  const path = unstorableTextPath(value);
  if (path) throw new DomainError('VALIDATION_FAILED', { message: UNSTORABLE_TEXT_MESSAGE, path: [...at, ...path].length ? [...at, ...path] : undefined });
}

export interface ParseOptions {
  /** Where an error of this code is reported, when not at the issue's own path (an array item or record value reports at the field). */
  reportAt?: Partial<Record<ErrorCode, readonly string[]>>;
}

/**
 * Runs a request schema; on failure throws the DomainError of the first failing field in the schema's field order
 * (the order of the spec's table). Issues without a path (the body itself) come first.
 */
export function parseRequest<S extends z.ZodType>(schema: S, raw: unknown, opts: ParseOptions = {}): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) {
    // What passed every field rule goes on to be stored: text the database cannot store is refused at its field
    // (fields the schema does not read are ignored, as they are otherwise).
    const order = fieldOrder(schema);
    const fields = order.length && raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? order.filter((k) => Object.hasOwn(raw, k)).map((k) => ({ [k]: (raw as Record<string, unknown>)[k] })) : [raw];
    const unstorable = unstorableTextPath(fields.length === 1 ? fields[0] : Object.assign({}, ...fields));
    if (unstorable) throw new DomainError('VALIDATION_FAILED', { message: UNSTORABLE_TEXT_MESSAGE, path: unstorable.length ? unstorable : undefined });
    return result.data;
  }
  const order = fieldOrder(schema);
  const rank = (i: z.core.$ZodIssue) => {
    if (i.path.length === 0) return -1;
    const at = order.indexOf(String(i.path[0]));
    return at < 0 ? order.length : at;
  };
  const first = [...result.error.issues].sort((a, b) => rank(a) - rank(b))[0];
  const { code, message } = issueError(first.message);
  const path = [...(opts.reportAt?.[code] ?? first.path.map(String))];
  throw new DomainError(code, { message, path: path.length ? path : undefined });
}
