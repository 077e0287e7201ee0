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
  if (result.success) return result.data;
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
