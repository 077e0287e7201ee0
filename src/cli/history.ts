/**
 * The CLI's account-history commands (README tour): connect an account's history to the simulated aggregator, and book
 * a deposit in it — one whose text the phone never forwarded — then wait until polling has found it.
 */
import { ServiceError, type ServiceClient } from './client.ts';

type Refusal = { __typename: 'DomainError'; code: string; message: string };

function payloadOf<T>(field: string, r: ({ __typename: string } & T) | Refusal): T {
  if (r.__typename === 'DomainError') throw new ServiceError(`${field}: ${(r as Refusal).code} ${(r as Refusal).message}`, 200, r);
  return r as T;
}

const FEED_FIELDS = 'id bankAccountId aggregator state lastPolledAt lastRows lastNew lastError nextPollAt';

/** Connects the account's history to the simulated aggregator (a dashboard login's token): the feed. */
export async function connectSimulatedHistory(client: ServiceClient, sessionToken: string, bankAccountId: string) {
  const r = await client.gql<{ connectHistoryFeed: ({ __typename: string } & { feed: Record<string, unknown> }) | Refusal }>(
    `mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { __typename ... on HistoryFeedPayload { feed { ${FEED_FIELDS} } } ... on DomainError { code message } } }`,
    { i: { bankAccountId, aggregator: 'SIMULATED' } },
    sessionToken,
  );
  return payloadOf('connectHistoryFeed', r.connectHistoryFeed).feed;
}

/**
 * Books a deposit in a simulated feed's history, then waits (up to `ms`) until the service holds a deposit for that
 * row (the poll is due at once): the row and the deposit.
 */
export async function simulateHistoryDeposit(
  client: ServiceClient,
  token: string,
  a: { feedId: string; depositorName: string; amount: number; balanceAfter?: number },
  ms = 10_000,
) {
  const r = await client.gql<{ simulateHistoryDeposit: ({ __typename: string } & { row: { rowId: string; occurredAt: string; balanceAfter: number } }) | Refusal }>(
    `mutation($i: SimulateHistoryDepositInput!) { simulateHistoryDeposit(input: $i) { __typename ... on SimulatedHistoryRowPayload { row { rowId occurredAt amount depositorName balanceAfter } } ... on DomainError { code message } } }`,
    { i: a },
    token,
  );
  const { row } = payloadOf('simulateHistoryDeposit', r.simulateHistoryDeposit);
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await client.gql<{ transactions: { edges: { node: Record<string, any> }[] } }>(
      `query { transactions(first: 20) { edges { node { id amount description source balanceAfter textAnnouncedAt historySeenAt matchedInvoiceId matchMethod receivedAt } } } }`,
      {},
      token,
    );
    const deposit = found.transactions.edges.map((e) => e.node).find((t) => t.historySeenAt && t.amount === a.amount && t.balanceAfter === row.balanceAfter) ?? null;
    if (deposit || Date.now() > deadline) return { row, deposit };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
