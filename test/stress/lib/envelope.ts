/**
 * What every answer of the service must look like, whatever was sent: never a 5xx, never a stack trace or a source
 * path, and always the envelope of the face the path belongs to (spec: Response envelope (v1), v2 error body, OAuth
 * revoke errors; GraphQL `errors[].extensions.code`) with a code from ERROR_TABLE.
 */
import { ERROR_TABLE, type ErrorCode } from '../../../src/domain/errors.ts';

export type Face = 'v1' | 'v2' | 'oauth' | 'graphql' | 'sofa' | 'bank' | 'health' | 'docs' | 'metrics' | 'fallback';

export interface Answer {
  status: number;
  headers: Headers | Map<string, string>;
  text: string;
}

export interface Sent {
  method: string;
  path: string;
}

const header = (h: Answer['headers'], name: string): string | null => (h instanceof Map ? (h.get(name) ?? null) : h.get(name));

/** The face that answers a path (the same dispatch as src/http/app.ts). */
export function faceOf(pathname: string): Face {
  if (pathname === '/graphql') return 'graphql';
  if (pathname === '/v1' || pathname.startsWith('/v1/')) return 'v1';
  if (pathname === '/v2/oauth-apps/token' || pathname === '/v2/oauth-apps/revoke') return 'oauth';
  if (pathname === '/v2' || pathname.startsWith('/v2/')) return 'v2';
  if (pathname === '/bank-notifications') return 'bank';
  if (pathname === '/api/openapi.json') return 'docs';
  if (pathname === '/api' || pathname.startsWith('/api/')) return 'sofa';
  if (pathname === '/openapi.json' || pathname === '/docs' || pathname.startsWith('/docs/')) return 'docs';
  if (pathname === '/healthz' || pathname === '/readyz') return 'health';
  if (pathname === '/metrics') return 'metrics';
  return 'fallback';
}

const entries = Object.entries(ERROR_TABLE) as [ErrorCode, (typeof ERROR_TABLE)[ErrorCode]][];
/** v1 code → statuses it is sent with; v2 numeric code → statuses. */
const V1 = new Map<string, Set<number>>();
const V2 = new Map<string, Set<number>>();
for (const [, r] of entries) {
  if (!V1.has(r.v1.code)) V1.set(r.v1.code, new Set());
  V1.get(r.v1.code)!.add(r.v1.status);
  if (!V2.has(r.v2.code)) V2.set(r.v2.code, new Set());
  V2.get(r.v2.code)!.add(r.v2.status);
}
/** Codes that must never reach a caller: they are 5xx in disguise (the service's own fault). */
const FORBIDDEN_DOMAIN = new Set<string>(['INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE']);

/** GraphQL error codes: the domain codes plus GraphQL-over-HTTP's own refusals. */
const GRAPHQL_CODES = new Set<string>([...entries.map(([c]) => c), 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'BAD_REQUEST', 'OPERATION_RESOLUTION_FAILURE', 'PERSISTED_QUERY_NOT_FOUND']);
const OAUTH_ERRORS = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'temporarily_unavailable']);

/**
 * Stack frames, source locations and driver diagnostics: none may appear in an answer. (The generators never put
 * such text in requests, so an echo cannot trip these.)
 */
const LEAKS: [string, RegExp][] = [
  // (Linear-time patterns: answers may echo 100 KB of input.)
  ['stack frame', /(?:^|\\n|\n)[ \t]*at (?:[^\s()]+ )?\(?[^\s()]*:\d+:\d+\)?/],
  ['source location', /\.(?:ts|tsx|mts|cts|js|mjs|cjs):\d+/],
  ['node_modules path', /node_modules/],
  ['absolute source path', /\/work\/|\/home\/|\/usr\/(lib|local)\/|file:\/\/\//],
  ['Prisma diagnostic', /Invalid `[^`]*` invocation|PrismaClient[A-Za-z]*Error|prisma\.\$|tx\.[a-z]+\.[a-z]+\(\)/],
  ['SQL diagnostic', /invalid byte sequence for encoding|unsupported Unicode escape sequence|syntax error at or near|violates (unique|foreign key|check|not-null) constraint|relation "[^"]+" does not exist|duplicate key value/i],
  ['JS error name', /\b(TypeError|ReferenceError|RangeError|InternalOperationError)\b/],
];

export class EnvelopeError extends Error {}

function fail(msg: string): never {
  throw new EnvelopeError(msg);
}

function parseJson(a: Answer): unknown {
  const type = header(a.headers, 'content-type') ?? '';
  if (!/^application\/(json|graphql-response\+json)\b/i.test(type)) fail(`content-type is ${JSON.stringify(type)}, not JSON`);
  try {
    return JSON.parse(a.text);
  } catch {
    return fail('body is not JSON');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyKeys(body: Record<string, unknown>, allowed: string[]) {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length) fail(`unexpected keys ${JSON.stringify(extra)}`);
}

/** The domain code an answer carries, for counting (null when none). */
export function codeOf(face: Face, text: string): string | null {
  try {
    const b = JSON.parse(text);
    if (face === 'graphql' || face === 'sofa') return b?.errors?.[0]?.extensions?.code ?? (b?.data !== undefined ? 'DATA' : null);
    if (face === 'oauth') return b?.error ?? 'OK';
    return typeof b?.code === 'string' ? b.code : null;
  } catch {
    return null;
  }
}

/**
 * Checks one answer; throws EnvelopeError saying what is wrong. `bodyless` answers (HEAD, a CORS preflight) may have
 * no body.
 */
export function checkAnswer(sent: Sent, a: Answer): void {
  const pathname = sent.path.split(/[?#]/)[0];
  const face = faceOf(pathname);
  // The one 5xx the spec documents: v1 500 AGENCY_API_FAILED, the cash-receipt agency itself failed (the simulated
  // agency fails only for magic identifiers the generators do not use, so it should not even appear).
  const documented5xx = a.status === 500 && face === 'v1' && /^\{"code":"AGENCY_API_FAILED"/.test(a.text);
  if (a.status >= 500 && !documented5xx) fail(`status ${a.status}`);
  if (a.status < 100) fail(`status ${a.status}`);
  // Documents (swagger-ui's scripts, the metrics text) are not answers to callers' input: only their status counts.
  if (face !== 'docs' && face !== 'metrics') for (const [what, re] of LEAKS) if (re.test(a.text)) fail(`${what} in the answer: ${a.text.match(re)![0].slice(0, 120)}`);
  const method = sent.method.toUpperCase();
  if (a.status === 204 || a.status === 304) {
    if (a.text !== '') fail(`${a.status} answer has a body`);
    return;
  }
  // HEAD: over HTTP the body is dropped; in-process it may be there, and is then checked like any other.
  if ((method === 'HEAD' || method === 'OPTIONS') && a.text === '') return;
  switch (face) {
    case 'v1': {
      const b = parseJson(a);
      if (!isObject(b)) fail('v1 body is not an object');
      onlyKeys(b, ['code', 'data', 'totalItems']);
      if (typeof b.code !== 'string') fail('v1 code is not a string');
      if (a.status >= 400) {
        const statuses = V1.get(b.code);
        if (!statuses) fail(`v1 code ${b.code} is not in ERROR_TABLE`);
        if (!statuses.has(a.status)) fail(`v1 code ${b.code} with status ${a.status} (table: ${[...statuses]})`);
        if (b.data !== null) fail('v1 error data is not null');
        if (FORBIDDEN_DOMAIN.has(b.code)) fail(`v1 ${b.code}`);
      } else {
        if (!['OK', 'CREATED', 'DELETED'].includes(b.code)) fail(`v1 success code ${b.code}`);
        if (!('data' in b)) fail('v1 success without data');
        if ('totalItems' in b && (!Number.isInteger(b.totalItems) || !Array.isArray(b.data))) fail('v1 list envelope');
      }
      return;
    }
    case 'v2': {
      const b = parseJson(a);
      if (!isObject(b)) fail('v2 body is not an object');
      onlyKeys(b, ['code', 'data', 'totalItems']);
      if (typeof b.code !== 'string' || !/^\d+$/.test(b.code)) fail(`v2 code ${JSON.stringify(b.code)} is not a numeric string`);
      if (a.status >= 400) {
        const statuses = V2.get(b.code);
        if (!statuses) fail(`v2 code ${b.code} is not in ERROR_TABLE`);
        if (!statuses.has(a.status)) fail(`v2 code ${b.code} with status ${a.status} (table: ${[...statuses]})`);
        if (b.code === '50000' || b.code === '50003') fail(`v2 ${b.code}`);
      } else if (b.code !== '10001' || a.status !== 200) fail(`v2 success ${a.status} ${b.code}`);
      return;
    }
    case 'oauth': {
      const b = parseJson(a);
      if (!isObject(b)) fail('OAuth body is not an object');
      if (a.status >= 400) {
        onlyKeys(b, ['error', 'error_description']);
        if (typeof b.error !== 'string' || !OAUTH_ERRORS.has(b.error)) fail(`OAuth error ${JSON.stringify(b.error)}`);
        if (b.error_description !== undefined && typeof b.error_description !== 'string') fail('OAuth error_description');
      } else if (a.status !== 200) fail(`OAuth success status ${a.status}`);
      return;
    }
    case 'bank': {
      const b = parseJson(a);
      if (!isObject(b)) fail('bank-notification body is not an object');
      if (a.status >= 400) {
        onlyKeys(b, ['code', 'message', 'field']);
        if (typeof b.code !== 'string' || !V1.get(b.code)?.has(a.status)) fail(`bank-notification code ${JSON.stringify(b.code)} with status ${a.status}`);
        if (FORBIDDEN_DOMAIN.has(b.code)) fail(`bank-notification ${b.code}`);
        if (typeof b.message !== 'string') fail('bank-notification message');
      } else {
        onlyKeys(b, ['transactionId']);
        if (typeof b.transactionId !== 'string' || !/^trx_[a-z0-9]{24}$/.test(b.transactionId)) fail('bank-notification transactionId');
      }
      return;
    }
    case 'graphql':
    case 'sofa': {
      // GraphiQL: the documented HTML page for a browser's GET /graphql.
      if (face === 'graphql' && method === 'GET' && a.status === 200 && /^text\/html/.test(header(a.headers, 'content-type') ?? '')) return;
      const b = parseJson(a);
      // A /api success is the field's result: any JSON (a list, a scalar).
      if (face === 'sofa' && a.status < 400 && !(isObject(b) && 'errors' in b)) return;
      if (!isObject(b)) fail(`${face} body is not an object`);
      if (face === 'graphql') onlyKeys(b, ['data', 'errors', 'extensions']);
      const errors = b.errors;
      if (errors === undefined) {
        if (a.status >= 400) fail(`${face} ${a.status} without errors`);
        if (face === 'graphql' && !('data' in b)) fail('GraphQL answer without data or errors');
        return;
      }
      if (!Array.isArray(errors) || errors.length === 0) fail(`${face} errors is not a non-empty array`);
      if (face === 'sofa' && a.status < 400) fail('sofa answered errors with a success status');
      for (const e of errors) {
        if (!isObject(e) || typeof e.message !== 'string') fail(`${face} error without message`);
        const code = (e.extensions as Record<string, unknown> | undefined)?.code;
        if (typeof code !== 'string') fail(`${face} error without extensions.code: ${JSON.stringify(e).slice(0, 200)}`);
        if (!GRAPHQL_CODES.has(code)) fail(`${face} error code ${code} is not a known code`);
        if (FORBIDDEN_DOMAIN.has(code)) fail(`${face} ${code}: ${e.message}`);
      }
      return;
    }
    case 'health': {
      const b = parseJson(a);
      if (!isObject(b) || typeof b.status !== 'string') fail('health body');
      return;
    }
    case 'fallback': {
      const b = parseJson(a);
      if (!isObject(b)) fail('fallback body is not an object');
      onlyKeys(b, ['code', 'message']);
      if (a.status !== 404 || b.code !== 'NOT_FOUND') fail(`fallback ${a.status} ${String(b.code)}`);
      return;
    }
    case 'docs':
    case 'metrics':
      // Documents (JSON, HTML, text): status and leaks are checked above; their content is other tests' business.
      return;
  }
}
