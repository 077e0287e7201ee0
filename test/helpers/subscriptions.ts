/** Subscription clients for tests: graphql-ws over a real WebSocket, and SSE over fetch. */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface Collected<T = any> {
  items: T[];
  errors: unknown[];
  waitFor(n: number, timeoutMs?: number): Promise<T[]>;
  close(): void;
}

function collector<T>(close: () => void): Collected<T> & { push(x: T): void; fail(e: unknown): void } {
  const items: T[] = [];
  const errors: unknown[] = [];
  let waiters: { n: number; resolve: (v: T[]) => void }[] = [];
  return {
    items,
    errors,
    push(x) {
      items.push(x);
      waiters = waiters.filter((w) => (items.length >= w.n ? (w.resolve(items.slice()), false) : true));
    },
    fail(e) {
      errors.push(e);
    },
    waitFor(n, timeoutMs = 10_000) {
      if (items.length >= n) return Promise.resolve(items.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`got ${items.length} of ${n}: ${JSON.stringify(items)} errors: ${JSON.stringify(errors)}`)), timeoutMs);
        waiters.push({ n, resolve: (v) => (clearTimeout(timer), resolve(v)) });
      });
    },
    close,
  };
}

export function wsClient(baseUrl: string, token?: string): Client {
  return createClient({
    url: baseUrl.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    // A closed connection is expected in some tests (shutdown); it surfaces through the subscription's error.
    onNonLazyError: () => {},
  });
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
  // Give the server a moment to register the subscription (graphql-ws has no per-subscription ack).
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
  if (!res.ok || !res.body) throw new Error(`SSE failed: ${res.status} ${await res.text()}`);
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
