/**
 * Deposits as they are stored (the transactionReceived subscription, through live.ts's followEvents): every new
 * deposit, matched or not, which the invoice events do not announce when it paid nothing.
 */
import { graphql, type ResultOf } from '../../graphql.ts';
import { followEvents } from '../../live.ts';

const DepositsReceivedSubscription = graphql(`
  subscription DashboardDepositsReceived($since: String) {
    transactionReceived(sinceSequence: $since) {
      sequence
      transaction { id }
    }
  }
`);

type Received = ResultOf<typeof DepositsReceivedSubscription>['transactionReceived'];

/** Calls `onDeposit` for every deposit stored from now on, across reconnects; `onReady` each time it is (again) in place. */
export function followDepositsReceived(onDeposit: (e: Received) => void, onReady?: () => void): () => void {
  return followEvents(DepositsReceivedSubscription, 'transactionReceived', onDeposit, onReady);
}
