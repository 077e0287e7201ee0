/**
 * Builds /openapi.json (OpenAPI 3.1) from the zod schemas: request bodies and query parameters are the schemas the
 * service parses them with (rendered with zod 4's `z.toJSONSchema`, input side), responses and webhook payloads the
 * schemas of ./components.ts and ./webhooks.ts (output side). Error bodies are rendered from ERROR_TABLE per version,
 * with each status's exact codes as an enum. Named schemas (`.meta({ id })`) become `#/components/schemas/<id>`.
 */
import { z } from 'zod';
import { ERROR_TABLE, type ErrorCode } from '../../src/domain/errors.ts';
import { wireSchemas } from '../../src/domain/request-schema.ts';
import { ID_PREFIXES } from '../../src/domain/ids.ts';
import type { PathIdKind, RouteDoc as Operation, RouteFace as Face } from '../shared/route.ts';
import { alwaysNull, V2CashReceipt, idOf } from './components.ts';
import { OPERATIONS } from './operations.ts';
import { WEBHOOK_EVENTS } from './webhooks.ts';

export const OPENAPI_VERSION = '1.2.0';

type Json = Record<string, unknown>;

/** Renders a zod schema to JSON Schema; its named parts go to `components` and are referenced from here. */
function renderer(components: Json) {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node && typeof node === 'object') {
      const out: Json = {};
      for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, '#/components/schemas/') : rewrite(v);
      return out;
    }
    return node;
  };
  return (schema: z.ZodType, io: 'input' | 'output'): Json => {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      // Where a value is parsed from more than its wire form (query integers, metadata), say what it is on the wire.
      override: ({ zodSchema, jsonSchema }) => {
        const wire = wireSchemas.get(zodSchema);
        if (!wire) return;
        const description = (jsonSchema as Json).description;
        for (const k of Object.keys(jsonSchema)) delete (jsonSchema as Json)[k];
        Object.assign(jsonSchema, wire, description && !wire.description ? { description } : {});
      },
    }) as Json;
    const { $schema: _dialect, $defs, ...root } = json;
    for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, unknown>)) {
      const rendered = rewrite(def);
      if (id in components && JSON.stringify(components[id]) !== JSON.stringify(rendered)) throw new Error(`OpenAPI component ${id} renders two ways`);
      components[id] = rendered;
    }
    return rewrite(root) as Json;
  };
}

// ───────────────────────────── errors ─────────────────────────────

/** The `data` a v2 error carries for a code (rest-compat/v2/handler.ts v2ErrorData); null for the rest. */
const V2_ERROR_DATA: Partial<Record<ErrorCode, z.ZodType>> = {
  INVOICE_ALREADY_EXISTS: z
    .object({ invoiceId: idOf('invoice', 'The pending invoice it conflicts with.'), number: z.int() })
    .meta({ id: 'V2ConflictData', description: 'The conflicting pending invoice.' }),
  RECEIPT_NOT_CANCELABLE: z
    .object({ reason: z.enum(['NTS_PENDING', 'NOT_ISSUED', 'FULLY_CANCELED', 'CANCELLATION_RECEIPT']), message: z.string() })
    .meta({ id: 'V2NotCancelableData', description: 'Why the receipt cannot be canceled.' }),
  AGENCY_API_FAILED: V2CashReceipt.nullable().meta({ description: 'The receipt, now FAILED (the original is unchanged on cancel).' }),
  AGENCY_EMAIL_FAILED: z
    .object({ code: z.string(), message: z.string() })
    .meta({ id: 'V2AgencyErrorData', description: 'The agency\'s own code and message.' }),
};
V2_ERROR_DATA.RECEIPT_NOT_REVOCABLE = V2_ERROR_DATA.RECEIPT_NOT_CANCELABLE;

const uniq = <T>(xs: T[]) => [...new Set(xs)];
const codeList = (codes: string[]) => z.enum(codes as [string, ...string[]]);

/** Error responses of a v1 or v2 operation: one per status, `code` an enum of exactly the codes of that status. */
function errorResponses(op: Operation, render: ReturnType<typeof renderer>): Record<string, Json> {
  const version = op.face as 'v1' | 'v2';
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of uniq([...op.errorCodes])) {
    const status = ERROR_TABLE[code][version].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const wire = (c: ErrorCode) => ERROR_TABLE[c][version].code;
    let schema: z.ZodType;
    if (version === 'v1') {
      schema = z.object({ code: codeList(uniq(codes.map(wire))), data: alwaysNull('object') });
    } else {
      const plain = codes.filter((c) => !V2_ERROR_DATA[c]);
      const variants: z.ZodType[] = [];
      if (plain.length) variants.push(z.object({ code: codeList(uniq(plain.map(wire))), data: alwaysNull('object') }));
      for (const c of codes.filter((c) => V2_ERROR_DATA[c])) {
        const v = z.object({ code: z.literal(wire(c)), data: V2_ERROR_DATA[c]! });
        if (!variants.some((x) => JSON.stringify(z.toJSONSchema(x, { unrepresentable: 'any' })) === JSON.stringify(z.toJSONSchema(v, { unrepresentable: 'any' })))) variants.push(v);
      }
      schema = variants.length === 1 ? variants[0] : z.union(variants as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    }
    const lines = uniq(codes.map((c) => `- \`${wire(c)}\`: ${ERROR_TABLE[c].message}`));
    out[String(status)] = { description: `Error (${version} body).\n\n${lines.join('\n')}`, content: { 'application/json': { schema: render(schema, 'output') } } };
  }
  return out;
}

const OAUTH_ERROR = (errors: string[], description: string, withDescription = true) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          error: { type: 'string', enum: errors },
          ...(withDescription ? { error_description: { type: 'string', description: 'What went wrong.' } } : {}),
        },
        required: withDescription ? ['error', 'error_description'] : ['error'],
        additionalProperties: false,
      },
    },
  },
});

/** RFC 6749 §5.2 / RFC 7009 error bodies `{error, error_description}` (oauthErrorBody in src/domain/errors.ts). */
function oauthErrors(op: Operation & { badRequest?: string[] }): Record<string, Json> {
  const bad = op.badRequest ?? ['invalid_request'];
  return {
    '400': OAUTH_ERROR(bad, 'The request is malformed (not form-urlencoded, a parameter missing or repeated)' + (bad.length > 1 ? ', or the code is invalid, expired, used or for another redirect URI.' : '.')),
    '401': OAUTH_ERROR(['invalid_client'], 'Client authentication failed (missing or wrong client id or secret).'),
    '413': OAUTH_ERROR(['invalid_request'], 'The body is too large.'),
    '429': OAUTH_ERROR(['temporarily_unavailable'], 'Rate limit exceeded: retry after `Retry-After` seconds.'),
    '500': OAUTH_ERROR(['server_error'], 'Server error.', false),
    '503': OAUTH_ERROR(['temporarily_unavailable'], 'The database cannot be reached: retry after `Retry-After` seconds.'),
  };
}

/** Bank-notification errors `{code, message, field?}` (rest-compat/bank/notifications.ts), codes from the v1 rendering. */
function bankErrors(op: Operation, render: ReturnType<typeof renderer>): Record<string, Json> {
  const byStatus = new Map<number, string[]>();
  for (const c of op.errorCodes) byStatus.set(ERROR_TABLE[c].v1.status, uniq([...(byStatus.get(ERROR_TABLE[c].v1.status) ?? []), ERROR_TABLE[c].v1.code]));
  const out: Record<string, Json> = {};
  for (const [status, wire] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const schema = z.object({
      code: codeList(wire),
      message: z.string(),
      field: z.string().optional().meta({ description: 'The field that failed (dotted path).' }),
    });
    out[String(status)] = { description: `Error: ${wire.map((w) => `\`${w}\``).join(', ')}.`, content: { 'application/json': { schema: render(schema, 'output') } } };
  }
  return out;
}

// ───────────────────────────── the document ─────────────────────────────

const SECURITY: Record<Face, Json[]> = {
  v1: [{ apiKey: [] }],
  v2: [{ apiKey: [] }],
  // HTTP Basic, or client_id and client_secret in the form (no security scheme for that).
  oauth: [{ oauthClient: [] }, {}],
  bank: [{ notificationToken: [] }],
};

const TAGS = [
  { name: 'v1 invoices', description: 'Invoices (orders) in the v1 API: string codes, `{code, data}` envelope.' },
  { name: 'v1 transactions', description: 'Deposits received from the bank feed.' },
  { name: 'v1 cash receipts', description: 'Cash receipts issued through the agency.' },
  { name: 'v2 invoices', description: 'Invoices in the v2 API: numeric codes, `{code: "10001", data}`, Unix seconds.' },
  { name: 'v2 transactions', description: 'Deposits in the v2 API: matching a deposit to an invoice by hand.' },
  { name: 'v2 cash receipts', description: 'Cash receipt cancel, reissue and e-mail.' },
  { name: 'OAuth apps', description: 'The authorization-code grant and token revocation (form-urlencoded, RFC 6749 / RFC 7009).' },
  { name: 'Bank notifications', description: 'What a bank feed posts for each deposit.' },
];

/** A query parameter is absent or text, never null: drops the null a nullish schema allows. */
function withoutNull(schema: Json): Json {
  const anyOf = schema.anyOf as Json[] | undefined;
  if (anyOf) {
    const rest = anyOf.filter((s) => s.type !== 'null');
    const { anyOf: _null, ...outer } = schema;
    return rest.length === 1 ? { ...outer, ...rest[0] } : { ...outer, anyOf: rest };
  }
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((t) => t !== 'null');
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  return schema;
}

/** Domain codes every idempotent POST can add (src/domain/idempotency.ts). */
const IDEMPOTENCY_ERRORS = ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS', 'IDEMPOTENCY_ANSWER_UNREADABLE', 'BAD_REQUEST'] as const;

/** Codes any v1/v2 call can get from the layer in front of the faces (src/http/router.ts): rate limit, database down. */
const FRONT_ERRORS = ['RATE_LIMITED', 'SERVICE_UNAVAILABLE'] as const;

/** Response headers of every rate-limited call (src/http/rate-limit.ts). */
const RATE_HEADERS: Json = {
  'RateLimit-Limit': { description: 'Requests the credential may make at once (the bucket size).', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the bucket now.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the bucket is full again.', schema: { type: 'integer' } },
  'RateLimit-Policy': { description: '`<bucket size>;w=<seconds to refill it>`.', schema: { type: 'string' } },
};
const RETRY_AFTER: Json = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } };

function withHeaders(responses: Json): Json {
  for (const [status, response] of Object.entries(responses) as [string, Json][]) {
    response.headers = status === '429' || status === '503' ? { ...RATE_HEADERS, ...RETRY_AFTER } : { ...RATE_HEADERS };
  }
  return responses;
}

const ID_NAMES: Record<PathIdKind, string> = { invoice: 'invoice', transaction: 'transaction', cashReceipt: 'cash receipt' };

function operationObject(operation: Operation, render: ReturnType<typeof renderer>): Json {
  const idempotent = operation.method === 'post' && (operation.face === 'v1' || operation.face === 'v2');
  const front = operation.face === 'v1' || operation.face === 'v2' ? FRONT_ERRORS : [];
  const op: Operation = { ...operation, errorCodes: [...new Set([...operation.errorCodes, ...(idempotent ? IDEMPOTENCY_ERRORS : []), ...front])] };
  const parameters: Json[] = [];
  if (idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: the first response to a key is stored for 24 hours (per credential: API key or OAuth token) and replayed, with `Idempotent-Replayed: true`, for a retry with the same request by the same credential; another credential sending the same key makes a call of its own. The same key with a different request is refused (v1 `IDEMPOTENCY_KEY_REUSED`, v2 `30020`). 1-255 visible ASCII characters.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  if (op.pathId) parameters.push({ name: 'id', in: 'path', required: true, description: `The ${ID_NAMES[op.pathId]} (\`${ID_PREFIXES[op.pathId]}...\`) id.`, schema: { type: 'string' } });
  if (op.query) {
    const q = render(op.query, 'input') as { properties: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties)) {
      const { description, ...rest } = withoutNull(schema);
      parameters.push({ name, in: 'query', required: (q.required ?? []).includes(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  const ok = { description: op.ok.description, content: { 'application/json': { schema: render(op.ok.schema, 'output') } } };
  const responses: Json = { [String(op.ok.status)]: ok };
  if (op.ok.alsoStatus) responses[String(op.ok.alsoStatus.status)] = { ...ok, description: op.ok.alsoStatus.description };
  Object.assign(responses, op.face === 'oauth' ? oauthErrors(op) : op.face === 'bank' ? bankErrors(op, render) : errorResponses(op, render));
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: SECURITY[op.face],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            content: { [op.body.form ? 'application/x-www-form-urlencoded' : 'application/json']: { schema: render(op.body.schema, 'input') } },
          },
        }
      : {}),
    responses: withHeaders(responses),
  };
}

const WEBHOOK_HEADERS = [
  { name: 'webhook-id', in: 'header', required: true, description: 'The event id (the same on every retry and replay: deduplicate on it).', schema: { type: 'string' } },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds of this attempt.', schema: { type: 'string' } },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the base64 part of the `whsec_` secret; two space-separated signatures for 24 hours after a rotation.',
    schema: { type: 'string' },
  },
];

/** The OpenAPI 3.1 document of the service (deterministic: the same code gives the same JSON). */
export function buildOpenApiDocument(): Json {
  const components: Json = {};
  const render = renderer(components);
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op, render);
  const webhooks: Record<string, Json> = {};
  for (const ev of WEBHOOK_EVENTS) {
    webhooks[ev.type] = {
      post: {
        operationId: `webhook_${ev.type.replace('.', '_')}`,
        summary: ev.type,
        description: `${ev.summary} Delivered as a POST to each enabled webhook of the versions shown; any 2xx is success, otherwise 6 more attempts; 410 Gone stops retrying and disables the webhook.`,
        tags: ['Webhooks'],
        // The receiver authenticates the sender by the signature header, not by a credential.
        security: [],
        parameters: WEBHOOK_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ev.payloads.length === 1 ? render(ev.payloads[0], 'output') : { anyOf: ev.payloads.map((p) => render(p, 'output')) } } },
        },
        responses: { '200': { description: 'Received (any 2xx).' }, '410': { description: 'Gone: stop delivering and disable the webhook.' } },
      },
    };
  }
  const schemas = Object.fromEntries(Object.keys(components).sort().map((k) => [k, components[k]]));
  return {
    openapi: '3.1.1',
    info: {
      title: 'Bank-transfer payments API',
      version: OPENAPI_VERSION,
      summary: 'Invoices matched to bank-transfer deposits, cash receipts, OAuth apps (REST v1 and v2).',
      description:
        'REST v1 (`/v1`, string codes, `{code, data, totalItems?}`) and REST v2 (`/v2`, numeric codes, `{code: "10001", data}`, Unix seconds) over one core; the same API key works on both. Generated from the zod schemas that validate the requests (`npm run openapi:write`). GraphQL is served at `/graphql` (SDL in `schema/schema.graphql`).',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the service that serves the document (/docs' "Try it out" calls the origin that served the page).
    servers: [{ url: '/', description: 'This service: the scheme, host and port this document was served from (`npm start` listens on http://localhost:4000).' }],
    tags: [...TAGS, { name: 'Webhooks', description: 'Events POSTed to registered webhooks (Standard Webhooks signing).' }],
    paths,
    webhooks,
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`sk_live_...`, from the dashboard) or an OAuth access token (`oat_...`). Read-only keys cannot write; account-limited keys see only their accounts.',
        },
        oauthClient: { type: 'http', scheme: 'basic', description: 'OAuth client authentication: `client_id` (`oap_...`) and `client_secret` (`oas_...`), URL-encoded (RFC 6749 §2.3.1).' },
        notificationToken: { type: 'http', scheme: 'bearer', description: 'The bank account\'s notification token (`bnt_...`).' },
      },
    },
  };
}

let cached: string | null = null;

/** The document as served and committed: JSON with two-space indentation and a final newline. */
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApiDocument(), null, 2) + '\n';
  return cached;
}
