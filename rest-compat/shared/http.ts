/** Shared HTTP plumbing of the REST faces: JSON responses, bounded body reading, the router of a route table. */
import { Response as ServerResponse } from '@whatwg-node/server';
import { z } from 'zod';
import { DomainError } from '../../src/domain/errors.ts';
import { fail, onWire } from '../../src/domain/request-schema.ts';

/** What every face adds to a 503 SERVICE_UNAVAILABLE (the database cannot be reached): when to retry. */
export const RETRY_AFTER_UNAVAILABLE: Readonly<Record<string, string>> = { 'retry-after': '5' };

/**
 * A JSON response. It is the server adapter's own Response class (the one Yoga answers with too): the adapter writes
 * its text to the socket in one piece, with its Content-Length, where a global (undici) Response's body would be
 * pumped through a web stream chunk by chunk (measured on POST /v1/invoices by `npm run bench`).
 */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new ServerResponse(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  }) as Response;
}

/**
 * Reads a JSON body of at most `maxBytes`: an absent or empty body is `undefined`; unreadable JSON or invalid UTF-8 is
 * BAD_REQUEST; an oversized body is PAYLOAD_TOO_LARGE.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const text = await readTextBody(request, maxBytes);
  if (text === null || text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError('BAD_REQUEST', { message: 'The request body is not valid JSON.' });
  }
}

/** Reads the body as UTF-8 text (null when there is none), refusing more than `maxBytes`. */
export async function readTextBody(request: Request, maxBytes: number): Promise<string | null> {
  const declaredHeader = request.headers.get('content-length');
  const declared = Number(declaredHeader ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw new DomainError('PAYLOAD_TOO_LARGE');
  let bytes: Uint8Array;
  if (declaredHeader !== null && Number.isFinite(declared)) {
    // A declared length within the limit (Node's HTTP parser delivers no more than that): read in one piece, without
    // the web-stream plumbing, and still checked against the limit.
    bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw new DomainError('PAYLOAD_TOO_LARGE');
  } else {
    // No declared length (chunked): read chunk by chunk and stop as soon as the limit is passed.
    if (!request.body) return null;
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new DomainError('PAYLOAD_TOO_LARGE');
      }
      chunks.push(value);
    }
    bytes = Buffer.concat(chunks);
  }
  if (bytes.byteLength === 0) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError('BAD_REQUEST', { message: 'The request body is not valid UTF-8.' });
  }
}

export type Params = Record<string, string>;

/** A face's router over its table: OpenAPI path templates (`/v1/invoices/{id}`); 404 for unknown paths, 405 for known paths with another method. */
export class RouteTable<R extends { method: string; path: string }> {
  private readonly compiled: { route: R; method: string; regex: RegExp; keys: string[] }[];

  constructor(routes: readonly R[]) {
    this.compiled = routes.map((route) => {
      const keys: string[] = [];
      const regex = new RegExp('^' + route.path.replace(/\{([a-zA-Z]+)\}/g, (_m, k: string) => (keys.push(k), '([^/]+)')) + '/?$');
      return { route, method: route.method.toUpperCase(), regex, keys };
    });
  }

  match(method: string, path: string): { route: R; params: Params } | 'METHOD_NOT_ALLOWED' | null {
    let pathMatched = false;
    for (const r of this.compiled) {
      const m = r.regex.exec(path);
      if (!m) continue;
      pathMatched = true;
      if (r.method !== method) continue;
      const params: Params = {};
      r.keys.forEach((k, i) => {
        try {
          params[k] = decodeURIComponent(m[i + 1]);
        } catch {
          params[k] = m[i + 1];
        }
      });
      return { route: r.route, params };
    }
    return pathMatched ? 'METHOD_NOT_ALLOWED' : null;
  }

  /** Each route as `POST /v1/invoices/:id`'s parts. */
  list(): { method: string; pattern: string }[] {
    return this.compiled.map((r) => ({ method: r.method, pattern: r.route.path.replace(/\{(\w+)\}/g, ':$1') }));
  }
}

/** A query-string boolean: `true` or `false` (a boolean on the wire); anything else is BAD_REQUEST. */
export const queryBooleanSchema = onWire(z.enum(['true', 'false'], { error: fail('BAD_REQUEST') }), { type: 'boolean' });

/** Parses a query-string boolean: `true`/`false` (absent = undefined); anything else is BAD_REQUEST. */
export function queryBoolean(url: URL, name: string): boolean | undefined {
  const v = url.searchParams.get(name);
  if (v === null) return undefined;
  if (!queryBooleanSchema.safeParse(v).success) throw new DomainError('BAD_REQUEST', { message: `${name} must be true or false.`, path: [name] });
  return v === 'true';
}
