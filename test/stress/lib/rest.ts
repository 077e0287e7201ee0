/**
 * Every REST route of the service (REST v1, v2, OAuth, bank notifications, the /api routes sofa-api generates, the
 * documents and health checks) and a generator of hostile requests for them: bodies that start valid and are then
 * broken (fields replaced by hostile values, removed, prototype keys added, wrapped, nested deep, grown huge, written
 * with raw tokens, cut short or spliced with bytes that are not UTF-8), query strings, path ids, methods, credentials,
 * content types and other headers.
 */
import fc from 'fast-check';
import { chance, fraction, int, pick, type G } from './rand.ts';
import type { Seeded } from './setup.ts';
import { ACCEPTS, CONTENT_TYPES, deepJsonText, hostileJson, hostileNumber, hostileString, HOSTILE_STRINGS, INVALID_UTF8, PROTO_KEYS, spliceInvalidUtf8, withRawTokens } from './hostile.ts';


/** encodeURIComponent that cannot throw: a lone surrogate (no UTF-8 form) goes as U+FFFD, as a browser would send it. */
export const enc = (s: string): string => encodeURIComponent(s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

export type BodyKind =
  | 'createInvoice'
  | 'issueReceipt'
  | 'patchInvoice'
  | 'cancelInvoice'
  | 'cancelReceipt'
  | 'reissue'
  | 'sendEmail'
  | 'bank'
  | 'oauthToken'
  | 'oauthRevoke'
  | 'sofa'
  | 'none';

export interface RouteSpec {
  method: string;
  /** Path with `:name` parameters. */
  path: string;
  /** What a `:id` names (for choosing real ids). */
  ids?: 'invoice' | 'transaction' | 'receipt' | 'any';
  query?: string[];
  body: BodyKind;
  /** sofa: JSON-schema-ish property names of the body and the query. */
  sofaArgs?: string[];
  weight: number;
}

export const REST_ROUTES: RouteSpec[] = [
  { method: 'POST', path: '/v1/invoices', body: 'createInvoice', weight: 8 },
  { method: 'GET', path: '/v1/invoices', query: ['offset', 'limit', 'search', 'paid', 'expired', 'dateAfter', 'dateBefore'], body: 'none', weight: 4 },
  { method: 'GET', path: '/v1/invoices/:id', ids: 'invoice', body: 'none', weight: 2 },
  { method: 'POST', path: '/v1/invoices/:id/mark-as-paid', ids: 'invoice', body: 'none', weight: 2 },
  { method: 'DELETE', path: '/v1/invoices/:id', ids: 'invoice', body: 'none', weight: 2 },
  { method: 'GET', path: '/v1/transactions', query: ['offset', 'limit', 'search', 'bankAccountId', 'matched', 'hidden', 'dateAfter', 'dateBefore'], body: 'none', weight: 3 },
  { method: 'GET', path: '/v1/transactions/:id', ids: 'transaction', body: 'none', weight: 2 },
  { method: 'POST', path: '/v1/cash-receipts', body: 'issueReceipt', weight: 4 },
  { method: 'GET', path: '/v1/cash-receipts', query: ['offset', 'limit', 'search', 'status', 'type', 'identifier', 'corpNum', 'dateAfter', 'dateBefore'], body: 'none', weight: 3 },
  { method: 'GET', path: '/v1/cash-receipts/:id', ids: 'receipt', body: 'none', weight: 2 },
  { method: 'POST', path: '/v1/cash-receipts/:id/revoke', ids: 'receipt', body: 'none', weight: 2 },
  { method: 'GET', path: '/v2/invoices', query: ['offset', 'limit', 'search', 'status', 'dateAfter', 'dateBefore'], body: 'none', weight: 3 },
  { method: 'GET', path: '/v2/invoices/:id', ids: 'invoice', body: 'none', weight: 2 },
  { method: 'PATCH', path: '/v2/invoices/:id', ids: 'invoice', body: 'patchInvoice', weight: 6 },
  { method: 'POST', path: '/v2/invoices/:id/cancel', ids: 'invoice', body: 'cancelInvoice', weight: 3 },
  { method: 'GET', path: '/v2/cash-receipts/:id', ids: 'receipt', body: 'none', weight: 2 },
  { method: 'POST', path: '/v2/cash-receipts/:id/cancel', ids: 'receipt', body: 'cancelReceipt', weight: 3 },
  { method: 'POST', path: '/v2/cash-receipts/:id/reissue', ids: 'receipt', body: 'reissue', weight: 3 },
  { method: 'POST', path: '/v2/cash-receipts/:id/send-email', ids: 'receipt', body: 'sendEmail', weight: 3 },
  { method: 'POST', path: '/v2/oauth-apps/token', body: 'oauthToken', weight: 3 },
  { method: 'POST', path: '/v2/oauth-apps/revoke', body: 'oauthRevoke', weight: 3 },
  { method: 'POST', path: '/bank-notifications', body: 'bank', weight: 5 },
  { method: 'GET', path: '/healthz', body: 'none', weight: 0.3 },
  { method: 'GET', path: '/readyz', body: 'none', weight: 0.3 },
  { method: 'GET', path: '/openapi.json', body: 'none', weight: 0.2 },
  { method: 'GET', path: '/api/openapi.json', body: 'none', weight: 0.1 },
  { method: 'GET', path: '/docs', body: 'none', weight: 0.2 },
  { method: 'GET', path: '/metrics', body: 'none', weight: 0.1 },
];

/** The /api routes, read from sofa-api's own OpenAPI document. */
export function sofaRoutes(doc: { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>> }): RouteSpec[] {
  const out: RouteSpec[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const query = (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name);
      const props = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {});
      out.push({
        method: method.toUpperCase(),
        path: `/api${p.replace(/\{([^}]+)\}/g, ':$1')}`,
        ids: /\{/.test(p) ? 'any' : undefined,
        query,
        body: method.toUpperCase() === 'GET' ? 'none' : 'sofa',
        sofaArgs: props,
        weight: 0.5,
      });
    }
  }
  return out;
}

export interface HttpCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  label: string;
}


let unique = 0;
/** A depositor name no earlier request used (valid: 1-16 characters, no spaces), so creations do not conflict. */
const freshName = (g: G) => `${pick(g, ['f', '김', 'ﾎ', 'x(주)'])}${(unique++).toString(36)}`.slice(0, 16);

function idsOf(s: Seeded, kind: RouteSpec['ids']): string[] {
  if (kind === 'invoice') return s.invoiceIds;
  if (kind === 'transaction') return s.transactionIds;
  if (kind === 'receipt') return s.receiptIds;
  return s.ids;
}

/** A header value a `Headers` object accepts (latin1, no NUL/CR/LF, trimmed): hostile text folded into that range. */
export function headerSafe(s: string): string {
  return [...s]
    .map((c) => (c.charCodeAt(0) > 0xff || /[\0\r\n]/.test(c) ? '?' : c))
    .join('')
    .trim()
    .slice(0, 16_384);
}

/** A credential: the right kind most of the time, any other kind or garbage otherwise. */
export function authorization(g: G, s: Seeded, route: RouteSpec): string | null {
  if (route.body === 'bank' && chance(g, 0.75)) return `Bearer ${s.m.bankAccount.notificationToken}`;
  const r = int(g, 99);
  if (r < 52) return `Bearer ${s.m.apiKey.secret}`;
  if (r < 59) return `Bearer ${s.readOnlyKey}`;
  if (r < 66) return `Bearer ${s.limitedKey}`;
  if (r < 71) return `Bearer ${s.m.sessionToken}`;
  if (r < 76) return `Bearer ${s.oauth.accessToken}`;
  if (r < 84) return null;
  return headerSafe(
    pick(g, [
      'Bearer',
      'Bearer ',
      'bearer ' + s.m.apiKey.secret,
      'Bearer  ' + s.m.apiKey.secret + '  ',
      'Bearer ' + s.m.apiKey.secret + 'x',
      'Bearer ' + s.m.apiKey.secret.slice(0, -1),
      'Bearer sk_live_' + 'a'.repeat(600),
      'Bearer ' + 'x'.repeat(10_000),
      'Basic ' + Buffer.from(`${s.oauth.clientId}:${s.oauth.clientSecret}`).toString('base64'),
      'Basic !!!',
      'Bearer a b',
      'Token ' + s.m.apiKey.secret,
      s.m.apiKey.secret,
      'Bearer oat_' + 'z'.repeat(24),
      'Bearer sess_' + 'z'.repeat(24),
      'Bearer ' + g(() => hostileString),
      g(() => hostileString),
    ]),
  );
}

/** A valid-looking body of each kind (so requests get past validation and reach the database). */
function template(g: G, s: Seeded, kind: BodyKind, route: RouteSpec): unknown {
  const now = Math.floor(Date.now() / 1000);
  switch (kind) {
    case 'createInvoice':
      return {
        bankAccountIds: pick(g, [[], [s.m.bankAccount.id], [s.secondBankAccountId], [s.m.bankAccount.id, s.secondBankAccountId]]),
        customer: { name: freshName(g), ...(chance(g, 0.3) ? { email: 'buyer@example.com' } : {}), ...(chance(g, 0.3) ? { phoneNumber: '01012345678' } : {}) },
        amount: 1 + int(g, 5_000_000),
        ...(chance(g, 0.2) ? { cashReceipt: pick(g, [{ type: 'PERSONAL', identifier: '01012345678' }, { type: 'CORPORATE', identifier: '1234567890' }]) } : {}),
        ...(chance(g, 0.4) ? { expireAfter: pick(g, ['PT30M', '1d', '7d', 'P1DT6H20M', '365d']) } : {}),
        ...(chance(g, 0.4) ? { metadata: { order: `o${g(fc.nat)}`, ...(chance(g, 0.3) ? { [pick(g, PROTO_KEYS)]: 'v' } : {}) } } : {}),
      };
    case 'issueReceipt':
      return { ...pick(g, [{ type: 'PERSONAL', identifier: '01012345678' }, { type: 'CORPORATE', identifier: '1234567890' }]), amount: 1 + int(g, 1_000_000) };
    case 'patchInvoice': {
      const out: Record<string, unknown> = {};
      if (chance(g, 0.4)) out.customer = { name: freshName(g), ...(chance(g, 0.3) ? { email: pick(g, ['buyer@example.com', null]) } : {}), ...(chance(g, 0.3) ? { phoneNumber: pick(g, ['01012345678', null]) } : {}) };
      if (chance(g, 0.4)) out.amount = 1 + int(g, 5_000_000);
      if (chance(g, 0.3)) out.expiresAt = pick(g, [null, now + 3600, now + 86_400 * 365, now + 86_400 * 366, now - 1, now]);
      if (chance(g, 0.2)) out.extendDays = pick(g, [1, 30, 365, 366, 0]);
      if (chance(g, 0.2)) out.bankAccountIds = pick(g, [[], [s.m.bankAccount.id], [s.secondBankAccountId]]);
      if (chance(g, 0.2)) out.cashReceipt = pick(g, [null, { type: 'PERSONAL', identifier: '01012345678' }]);
      if (chance(g, 0.2)) out.resendGuideEmail = g(fc.boolean);
      return out;
    }
    case 'cancelInvoice':
      return chance(g, 0.3) ? {} : { reason: pick(g, ['customer asked', '', 'a'.repeat(200), 'a'.repeat(201)]) };
    case 'cancelReceipt':
      return { reason: pick(g, ['transaction canceled', 'a'.repeat(100), 'a'.repeat(101), '']), ...(chance(g, 0.5) ? { amount: pick(g, [1, 100, 11_000, 11_001, 0]) } : {}) };
    case 'reissue':
      return { ...(chance(g, 0.8) ? { identifier: pick(g, ['01012345678', '1234567890']) } : {}), ...(chance(g, 0.4) ? { type: pick(g, ['PERSONAL', 'CORPORATE']) } : {}), ...(chance(g, 0.3) ? { selfIssued: g(fc.boolean) } : {}) };
    case 'sendEmail':
      return { email: pick(g, ['buyer@example.com', 'a'.repeat(95) + '@b.co']) };
    case 'bank':
      return {
        notificationId: `n-${g(fc.nat)}-${unique++}`,
        depositorName: pick(g, ['seed3', 'seed4', 'seed5', freshName(g), '홍길동']),
        amount: pick(g, [1003, 1004, 1005, 1 + int(g, 1_000_000)]),
        receivedAt: new Date(Date.now() - int(g, 86_400_000)).toISOString(),
      };
    case 'oauthToken':
      return { grant_type: pick(g, ['authorization_code', 'client_credentials', 'password', '']), code: pick(g, ['oac_' + 'a'.repeat(24), 'x']), redirect_uri: s.oauth.redirectUri, ...creds(g, s) };
    case 'oauthRevoke':
      return { token: pick(g, [s.oauth.accessToken, 'oat_' + 'z'.repeat(24), 'x']), ...creds(g, s) };
    case 'sofa': {
      const out: Record<string, unknown> = {};
      for (const a of route.sofaArgs ?? []) if (chance(g, 0.7)) out[a] = a === 'input' ? g(() => hostileJson) : a === 'id' ? pick(g, s.ids) : g(() => hostileJson);
      if (route.path === '/api/create-invoice' && chance(g, 0.5)) out.input = template(g, s, 'createInvoice', route);
      return out;
    }
    default:
      return undefined;
  }
}

function creds(g: G, s: Seeded): Record<string, string> {
  const r = int(g, 3);
  if (r === 0) return { client_id: s.oauth.clientId, client_secret: s.oauth.clientSecret };
  if (r === 1) return { client_id: s.oauth.clientId, client_secret: 'oas_wrong' };
  return {};
}

/** Leaf and inner paths of a JSON value (where a mutation can strike). */
function pathsOf(v: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  out.push(prefix);
  if (v && typeof v === 'object' && prefix.length < 6) for (const k of Object.keys(v)) pathsOf((v as Record<string, unknown>)[k], [...prefix, k], out);
  return out;
}

function setAt(root: unknown, path: string[], value: unknown, remove = false): unknown {
  if (path.length === 0) return value;
  const [k, ...rest] = path;
  const base: Record<string, unknown> = root && typeof root === 'object' ? (Array.isArray(root) ? ([...root] as unknown as Record<string, unknown>) : { ...(root as object) }) : {};
  if (remove && rest.length === 0) {
    delete base[k];
    return base;
  }
  Object.defineProperty(base, k, { value: setAt(base[k], rest, value, remove), enumerable: true, writable: true, configurable: true });
  return base;
}

/** Breaks a valid body in 0-3 places. */
function mutate(g: G, body: unknown): unknown {
  let b = body;
  const n = int(g, 3);
  for (let i = 0; i < n; i++) {
    const paths = pathsOf(b);
    const path = pick(g, paths);
    switch (int(g, 7)) {
      case 0:
      case 1:
        b = setAt(b, path, g(() => hostileString));
        break;
      case 2:
        b = setAt(b, path, g(() => hostileNumber));
        break;
      case 3:
        b = setAt(b, path, g(() => hostileJson));
        break;
      case 4:
        if (path.length) b = setAt(b, path, undefined, true);
        break;
      case 5:
        b = setAt(b, [...path.slice(0, -1), pick(g, PROTO_KEYS)], g(() => hostileJson));
        break;
      case 6:
        b = setAt(b, path, pick(g, [null, true, [], {}, [1, 2], '', 0]));
        break;
      default:
        b = pick(g, [[b], { data: b }, JSON.stringify(b)]);
    }
  }
  return b;
}

const MAX_BODY = 1024 * 1024;

/** The body on the wire: JSON (mostly), raw tokens, deep, huge, cut short, not UTF-8, or form-encoded. */
function serialize(g: G, kind: BodyKind, value: unknown): { body: string | Uint8Array; label: string } {
  if (kind === 'oauthToken' || kind === 'oauthRevoke') {
    const r = int(g, 9);
    const form = new URLSearchParams();
    if (value && typeof value === 'object' && !Array.isArray(value)) for (const [k, v] of Object.entries(value)) form.append(k, typeof v === 'string' ? v : JSON.stringify(v) ?? '');
    if (r < 6) return { body: form.toString(), label: 'form' };
    if (r === 6) return { body: form.toString() + '&' + form.toString(), label: 'form repeated' };
    if (r === 7) return { body: pick(g, ['%', '%zz=1', '&&&', '=', 'token', '%00=%00', 'a=' + 'b'.repeat(2 * MAX_BODY)]), label: 'form garbage' };
    if (r === 8) return { body: spliceInvalidUtf8(form.toString(), fraction(g), pick(g, INVALID_UTF8)), label: 'form not UTF-8' };
    return { body: JSON.stringify(value) ?? '', label: 'form as JSON' };
  }
  const r = int(g, 99);
  const text = JSON.stringify(value) ?? '';
  if (r < 70) return { body: text, label: 'json' };
  if (r < 78) return { body: withRawTokens(value, (n) => int(g, n - 1)), label: 'raw tokens' };
  if (r < 82) {
    const depth = pick(g, [64, 1000, 10_000, 100_000, 300_000]);
    const deep = deepJsonText(depth, pick(g, ['object', 'array', 'mixed'] as const));
    // Deep as the whole body, or as one field of an otherwise valid body.
    return chance(g, 0.5) ? { body: deep, label: `deep ${depth}` } : { body: text.replace(/^\{/, `{"metadata":${deep},"customer":${deep},`), label: `deep field ${depth}` };
  }
  if (r < 86) {
    const cut = Math.floor(fraction(g) * text.length);
    return { body: pick(g, [text.slice(0, cut), '', ' ', 'null', '[]', '"x"', '1', 'true', '{"a":1,}', '\ufeff' + text, text + '\u0000', text + 'garbage', '{' + text, `${text}${text}`, text.replace(/"/g, "'")]), label: 'broken JSON' };
  }
  if (r < 92) return { body: spliceInvalidUtf8(text, fraction(g), pick(g, INVALID_UTF8)), label: 'not UTF-8' };
  if (r < 95) {
    // Just under and just over the body limit (1 MiB by default).
    const size = pick(g, [MAX_BODY - 200, MAX_BODY + 1, 2 * MAX_BODY]);
    const pad = Math.max(0, size - text.length - 20);
    return { body: text.replace(/^\{/, `{"pad":"${'x'.repeat(pad)}",`), label: `huge ${size}` };
  }
  if (r < 98) {
    // Many keys, many array items.
    const n = pick(g, [1000, 50_000]);
    return chance(g, 0.5)
      ? { body: text.replace(/^\{/, `{${Array.from({ length: n }, (_, i) => `"k${i}":"v"`).join(',')},`), label: `wide object ${n}` }
      : { body: text.replace(/^\{/, `{"bankAccountIds":[${Array.from({ length: n }, () => '"bac_000000000000000000000000"').join(',')}],`), label: `long array ${n}` };
  }
  return { body: JSON.stringify(g(() => hostileJson)) ?? '', label: 'random JSON' };
}

const PATH_IDS = (g: G, s: Seeded, kind: RouteSpec['ids']): string => {
  const r = int(g, 99);
  if (r < 50) return pick(g, idsOf(s, kind));
  if (r < 58) return pick(g, s.ids);
  if (r < 85) return enc(g(() => hostileString));
  if (r < 95) return pick(g, ['%', '%zz', '%E0%A4%A', '%00', '%2F', '..', '%2e%2e', '.', 'ivc_%00', '%ED%A0%80', '%C0%80', '%FF', 'a%20b', '+', ';x=1', '%0d%0aX-Injected:%201']);
  return '';
};

/** A query string for a list route: the known parameters with valid or hostile values, in any encoding. */
function queryString(g: G, s: Seeded, route: RouteSpec): string {
  const parts: string[] = [];
  const value = (name: string): string => {
    if (chance(g, 0.55)) {
      switch (name) {
        case 'offset':
          return String(pick(g, [0, 0, 1, 5, 100]));
        case 'limit':
        case 'first':
          return String(pick(g, [1, 10, 20, 100]));
        case 'paid':
        case 'expired':
        case 'matched':
        case 'hidden':
          return pick(g, ['true', 'false']);
        case 'status':
          return pick(g, ['PENDING', 'ISSUED', 'PAID', 'CANCELED', 'REVOKED', 'PENDING,PAID', 'FAILED']);
        case 'type':
          return pick(g, ['PERSONAL', 'CORPORATE']);
        case 'bankAccountId':
          return pick(g, [s.m.bankAccount.id, s.secondBankAccountId]);
        case 'dateAfter':
        case 'dateBefore':
          return pick(g, ['2026-01-01', '2099-12-31', new Date().toISOString().slice(0, 10)]);
        case 'id':
          return pick(g, s.ids);
        default:
          return enc(pick(g, ['seed', 'seed1', '010', '1234567890', s.invoiceIds[0]]));
      }
    }
    if (chance(g, 0.3)) return String(g(() => hostileNumber));
    const raw = g(() => hostileString);
    return chance(g, 0.7) ? enc(raw) : raw.replace(/[#\s]/g, '');
  };
  for (const name of route.query ?? []) {
    const required = name === 'offset' || name === 'limit';
    if (!(required ? chance(g, 0.9) : chance(g, 0.35))) continue;
    parts.push(`${name}=${value(name)}`);
    if (chance(g, 0.05)) parts.push(`${name}=${value(name)}`);
  }
  if (chance(g, 0.08)) parts.push(pick(g, ['__proto__[x]=1', 'constructor[prototype][x]=1', 'offset[]=1', 'limit[$gt]=1', '=', '&', 'a', '%', 'x=%zz', `${'p'.repeat(2000)}=1`, `search=${'%00'.repeat(300)}`]));
  return parts.length ? `?${parts.join('&')}` : chance(g, 0.05) ? '?' : '';
}

const ODD_PATHS = ['/', '', '/v1', '/v2', '/v3/invoices', '/v1/', '/v1/invoices/x/y/z', '/V1/INVOICES', '/v1//invoices', '/v1/invoices/../v2/invoices', '/graphql/x', '/api', '/api/', '/api/webhook', '/api/nope', '/bank-notifications/x', '/%00', '/%ZZ', '/docs/../openapi.json', '/v2/oauth-apps', '/v2/oauth-apps/', '/v2/oauth-apps/x', '/healthz/x', '/metrics/x', `/${'a'.repeat(8000)}`];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** One hostile request against one route of `routes`. */
export function restCase(g: G, s: Seeded, routes: RouteSpec[]): HttpCase {
  const total = routes.reduce((n, r) => n + r.weight, 0);
  let x = fraction(g) * total;
  let route = routes[routes.length - 1];
  for (const r of routes) {
    x -= r.weight;
    if (x < 0) {
      route = r;
      break;
    }
  }
  let path = route.path.replace(/:[A-Za-z]+/g, () => PATH_IDS(g, s, route.ids));
  if (chance(g, 0.03)) path = pick(g, ODD_PATHS);
  else if (chance(g, 0.03)) path = path + pick(g, ['/', '//', '/x', '%20', '.json', '?', '#frag']);
  const method = chance(g, 0.9) ? route.method : pick(g, METHODS);
  const headers: Record<string, string> = {};
  const auth = authorization(g, s, route);
  if (auth !== null) headers.authorization = auth;
  let body: string | Uint8Array | undefined;
  let label = `${route.method} ${route.path}`;
  if (method !== 'GET' && method !== 'HEAD') {
    const t = template(g, s, route.body, route);
    if (t !== undefined || chance(g, 0.1)) {
      const broken = chance(g, 0.55) ? mutate(g, t ?? {}) : t;
      const ser = serialize(g, route.body, broken);
      body = ser.body;
      label += ` [${ser.label}]`;
    }
  }
  const form = route.body === 'oauthToken' || route.body === 'oauthRevoke';
  if (body !== undefined || chance(g, 0.1)) {
    const ct = chance(g, 0.8) ? (form ? 'application/x-www-form-urlencoded' : 'application/json') : pick(g, CONTENT_TYPES);
    if (ct !== null) headers['content-type'] = ct;
  }
  if (chance(g, 0.08)) headers['idempotency-key'] = headerSafe(pick(g, ['k1', 'k2', 'k3', 'k-' + int(g, 20), 'x'.repeat(300), 'x'.repeat(10_000), g(() => hostileString)])) || 'k0';
  if (chance(g, 0.05)) headers['x-request-id'] = headerSafe(g(() => hostileString)) || 'r';
  if (chance(g, 0.08)) {
    const a = pick(g, ACCEPTS);
    if (a) headers.accept = a;
  }
  if (chance(g, 0.04)) {
    const [k, v] = pick(g, [
      ['x-http-method-override', 'DELETE'],
      ['content-encoding', 'gzip'],
      ['content-length', pick(g, ['-1', 'abc', '99999999999', '0', '1e3'])],
      ['x-forwarded-for', '127.0.0.1, 10.0.0.1'],
      ['cookie', '__proto__=1; a=' + 'b'.repeat(4000)],
      ['origin', 'https://evil.example'],
      ['x-graphql-csrf', '1'],
    ] as [string, string][]);
    headers[k] = v;
  }
  return { method, path: path.startsWith('/') ? path + (route.query ? queryString(g, s, route) : '') : `/${path}`, headers, body, label };
}

export { HOSTILE_STRINGS };
