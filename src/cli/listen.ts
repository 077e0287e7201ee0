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

/** Close codes after which connecting again cannot help (graphql-ws's own, and 4403: the key refused). */
const FINAL_CLOSE_CODES = new Set([4004, 4005, 4400, 4401, 4403, 4406, 4409, 4429, 4500]);
/** GraphQL error codes that pass: wait and subscribe again. */
const TRANSIENT_CODES = new Set(['RATE_LIMITED', 'TOO_MANY_REQUESTS', 'SERVICE_UNAVAILABLE']);
/** GraphQL error codes of a sequence the service cannot resume from. */
const SEQUENCE_CODES = new Set(['CATCH_UP_TOO_LARGE', 'EVENTS_NOT_RETAINED', 'VALIDATION_FAILED']);

export interface ListenOptions {
  url: string;
  token: string;
  forwardTo?: string;
  /** Replay the events after this sequence first (the last one a previous run printed), then the live ones. */
  since?: string;
  out?: (line: string) => void;
  /** Stop after this many events (tests). */
  max?: number;
  signal?: AbortSignal;
}

export async function listen(opts: ListenOptions): Promise<{ secret: string | null; received: number }> {
  const out = opts.out ?? ((l: string) => console.log(l));
  const secret = opts.forwardTo ? newWebhookSecret() : null;
  if (secret) out(`Forwarding events to ${opts.forwardTo} — signing secret: ${secret}`);
  let since: string | null = opts.since ?? null;
  let received = 0;
  let failures = 0;
  // Reconnecting is ours (retryAttempts: 0): graphql-ws's retry would send the subscription as first sent, and the
  // events of the gap would be lost; ours subscribes again from the last sequence received.
  const client = createClient({
    url: opts.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${opts.token}` },
    retryAttempts: 0,
    // The connection outlives the last-sequence query that ends just before the subscription starts.
    lazyCloseTimeout: 1000,
    on: { connected: () => (failures = 0) },
  });
  let said = false;
  let forwarding: Promise<void> = Promise.resolve();
  let unsubscribe = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
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
      /** The subscription, or "from now" (no sequence yet): the workspace's last sequence first, then from it. */
      const start = () => (since === null ? fromNow() : subscribe());
      /**
       * From the workspace's last sequence, read before saying "Listening": an event committed after that line is
       * printed, however late the service starts the subscription.
       */
      const fromNow = () => {
        let head: string | null = null;
        let answered = false;
        unsubscribe = client.subscribe<{ lastEventSequence: string }>(
          { query: '{ lastEventSequence }' },
          {
            next: (msg) => {
              if (msg.errors?.length) {
                answered = true;
                return refused(msg.errors);
              }
              head = msg.data?.lastEventSequence ?? null;
            },
            error: ended,
            complete: () => {
              if (answered || stopped) return;
              if (head === null) return again();
              since = head;
              out(`Listening for events on ${opts.url} after event #${head} (Ctrl-C to stop)…`);
              said = true;
              subscribe();
            },
          },
        );
      };
      /** A connection lost or not made (a close event, a network error), or the service's errors (refused). */
      const ended = (err: unknown) => {
        if (Array.isArray(err)) return refused(err);
        // The protocol's refusals (a key refused at connection: 4403; graphql-ws's own final codes) end it.
        const { code, reason } = err as { code?: unknown; reason?: unknown };
        if (typeof code === 'number' && FINAL_CLOSE_CODES.has(code)) return stop(new Error(`The service closed the connection: ${code} ${String(reason ?? '')}`.trim()));
        again();
      };
      const subscribe = () => {
        if (!said) out(`Listening for events on ${opts.url} after event #${since} (Ctrl-C to stop)…`);
        said = true;
        // The service's errors come as a result, then the end: the end is then theirs to deal with (refused).
        let answered = false;
        unsubscribe = client.subscribe<{ invoiceEvents: any }>(
          { query: QUERY, variables: { since } },
          {
            next: (msg) => {
              if (msg.errors?.length) {
                answered = true;
                return refused(msg.errors);
              }
              if (stopped || (opts.max && received >= opts.max)) return;
              const e = msg.data!.invoiceEvents;
              since = e.sequence;
              const n = ++received;
              // invoiceEvents says `paid` for invoice.paid, and other events of the invoice (shop_order.confirmed) whole.
              const type = e.type.includes('.') ? e.type : `invoice.${e.type}`;
              out(`${e.createdAt}  #${e.sequence}  ${type}  ${e.invoice.id}  ${e.invoice.customer.name}  ${e.invoice.amount}원  ${e.invoice.status}`);
              // Forwarded one after another, in the order received (a POST is not sent before the one before it ended).
              forwarding = forwarding.then(async () => {
                if (opts.forwardTo && secret) {
                  const body = JSON.stringify({ id: e.eventId, type, createdAt: e.createdAt, data: { invoice: e.invoice } });
                  const headers = signatureHeaders([secret], e.eventId, Math.floor(Date.now() / 1000), body);
                  try {
                    const r = await fetch(opts.forwardTo, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
                    out(`  → ${opts.forwardTo} ${r.status}`);
                  } catch (err) {
                    out(`  → ${opts.forwardTo} failed: ${(err as Error).message}`);
                  }
                }
                if (opts.max && n >= opts.max) stop();
              });
            },
            // Again in a while, from the last sequence received.
            error: ended,
            complete: () => {
              if (!answered) again();
            },
          },
        );
      };
      /**
       * The service answered with errors: a limit or an outage (RATE_LIMITED, SERVICE_UNAVAILABLE) is waited out; a
       * sequence it cannot resume from (CATCH_UP_TOO_LARGE, EVENTS_NOT_RETAINED, VALIDATION_FAILED on sinceSequence)
       * is said, and listening goes on from now; anything else (a key refused) ends listen.
       */
      const refused = (errors: readonly { message?: string; extensions?: { code?: unknown } }[]) => {
        const codes = errors.map((e) => String(e.extensions?.code ?? ''));
        if (codes.some((c) => TRANSIENT_CODES.has(c))) return again(`The service asks to wait (${codes.join(', ')})`);
        if (since !== null && codes.some((c) => SEQUENCE_CODES.has(c))) {
          out(`The events after #${since} cannot be caught up on (${codes.join(', ')}: ${errors.map((e) => e.message).join('; ')}); listening from now on. The events query pages through the ones missed.`);
          since = null;
          return fromNow();
        }
        stop(new Error(errors.map((e) => e.message).join('; ')));
      };
      const again = (why = 'Connection lost') => {
        if (stopped) return;
        clearTimeout(timer);
        const wait = Math.min(500 * 2 ** failures++, 15_000);
        out(`${why}; subscribing again in ${wait / 1000} s, ${since ? `after event #${since}` : 'from now'}…`);
        timer = setTimeout(start, wait);
      };
      start();
      opts.signal?.addEventListener('abort', () => stop());
    });
  } finally {
    await client.dispose();
  }
  return { secret, received };
}
