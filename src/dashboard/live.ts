/**
 * Live updates (README, "The dashboard"): the workspace's events over GraphQL over WebSocket, authenticated by the
 * session cookie of the page's own origin. After a dropped connection a subscription starts again from the last
 * sequence received (`sinceSequence`), so no change made meanwhile is missed.
 */
import { print } from '@0no-co/graphql.web';
import type { TadaDocumentNode } from 'gql.tada';
import { createClient, type Client } from 'graphql-ws';
import { useEffect, useRef } from 'preact/hooks';
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

/** The workspace's last event sequence: what a subscription "from now" starts after. */
const LastEventSequenceQuery = graphql(`
  query DashboardLastEventSequence {
    lastEventSequence
  }
`);

/** How long to wait before subscribing again after the subscription ended: doubling from the first to the last. */
const RESUBSCRIBE_MS = [1000, 15_000] as const;

/**
 * Follows a subscription whose one field is an event with a `sequence` and whose one variable is `$since`: calls
 * `onEvent` for every event from now on, across reconnects, each time resuming after the last sequence received;
 * `onReady` each time the page should read itself again. Returns the stop.
 *
 * "From now" is from a sequence, never from whenever the service happens to start the subscription: the workspace's
 * last sequence is read first (`lastEventSequence`), then `onReady` (the page reads itself, after that sequence), then
 * the subscription from that sequence. An event committed between the page's read and the subscription's start is
 * delivered, not lost.
 *
 * The reconnecting is ours, not graphql-ws's (`retryAttempts: 0`): its retry sends the subscription again as first
 * sent, so the events of the gap would be lost; ours subscribes again with `$since`, and the service sends them first.
 */
export function followEvents<F extends string, E extends { sequence: string }>(
  document: TadaDocumentNode<{ [K in F]: E }, { since?: string | null | undefined }>,
  field: F,
  onEvent: (e: E) => void,
  onReady?: () => void,
): () => void {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  let failures = 0;
  let since: string | null = null;
  const ws: Client = createClient({
    url,
    lazy: true,
    // The connection outlives the last-sequence query that ends just before the subscription starts.
    lazyCloseTimeout: 1000,
    retryAttempts: 0,
    // Connected again, resuming from a sequence: the gap's events come first; the page reads itself as well.
    on: { connected: () => since !== null && onReady?.() },
  });
  const query = print(document);
  const headQuery = print(LastEventSequenceQuery);
  let stopped = false;
  let unsubscribe = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  let startedAt = 0;
  const start = () => {
    startedAt = Date.now();
    if (since === null) readHead();
    else subscribe();
  };
  /** From now: the last sequence, then the page's read, then the subscription from that sequence. */
  const readHead = () => {
    let head: string | null = null;
    unsubscribe = ws.subscribe<ResultOf<typeof LastEventSequenceQuery>>(
      { query: headQuery },
      {
        next: (r) => (head = r.data?.lastEventSequence ?? null),
        error: () => again(),
        complete: () => {
          if (stopped) return;
          if (head === null) return again();
          since = head;
          onReady?.();
          subscribe();
        },
      },
    );
  };
  const subscribe = () => {
    let refused = false;
    unsubscribe = ws.subscribe<{ [K in F]: E }>(
      { query, variables: { since } },
      {
        next: (r) => {
          const e = r.data?.[field];
          if (!e) {
            refused ||= !!r.errors?.length;
            return;
          }
          since = e.sequence;
          onEvent(e);
        },
        // Ended (the connection lost, the service stopping, a refusal): again in a while, from the last sequence received.
        error: (err) => again(refused || Array.isArray(err)),
        complete: () => again(refused),
      },
    );
  };
  /**
   * `refused`: the service answered the subscription with errors. The sequence may be the cause (more events missed
   * than a subscription catches up on, CATCH_UP_TOO_LARGE; or no longer known, after a restore): from now at once
   * (the last sequence read again, and the page with it) rather than wait for the events it missed.
   */
  const again = (refused = false) => {
    if (stopped) return;
    clearTimeout(timer);
    if (refused && since !== null) {
      since = null;
      start();
      return;
    }
    // A subscription that lasted is a new start; one refused at once (or a service still down) waits longer each time.
    if (Date.now() - startedAt > RESUBSCRIBE_MS[1]) failures = 0;
    timer = setTimeout(start, Math.min(RESUBSCRIBE_MS[0] * 2 ** failures++, RESUBSCRIBE_MS[1]));
  };
  start();
  return () => {
    stopped = true;
    clearTimeout(timer);
    unsubscribe();
    void ws.dispose();
  };
}

/** Every invoice event of the workspace from now on (created, paid, canceled...), across reconnects. */
export function followInvoiceEvents(onEvent: (e: InvoiceEvent) => void, onReady?: () => void): () => void {
  return followEvents(InvoiceEventsSubscription, 'invoiceEvents', onEvent, onReady);
}

/**
 * Keeps a query's answer current: `follow` (followInvoiceEvents, or a filter of it) calls back on each change and
 * each time its subscription is (again) in place, and the query is read again. A read asked for while the query is in
 * flight (the subscription connecting during the first read, on every page load) waits for that answer instead of
 * aborting it: the first rows show as soon as the first read answers.
 */
export function useRereadOn(follow: (again: () => void) => () => void, refetch: (opts: { requestPolicy: 'network-only' }) => void, fetching: boolean, deps: unknown[] = []): void {
  const state = useRef({ refetch, fetching, pending: false });
  state.current.refetch = refetch;
  state.current.fetching = fetching;
  useEffect(() => {
    if (fetching || !state.current.pending) return;
    state.current.pending = false;
    refetch({ requestPolicy: 'network-only' });
  }, [fetching]);
  useEffect(
    () =>
      follow(() => {
        if (state.current.fetching) state.current.pending = true;
        else state.current.refetch({ requestPolicy: 'network-only' });
      }),
    deps,
  );
}
