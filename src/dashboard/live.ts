/**
 * Live updates (README, "The dashboard"): the workspace's invoice events over GraphQL over WebSocket, authenticated by
 * the session cookie of the page's own origin. After a dropped connection the subscription starts again from the last
 * sequence received (`sinceSequence`), so no change made meanwhile is missed.
 */
import { print } from '@0no-co/graphql.web';
import { createClient, type Client } from 'graphql-ws';
import { graphql, type ResultOf } from './graphql.ts';

export const InvoiceEventsSubscription = graphql(`
  subscription DashboardInvoiceEvents($since: String) {
    invoiceEvents(sinceSequence: $since) {
      sequence
      type
      invoice { id status }
    }
  }
`);

export type InvoiceEvent = ResultOf<typeof InvoiceEventsSubscription>['invoiceEvents'];

/** How long to wait before subscribing again after the connection dropped. */
const RESUBSCRIBE_MS = 1000;

/**
 * Calls `onEvent` for every invoice event from now on, across reconnects; returns the function that stops it.
 * `onReady` is called each time the subscription is (again) in place.
 */
export function followInvoiceEvents(onEvent: (e: InvoiceEvent) => void, onReady?: () => void): () => void {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const ws: Client = createClient({ url, lazy: true, retryAttempts: Number.POSITIVE_INFINITY, on: { connected: () => onReady?.() } });
  let since: string | null = null;
  let stopped = false;
  let unsubscribe = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const subscribe = () => {
    unsubscribe = ws.subscribe<ResultOf<typeof InvoiceEventsSubscription>>(
      { query: print(InvoiceEventsSubscription), variables: { since } },
      {
        next: (r) => {
          const e = r.data?.invoiceEvents;
          if (!e) return;
          since = e.sequence;
          onEvent(e);
        },
        // Ended (the service stopping, a refusal): again in a moment, from the last sequence received.
        error: () => again(),
        complete: () => again(),
      },
    );
  };
  const again = () => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(subscribe, RESUBSCRIBE_MS);
  };
  subscribe();
  return () => {
    stopped = true;
    clearTimeout(timer);
    unsubscribe();
    void ws.dispose();
  };
}
