/**
 * The `Idempotency-Key` header (REST POSTs, GraphQL mutations), the HTTP side of src/domain/idempotency.ts: runs a
 * request at most once per key and credential and replays its answer. How GraphQL requests are keyed: src/http/README.md.
 */
import { createHash } from 'node:crypto';
import { getOperationAST, parse } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { Principal } from '../domain/auth/principal.ts';
import type { Deps } from '../domain/deps.ts';
import { DomainError, isDomainError } from '../domain/errors.ts';
import { requestFingerprint, storesAnswersFor, withIdempotency } from '../domain/idempotency.ts';
import { readTextBody } from '../../rest-compat/shared/http.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * What identifies a request for its Idempotency-Key (fingerprinted with its method and path), or null when keys do not
 * apply to it (it runs as is). May refuse it (a DomainError). `request` is a fresh copy of the buffered request.
 */
export type IdempotencyClassifier = (request: Request, bodyText: string) => Promise<string | null>;

/** REST: the body as sent. */
const byBody: IdempotencyClassifier = async (_request, bodyText) => bodyText;

/** Whether GraphQL parameters name a mutation (the operation Yoga would pick: getOperationAST, as graphql-js does). */
export function isMutation(params: GraphQLParams): boolean {
  if (typeof params.query !== 'string') return false;
  try {
    const op = getOperationAST(parse(params.query), typeof params.operationName === 'string' ? params.operationName : undefined);
    return op?.operation === 'mutation';
  } catch {
    // A document that does not parse: Yoga refuses it the same way, nothing runs.
    return false;
  }
}

/**
 * GraphQL parameters as one canonical text: JSON with object keys sorted and absent values left out, a file (a
 * multipart upload mapped into the variables) by its name, type, size and content hash. Two requests with the same
 * text run the same. Written without recursion: variables may nest as deep as a 1 MiB body allows.
 */
export async function canonicalParams(params: unknown): Promise<string> {
  const files = new Map<Blob, unknown>();
  for (const blob of blobsIn(params)) {
    const sha256 = createHash('sha256').update(new Uint8Array(await blob.arrayBuffer())).digest('hex');
    files.set(blob, { $file: { name: (blob as File).name ?? null, type: blob.type, size: blob.size, sha256 } });
  }
  const out: string[] = [];
  // What is left to write, last first: a value, or text as it stands.
  const todo: ({ text: string } | { value: unknown })[] = [{ value: params }];
  for (let next = todo.pop(); next; next = todo.pop()) {
    if ('text' in next) {
      out.push(next.text);
      continue;
    }
    const v = next.value instanceof Blob ? files.get(next.value) : next.value;
    if (Array.isArray(v)) {
      todo.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) todo.push({ value: v[i] ?? null }, ...(i > 0 ? [{ text: ',' }] : []));
      todo.push({ text: '[' });
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort();
      todo.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i--) todo.push({ value: (v as Record<string, unknown>)[keys[i]!] }, { text: `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:` });
      todo.push({ text: '{' });
    } else {
      out.push(JSON.stringify(v ?? null));
    }
  }
  return out.join('');
}

/** The files within `root`, found without recursion. */
function blobsIn(root: unknown): Blob[] {
  const blobs: Blob[] = [];
  for (const stack = [root]; stack.length; ) {
    const v = stack.pop();
    if (v instanceof Blob) blobs.push(v);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) stack.push(x);
  }
  return blobs;
}

/** Yoga's own request parsing (the YogaServer's `parseRequest`: its parsers and their checks, CSRF, batching). */
export type GraphQLRequestParser = (request: Request, serverContext: object) => unknown;

/**
 * How a POST /graphql request stands for its Idempotency-Key, decided on the parameters Yoga parses from it:
 * `params` their canonical text (null when Yoga refuses the request before running anything: an unsupported content
 * type, an unreadable body, a missing CSRF header, a batch), `mutation` whether they name a mutation.
 */
export async function classifyGraphQLRequest(parseRequest: GraphQLRequestParser, request: Request): Promise<{ params: string | null; mutation: boolean }> {
  let parsed: { response?: unknown; requestParserResult?: GraphQLParams | GraphQLParams[] };
  try {
    parsed = (await parseRequest(request, {})) as typeof parsed;
  } catch {
    return { params: null, mutation: false };
  }
  const result = parsed.requestParserResult;
  if (parsed.response || !result || Array.isArray(result)) return { params: null, mutation: false };
  return { params: await canonicalParams(result), mutation: isMutation(result) };
}

/**
 * The server context of a GraphQL request whose Idempotency-Key was decided: the canonical parameters it was decided
 * on (null: Yoga refused the request when it was classified, so nothing may run).
 */
export interface IdempotencyGuardContext {
  idempotencyParams?: string | null;
}

/**
 * A Yoga plugin: a request whose Idempotency-Key was decided on its parameters runs only those parameters. Should a
 * parser or a plugin (persisted operations, say) make Yoga execute something else, the request is refused before it
 * runs rather than run past its key.
 */
export function useIdempotencyGuard(): Plugin<Record<string, unknown>, IdempotencyGuardContext> {
  return {
    onParams({ context, paramsHandler, setParamsHandler }) {
      const expected = context.idempotencyParams;
      if (expected === undefined) return;
      setParamsHandler(async (payload) => {
        if (expected === null || (await canonicalParams(payload.params)) !== expected) {
          throw new DomainError('BAD_REQUEST', { message: 'What this request would execute is not what its Idempotency-Key was decided on: it was not run.' });
        }
        return paramsHandler(payload);
      });
    },
  };
}

/**
 * The classifier of POST /graphql requests (a mutation's parameters identify it; anything else runs as is), and the
 * server context its request then runs with, for useIdempotencyGuard.
 */
export function graphQLIdempotency(parseRequest: GraphQLRequestParser): { classify: IdempotencyClassifier; guard(): IdempotencyGuardContext } {
  let decided: string | null | undefined;
  return {
    async classify(request) {
      const c = await classifyGraphQLRequest(parseRequest, request);
      decided = c.params;
      return c.mutation ? c.params : null;
    },
    guard: () => (decided === undefined ? {} : { idempotencyParams: decided }),
  };
}

/**
 * Runs `handle` under the request's Idempotency-Key when there is one and a principal to scope it to (one that may
 * write: a read-only key's call runs as is, and its write is refused); otherwise runs it as is. `classify` decides
 * whether keys apply to the request and what identifies it (by default: the body as sent).
 */
export async function idempotent(
  deps: Deps,
  request: Request,
  principal: Principal | null,
  maxBodyBytes: number,
  handle: (request: Request) => Promise<Response>,
  renderError: (e: DomainError) => Response,
  classify: IdempotencyClassifier = byBody,
): Promise<Response> {
  try {
    return await run();
  } catch (e) {
    if (isDomainError(e)) return renderError(e);
    throw e;
  }
  async function run(): Promise<Response> {
    const key = request.headers.get(IDEMPOTENCY_HEADER);
    if (!key || request.method !== 'POST' || !principal || !storesAnswersFor(principal)) return handle(request);
    const bodyText = (await readTextBody(request, maxBodyBytes)) ?? '';
    const rebuilt = () => new Request(request.url, { method: request.method, headers: request.headers, body: bodyText || undefined });
    const identity = await classify(rebuilt(), bodyText);
    if (identity === null) return handle(rebuilt());
    const url = new URL(request.url);
    let contentType = 'application/json; charset=utf-8';
    const out = await withIdempotency(deps, { principal, key, fingerprint: requestFingerprint('POST', url.pathname + url.search, identity) }, async () => {
      const res = await handle(rebuilt());
      contentType = res.headers.get('content-type') ?? contentType;
      return { status: res.status, body: await res.text() };
    });
    return new Response(out.body, {
      status: out.status,
      headers: { 'content-type': contentType, 'idempotency-key': key, ...(out.replayed ? { 'idempotent-replayed': 'true' } : {}) },
    });
  }
}
