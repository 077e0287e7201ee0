/**
 * `cli listen`: streams the workspace's events to the terminal over graphql-ws and, with --forward-to, POSTs each one
 * to a local URL signed the Standard Webhooks way with a secret printed at start (like `stripe listen`). On reconnect
 * it asks for what it missed with sinceSequence.
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
  const client = createClient({
    url: opts.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${opts.token}` },
    retryAttempts: Infinity,
    shouldRetry: () => true,
  });
  out(`Listening for events on ${opts.url} (Ctrl-C to stop)…`);
  try {
    await new Promise<void>((resolve, reject) => {
      const subscribe = () =>
        client.subscribe<{ invoiceEvents: any }>(
          { query: QUERY, variables: { since } },
          {
            next: async (msg) => {
              if (msg.errors?.length) return reject(new Error(msg.errors.map((e) => e.message).join('; ')));
              const e = msg.data!.invoiceEvents;
              since = e.sequence;
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
              if (opts.max && received >= opts.max) resolve();
            },
            error: (err) => reject(err instanceof Error ? err : new Error(JSON.stringify(err))),
            complete: () => subscribe(),
          },
        );
      const dispose = subscribe();
      opts.signal?.addEventListener('abort', () => {
        dispose();
        resolve();
      });
    });
  } finally {
    await client.dispose();
  }
  return { secret, received };
}
