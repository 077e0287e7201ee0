/**
 * The `Idempotency-Key` header (every POST of REST v1/v2, and GraphQL mutations): the HTTP side of
 * src/domain/idempotency.ts. It buffers the body to fingerprint the request, runs the handler at most once per key and
 * credential, and replays the stored response with `Idempotent-Replayed: true` to that credential only. The caller
 * resolves the principal for this request first (a credential no longer valid has none: its call runs, and is refused,
 * like any call without the header).
 */
import { parse, type OperationDefinitionNode } from 'graphql';
import type { Principal } from '../domain/auth/principal.ts';
import type { Deps } from '../domain/deps.ts';
import { isDomainError, type DomainError } from '../domain/errors.ts';
import { requestFingerprint, storesAnswersFor, withIdempotency } from '../domain/idempotency.ts';
import { readTextBody } from '../../rest-compat/shared/http.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** Whether a GraphQL request body holds a mutation (only mutations are made idempotent). */
export function isGraphQLMutation(bodyText: string): boolean {
  try {
    const body = JSON.parse(bodyText) as { query?: unknown; operationName?: unknown };
    if (typeof body.query !== 'string') return false;
    const ops = parse(body.query).definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    const op = typeof body.operationName === 'string' ? ops.find((o) => o.name?.value === body.operationName) : ops[0];
    return op?.operation === 'mutation';
  } catch {
    return false;
  }
}

/**
 * Runs `handle` under the request's Idempotency-Key when there is one and a principal to scope it to (one that may
 * write: a read-only key's call runs as is, and its write is refused); otherwise runs it as is. `applies` decides from
 * the buffered body whether this request is one that keys apply to.
 */
export async function idempotent(
  deps: Deps,
  request: Request,
  principal: Principal | null,
  maxBodyBytes: number,
  handle: (request: Request) => Promise<Response>,
  renderError: (e: DomainError) => Response,
  applies: (bodyText: string) => boolean = () => true,
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
  const rebuilt = new Request(request.url, { method: request.method, headers: request.headers, body: bodyText || undefined });
  if (!applies(bodyText)) return handle(rebuilt);
  const url = new URL(request.url);
  let contentType = 'application/json; charset=utf-8';
  const out = await withIdempotency(deps, { principal, key, fingerprint: requestFingerprint('POST', url.pathname + url.search, bodyText) }, async () => {
    const res = await handle(rebuilt);
    contentType = res.headers.get('content-type') ?? contentType;
    return { status: res.status, body: await res.text() };
  });
  return new Response(out.body, {
    status: out.status,
    headers: { 'content-type': contentType, 'idempotency-key': key, ...(out.replayed ? { 'idempotent-replayed': 'true' } : {}) },
  });
  }
}
