/**
 * Deposits as they are stored (the transactionReceived subscription over graphql-ws, authenticated by the page's
 * session cookie): every new deposit, matched or not, which the invoice events do not announce when it paid nothing.
 * After a dropped connection it subscribes again from the last sequence received (`sinceSequence`): none is missed.
 */
import { print } from '@0no-co/graphql.web';
import { createClient } from 'graphql-ws';
import { graphql, type ResultOf } from '../../graphql.ts';

const DepositsReceivedSubscription = graphql(`
  subscription DashboardDepositsReceived($since: String) {
    transactionReceived(sinceSequence: $since) {
      sequence
      transaction { id }
    }
  }
`);

type Received = ResultOf<typeof DepositsReceivedSubscription>['transactionReceived'];

/** How long to wait before subscribing again after the subscription ended. */
const RESUBSCRIBE_MS = 1000;

/**
 * Calls `onDeposit` for every deposit stored from now on, across reconnects; `onReady` each time the connection is (again)
 * in place (what arrived meanwhile is delivered by the catch-up, but a list may read itself again). Returns the stop.
 */
export function followDepositsReceived(onDeposit: (e: Received) => void, onReady?: () => void): () => void {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const ws = createClient({ url, lazy: true, retryAttempts: Number.POSITIVE_INFINITY, on: { connected: () => onReady?.() } });
  let since: string | null = null;
  let stopped = false;
  let unsubscribe = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const subscribe = () => {
    unsubscribe = ws.subscribe<ResultOf<typeof DepositsReceivedSubscription>>(
      { query: print(DepositsReceivedSubscription), variables: { since } },
      {
        next: (r) => {
          const e = r.data?.transactionReceived;
          if (!e) return;
          since = e.sequence;
          onDeposit(e);
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
