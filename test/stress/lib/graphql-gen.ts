/**
 * Random GraphQL documents over the real schema: any root field of Query, Mutation or Subscription, arguments from
 * their input types with hostile values (as variables or as literals, sometimes of the wrong type), selections of
 * random depth through every object, interface and union; and hostile shapes (deep nesting, alias bombs, directive
 * bombs, fragment cycles, huge variables, token floods). Selections always include `id` where a type has one (and
 * reach one through payload objects), so every row a mutation creates is named in its answer.
 */
import fc from 'fast-check';
import { chance, fraction, int, pick, type G } from './rand.ts';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { BOUNDARY_NUMBERS, deepJsonText, hostileJson, hostileNumber, hostileString } from './hostile.ts';


export interface GraphQLCase {
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
  /** Raw variables JSON to splice in place of `variables` (huge or deep values JSON.stringify cannot write). */
  rawVariables?: string;
  label: string;
}

export interface GenContext {
  schema: GraphQLSchema;
  /** Real ids of the seeded data, by prefix. */
  ids: string[];
}


const idFor = (g: G, ctx: GenContext): string => (chance(g, 0.7) ? pick(g, ctx.ids) : g(() => hostileString));

/** A JSON value for an input type (sometimes of the wrong type on purpose). */
function valueFor(g: G, ctx: GenContext, type: GraphQLInputType, depth: number): unknown {
  if (chance(g, 0.015)) return g(() => hostileJson);
  if (isNonNullType(type)) return chance(g, 0.01) ? null : valueFor(g, ctx, type.ofType, depth);
  if (chance(g, 0.08)) return null;
  if (isListType(type)) {
    if (chance(g, 0.05)) return valueFor(g, ctx, type.ofType, depth + 1);
    const n = int(g, depth > 3 ? 1 : 3);
    return Array.from({ length: n }, () => valueFor(g, ctx, type.ofType, depth + 1));
  }
  if (isEnumType(type)) return chance(g, 0.85) ? pick(g, type.getValues()).name : g(() => hostileString);
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    if (depth > 6) return out;
    for (const f of Object.values(type.getFields())) {
      if (isNonNullType(f.type) || chance(g, 0.5)) out[f.name] = valueFor(g, ctx, f.type, depth + 1);
    }
    if (chance(g, 0.05)) out[pick(g, ['__proto__', 'constructor', 'unknownField'])] = g(() => hostileJson);
    return out;
  }
  if (isScalarType(type)) return scalarValue(g, ctx, type.name, type);
  return null;
}

function scalarValue(g: G, ctx: GenContext, name: string, _t?: unknown): unknown {
  switch (name) {
    case 'ID':
      return idFor(g, ctx);
    case 'String':
      return g(() => hostileString);
    case 'Int':
      return chance(g, 0.6) ? pick(g, [0, 1, 5, 10, 20, 100, 101, -1, 365, 366, 1000]) : g(() => hostileNumber);
    case 'Float':
      return g(() => hostileNumber);
    case 'Boolean':
      return chance(g, 0.9) ? g(fc.boolean) : g(() => hostileJson);
    case 'DateTime':
      return chance(g, 0.5) ? new Date(Date.now() + g(fc.integer, { min: -400, max: 400 }) * 86_400_000).toISOString() : g(() => hostileString);
    case 'JSON':
      return chance(g, 0.5) ? { order: g(() => hostileString), [g(() => hostileString)]: g(() => hostileString) } : g(() => hostileJson);
    default:
      return g(() => hostileJson);
  }
}

/** A GraphQL literal for a JSON value (objects and lists as literals; enums when the type says so). */
function literal(value: unknown, type: GraphQLInputType | null): string {
  if (value === null || value === undefined) return 'null';
  const named = type ? getNamedType(type) : null;
  // A lone surrogate cannot be written in a GraphQL string literal at all (a parse error every time): as a literal it
  // goes as U+FFFD; it still reaches the service through variables.
  if (typeof value === 'string')
    return named && isEnumType(named) && /^[_A-Za-z][_0-9A-Za-z]*$/.test(value) ? value : JSON.stringify(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '0';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const inner = type && isNonNullType(type) ? type.ofType : type;
    const item = inner && isListType(inner) ? inner.ofType : null;
    return `[${value.map((v) => literal(v, item)).join(', ')}]`;
  }
  const fields = named && isInputObjectType(named) ? named.getFields() : null;
  return `{${Object.keys(value as object)
    .filter((k) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(k))
    .map((k) => `${k}: ${literal((value as Record<string, unknown>)[k], fields?.[k]?.type ?? null)}`)
    .join(', ')}}`;
}

interface Vars {
  defs: string[];
  values: Record<string, unknown>;
  next: number;
}

function argsFor(g: G, ctx: GenContext, field: GraphQLField<unknown, unknown>, vars: Vars): string {
  const parts: string[] = [];
  for (const a of field.args) {
    if (!isNonNullType(a.type) && !chance(g, 0.5)) continue;
    if (isNonNullType(a.type) && chance(g, 0.01)) continue; // a required argument left out
    const value = valueFor(g, ctx, a.type, 0);
    if (chance(g, 0.5)) {
      const name = `v${vars.next++}`;
      // Sometimes declared with another type than the argument's (a validation error), or left undeclared.
      const declared = chance(g, 0.02) ? pick(g, ['String', 'Int!', '[ID!]!', 'JSON', 'Boolean']) : String(a.type);
      if (!chance(g, 0.02)) vars.defs.push(`$${name}: ${declared}`);
      vars.values[name] = value;
      parts.push(`${a.name}: $${name}`);
    } else {
      parts.push(`${a.name}: ${literal(value, a.type)}`);
    }
  }
  if (chance(g, 0.01)) parts.push(`bogus: ${literal(g(() => hostileJson), null)}`);
  return parts.length ? `(${parts.join(', ')})` : '';
}

const hasId = (t: GraphQLNamedType) => (isObjectType(t) || isInterfaceType(t)) && 'id' in t.getFields();

/** A selection set for an output type: random fields, `id` always, deeper where the depth budget allows. */
function selection(g: G, ctx: GenContext, type: GraphQLOutputType, depth: number, vars: Vars, prefix = ''): string {
  const named = getNamedType(type);
  if (isScalarType(named) || isEnumType(named)) return '';
  if (isUnionType(named)) {
    const members = named.getTypes();
    return `{ __typename ${members.map((m) => `... on ${m.name} ${selection(g, ctx, m, depth, vars, `${m.name}_`)}`).join(' ')} }`;
  }
  const obj = named as GraphQLObjectType;
  const fields = Object.values(obj.getFields());
  const chosen: string[] = [];
  if (hasId(obj)) chosen.push('id');
  else chosen.push('__typename');
  for (const f of fields) {
    if (f.name === 'id') continue;
    const inner = getNamedType(f.type);
    const leaf = isScalarType(inner) || isEnumType(inner);
    // Payload objects without an id must lead to the object that has one (the row a mutation wrote).
    const mustFollow = !hasId(obj) && hasId(inner) && depth < 8;
    const want = mustFollow || (leaf ? chance(g, 0.35) : depth < 8 && chance(g, depth < 2 ? 0.35 : 0.12));
    if (!want) continue;
    const args = f.args.length ? argsFor(g, ctx, f, vars) : '';
    // Inside a fragment on one of several types, every field gets that type's alias (same names, other types conflict).
    const alias = prefix ? `${prefix}${f.name}: ` : chance(g, 0.05) ? `a${chosen.length}: ` : '';
    chosen.push(`${alias}${f.name}${args} ${leaf ? '' : selection(g, ctx, f.type, depth + 1, vars)}`);
  }
  if (isInterfaceType(named)) {
    for (const impl of ctx.schema.getPossibleTypes(named)) chosen.push(`... on ${impl.name} ${selection(g, ctx, impl, depth + 1, vars, `${impl.name}_`)}`);
  }
  return `{ ${chosen.join(' ')} }`;
}

/** One random operation over the schema. */
export function randomOperation(g: G, ctx: GenContext): GraphQLCase {
  const kind = pick(g, ['query', 'query', 'query', 'query', 'query', 'query', 'mutation', 'mutation', 'mutation', 'mutation', 'mutation', 'subscription'] as const);
  const root = kind === 'query' ? ctx.schema.getQueryType()! : kind === 'mutation' ? ctx.schema.getMutationType()! : ctx.schema.getSubscriptionType()!;
  const fields = Object.values(root.getFields());
  const vars: Vars = { defs: [], values: {}, next: 0 };
  // One mutation per document: with several, a refusal of one (a non-null root field) nulls `data`, and the rows the
  // others wrote are named nowhere in the answer (GraphQL's null propagation, not a half-written write).
  const n = kind === 'query' ? 1 + int(g, 2) : 1;
  const parts: string[] = [];
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const f = pick(g, fields);
    names.push(f.name);
    parts.push(`${i ? `f${i}: ` : ''}${f.name}${argsFor(g, ctx, f, vars)} ${selection(g, ctx, f.type, 0, vars)}`);
  }
  const name = chance(g, 0.3) ? 'Op' : '';
  const defs = vars.defs.length ? `(${vars.defs.join(', ')})` : '';
  return { query: `${kind} ${name}${defs} { ${parts.join(' ')} }`, variables: vars.values, operationName: name && chance(g, 0.7) ? name : undefined, label: `${kind} ${names.join(',')}` };
}

/** Documents built to hurt: depth, breadth, aliases, directives, fragments, tokens, huge or deep variables. */
export function hostileOperation(g: G, ctx: GenContext): GraphQLCase {
  const kind = int(g, 11);
  const n = pick(g, [10, 31, 100, 1000, 5000]);
  switch (kind) {
    case 0: {
      // Deep selection through real fields that loop (invoice → transactions → matchedInvoice ...).
      const depth = pick(g, [8, 12, 13, 20, 50, 200]);
      let sel = '{ id }';
      for (let i = 0; i < depth; i++) sel = i % 2 === 0 ? `{ id transactions ${sel} }` : `{ id matchedInvoice ${sel} }`;
      return { query: `{ invoice(id: ${JSON.stringify(pick(g, ctx.ids))}) { id transactions ${sel} } }`, variables: {}, label: `deep real ${depth}` };
    }
    case 1: {
      const depth = pick(g, [13, 100, 1000, 10_000]);
      return { query: `{ ${'viewer { '.repeat(depth)}__typename${' }'.repeat(depth)} }`, variables: {}, label: `deep nonsense ${depth}` };
    }
    case 2:
      return { query: `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { __typename }`).join(' ')} }`, variables: {}, label: `alias bomb ${n}` };
    case 3:
      return { query: `{ ${Array.from({ length: Math.min(n, 2000) }, (_, i) => `i${i}: invoicePage(offset: 0, limit: 100) { items { id customer { name } } }`).join(' ')} }`, variables: {}, label: `cost bomb ${n}` };
    case 4:
      return { query: `{ viewer ${'@include(if: true) '.repeat(n)}{ __typename } }`, variables: {}, label: `directive bomb ${n}` };
    case 5:
      return { query: `query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }`, variables: {}, label: 'fragment cycle' };
    case 6:
      return { query: `{ ${'__typename '.repeat(n * 2)} }`, variables: {}, label: `token flood ${n * 2}` };
    case 7: {
      // Huge variables: a ~900 KB string, 100,000 keys, or a JSON scalar nested deep.
      const which = int(g, 2);
      const query = 'mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { __typename ... on InvoicePayload { invoice { id } } ... on DomainError { code } } }';
      const base = `"bankAccountIds":[],"customer":{"name":"v${int(g, 1e9)}"},"amount":${1 + int(g, 1e6)}`;
      if (which === 0) return { query, variables: {}, rawVariables: `{"input":{${base},"metadata":{"a":"${'x'.repeat(900_000)}"}}}`, label: 'huge variable string' };
      if (which === 1) return { query, variables: {}, rawVariables: `{"input":{${base}},${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}`, label: 'many variables' };
      return { query, variables: {}, rawVariables: `{"input":{${base},"metadata":${deepJsonText(pick(g, [100, 5000, 50_000]), 'mixed', '"x"')}}}`, label: 'deep JSON variable' };
    }
    case 8:
      return { query: `{ invoices(first: ${pick(g, BOUNDARY_NUMBERS.filter(Number.isInteger).map(String))}) { totalCount edges { cursor node { id } } } }`, variables: {}, label: 'connection bounds' };
    case 9:
      return { query: `{ __schema { types { name fields { name args { name type { name ofType { name ofType { name } } } } } } } }`, variables: {}, label: 'introspection' };
    case 10:
      return { query: `query A { viewer { __typename } } query B { viewer { __typename } }`, variables: {}, operationName: pick(g, ['A', 'C', '', undefined as unknown as string]), label: 'operation names' };
    default:
      return { query: g(() => hostileString), variables: {}, label: 'garbage document' };
  }
}
