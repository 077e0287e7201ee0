/**
 * `cli listen`: streams the workspace's events to the terminal over graphql-ws and, with --forward-to, POSTs each one
 * to a local URL signed the Standard Webhooks way with a secret printed at start (like `stripe listen`). After a lost
 * connection it subscribes again with sinceSequence, so the events it missed come first.
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { newWebhookSecret } from '../domain/secrets.ts';
import { signatureHeaders } from '../domain/webhooks/signing.ts';

const QUERY = `subscription($since: String) { invoiceEvents(sinceSequence: $since) { eventId sequence type createdAt invoice { id number status amount customer { name } paidAt } } }`;

export interface ListenOptions {
  url: string;
  token: string;
  forwardTo?: string;
  out?: (line: string) => void;
  /** Stop after this many events (tests). */
  max?: number;
  signal?: AbortSignal;
}

export async function listen(opts: ListenOptions): Promise<{ secret: string | null; received: number }> {
  const out = opts.out ?? ((l: string) => console.log(l));
  const secret = opts.forwardTo ? newWebhookSecret() : null;
  if (secret) out(`Forwarding events to ${opts.forwardTo} — signing secret: ${secret}`);
  let since: string | null = null;
  let received = 0;
  // Reconnecting is ours (retryAttempts: 0): graphql-ws's retry would send the subscription as first sent, and the
  // events of the gap would be lost; ours subscribes again from the last sequence received.
  const client = createClient({
    url: opts.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${opts.token}` },
    retryAttempts: 0,
  });
  out(`Listening for events on ${opts.url} (Ctrl-C to stop)…`);
  let unsubscribe = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      let stopped = false;
      const stop = (error?: Error) => {
        stopped = true;
        clearTimeout(timer);
        unsubscribe();
        if (error) reject(error);
        else resolve();
      };
      const subscribe = () => {
        unsubscribe = client.subscribe<{ invoiceEvents: any }>(
          { query: QUERY, variables: { since } },
          {
            next: async (msg) => {
              if (msg.errors?.length) return stop(new Error(msg.errors.map((e) => e.message).join('; ')));
              const e = msg.data!.invoiceEvents;
              since = e.sequence;
              failures = 0;
              received++;
              out(`${e.createdAt}  #${e.sequence}  invoice.${e.type}  ${e.invoice.id}  ${e.invoice.customer.name}  ${e.invoice.amount}원  ${e.invoice.status}`);
              if (opts.forwardTo && secret) {
                const body = JSON.stringify({ id: e.eventId, type: `invoice.${e.type}`, createdAt: e.createdAt, data: { invoice: e.invoice } });
                const headers = signatureHeaders([secret], e.eventId, Math.floor(Date.now() / 1000), body);
                try {
                  const r = await fetch(opts.forwardTo, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
                  out(`  → ${opts.forwardTo} ${r.status}`);
                } catch (err) {
                  out(`  → ${opts.forwardTo} failed: ${(err as Error).message}`);
                }
              }
              if (opts.max && received >= opts.max) stop();
            },
            // The service refused the subscription (its GraphQL errors): that is final. A connection lost or not made
            // (a close event, a network error): again in a while, from the last sequence received.
            error: (err) => {
              if (Array.isArray(err)) return stop(new Error(err.map((e: { message?: string }) => e.message).join('; ')));
              // 4400-4499: the protocol's refusals (a key refused at connection: 4403), as final as a GraphQL error.
              const { code, reason } = err as { code?: unknown; reason?: unknown };
              if (typeof code === 'number' && code >= 4400 && code < 4500) return stop(new Error(`The service closed the connection: ${code} ${String(reason ?? '')}`.trim()));
              again();
            },
            complete: () => again(),
          },
        );
      };
      const again = () => {
        if (stopped) return;
        clearTimeout(timer);
        const wait = Math.min(500 * 2 ** failures++, 15_000);
        out(`Connection lost; subscribing again in ${wait / 1000} s, ${since ? `after event #${since}` : 'from now'}…`);
        timer = setTimeout(subscribe, wait);
      };
      subscribe();
      opts.signal?.addEventListener('abort', () => stop());
    });
  } finally {
    await client.dispose();
  }
  return { secret, received };
}
