/**
 * Subscription clients for tests: graphql-ws over a real WebSocket, and SSE over fetch; and what a subscriber should
 * receive (the stored events) with a way to produce many of them.
 */
import { lastEventSequence as workspaceLastEventSequence } from '../../src/domain/events/catch-up.ts';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { SqlExecutor } from '../../src/db/database.ts';
import { resolvePrincipal } from '../../src/domain/auth/principal.ts';
import { inRawTransaction } from '../../src/domain/deps.ts';
import { recordEvents } from '../../src/domain/events/outbox.ts';
import { createInvoice, invoiceEvent, markInvoicePaid } from '../../src/domain/invoices/invoices.ts';
import type { App } from '../../src/http/app.ts';

export interface Collected<T = any> {
  items: T[];
  errors: unknown[];
  /** Resolves with the items once `n` have arrived; rejects after `timeoutMs`, showing what did. */
  waitFor(n: number, timeoutMs?: number): Promise<T[]>;
  /** Resolves with the errors once `n` have arrived (a refused subscription's error ends it: nothing follows). */
  waitForErrors(n?: number, timeoutMs?: number): Promise<unknown[]>;
  close(): void;
}

function collector<T>(close: () => void): Collected<T> & { push(x: T): void; fail(e: unknown): void } {
  const items: T[] = [];
  const errors: unknown[] = [];
  let waiters: { ready: () => boolean; resolve: () => void }[] = [];
  const settle = () => (waiters = waiters.filter((w) => (w.ready() ? (w.resolve(), false) : true)));
  const wait = <R>(ready: () => boolean, result: () => R, what: string, timeoutMs: number): Promise<R> => {
    if (ready()) return Promise.resolve(result());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: got ${JSON.stringify(items)} errors: ${JSON.stringify(errors)}`)), timeoutMs);
      waiters.push({ ready, resolve: () => (clearTimeout(timer), resolve(result())) });
    });
  };
  return {
    items,
    errors,
    push(x) {
      items.push(x);
      settle();
    },
    fail(e) {
      errors.push(e);
      settle();
    },
    waitFor: (n, timeoutMs = 10_000) => wait(() => items.length >= n, () => items.slice(), `waiting for ${n} items`, timeoutMs),
    waitForErrors: (n = 1, timeoutMs = 10_000) => wait(() => errors.length >= n, () => errors.slice(), `waiting for ${n} errors`, timeoutMs),
    close,
  };
}

/** Per client: settles once the server acknowledged the connection, or refused or closed it. */
const connectionSettled = new WeakMap<Client, Promise<void>>();

export function wsClient(baseUrl: string, token?: string): Client {
  let settle = () => {};
  const settled = new Promise<void>((r) => (settle = r));
  const client = createClient({
    url: baseUrl.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    // A closed connection is expected in some tests (shutdown); it surfaces through the subscription's error.
    onNonLazyError: () => {},
    on: { connected: () => settle(), closed: () => settle(), error: () => settle() },
  });
  connectionSettled.set(client, settled);
  return client;
}

/** Subscribes over graphql-ws and collects `data` payloads; resolves once the server acknowledged the subscription. */
export async function subscribeWs<T = any>(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<Collected<T>> {
  let dispose = () => {};
  const c = collector<T>(() => dispose());
  dispose = client.subscribe<T>({ query, variables }, {
    next: (v) => (v.errors ? c.fail(v.errors) : c.push(v.data as T)),
    error: (e) => c.fail(e),
    complete: () => {},
  });
  // Once the connection is acknowledged (a loaded machine takes longer than the pause), give the server a moment to
  // register the subscription: graphql-ws has no per-subscription ack.
  await connectionSettled.get(client);
  await new Promise((r) => setTimeout(r, 150));
  return c;
}

/** Subscribes over SSE (Yoga's built-in) with an Authorization header. */
export async function subscribeSse<T = any>(baseUrl: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<Collected<T>> {
  const ac = new AbortController();
  const c = collector<T>(() => ac.abort());
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
    signal: ac.signal,
  });
  // A refused subscription is answered with the error's status and the error as an event: collected like the others.
  const stream = res.headers.get('content-type')?.startsWith('text/event-stream');
  if ((!res.ok && !stream) || !res.body) throw new Error(`SSE failed: ${res.status} ${await res.text()}`);
  (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const chunk = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = chunk.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
          if (!data) continue;
          const msg = JSON.parse(data);
          if (msg.errors) c.fail(msg.errors);
          else if (msg.data) c.push(msg.data);
        }
      }
    } catch {
      /* aborted */
    }
  })();
  await new Promise((r) => setTimeout(r, 150));
  return c;
}

/** The stored events of a workspace after `since`, oldest first: what a subscriber catching up from it must receive. */
export async function storedEventsAfter(
  sql: Pick<SqlExecutor, 'query'>,
  workspaceId: string,
  since: string,
): Promise<{ sequence: string; type: string; invoiceId: string | null }[]> {
  const rows = await sql.query<{ sequence: string | bigint; type: string; invoiceId: string | null }>(
    `SELECT sequence, type, "invoiceId" FROM "Event" WHERE "workspaceId" = $1 AND sequence > $2::bigint ORDER BY sequence`,
    [workspaceId, since],
  );
  return rows.map((r) => ({ sequence: String(r.sequence), type: r.type, invoiceId: r.invoiceId }));
}

/** A stored event as invoiceEvents delivers it (`sequence type invoice { id }`: the type without its `invoice.`). */
export function asDelivered(e: { sequence: string; type: string; invoiceId: string | null }) {
  return { sequence: e.sequence, type: e.type.replace(/^invoice\./, ''), invoiceId: e.invoiceId };
}

/** invoiceEvents messages (`sequence type invoice { id }`) in the same shape. */
export function deliveredEvents(items: { invoiceEvents: { sequence: string; type: string; invoice: { id: string } } }[]) {
  return items.map((x) => ({ sequence: x.invoiceEvents.sequence, type: x.invoiceEvents.type, invoiceId: x.invoiceEvents.invoice.id }));
}

/** The workspace's last event sequence ("0" before its first event). */
export async function lastEventSequence(sql: Pick<SqlExecutor, 'query'>, workspaceId: string): Promise<string> {
  return String(await workspaceLastEventSequence(sql, workspaceId));
}

/**
 * `n` invoices created and marked paid through the app's own operations (2n events: invoice.created, invoice.paid),
 * a few at a time, without n HTTP requests against the rate limit. Returns the ids.
 */
export async function createPaidInvoices(app: App, apiKey: string, prefix: string, n: number, concurrency = 4): Promise<string[]> {
  const p = await resolvePrincipal(app.deps, apiKey);
  const ids: string[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) {
        const inv = await createInvoice(app.deps, p, { bankAccountIds: [], customer: { name: `${prefix}${i}` }, amount: 1_000 + i });
        await markInvoicePaid(app.deps, p, inv.id);
        ids[i] = inv.id;
      }
    }),
  );
  return ids;
}

/**
 * `n` invoice.updated events of these invoices (in turn), written in one statement by the outbox's own writer (the
 * workspace's next sequence numbers) and dispatched like any other: a backlog of thousands of missed events in well
 * under a second, where paying thousands of invoices one by one takes minutes on the embedded database.
 */
export async function recordInvoiceUpdates(app: App, invoiceIds: string[], n: number): Promise<void> {
  const invoices = await app.db.prisma.invoice.findMany({ where: { id: { in: invoiceIds } }, orderBy: { number: 'asc' } });
  const now = new Date();
  await inRawTransaction(app.deps, (q) => recordEvents(q, invoices[0]!.workspaceId, Array.from({ length: n }, (_, i) => invoiceEvent('invoice.updated', invoices[i % invoices.length]!, now))));
}
