/** The deposit (transaction) object of the REST faces, fields in the spec's order, times in the face's format. */
import type { GqlTransaction } from './graphql.ts';

/** A deposit and its receiving account as v1 (`v1Time`: ISO text) or v2 (`v2Time`: Unix seconds) renders it. */
export function transactionWire<T>(t: GqlTransaction, ownerId: string, time: (at: string | null | undefined) => T) {
  return {
    id: t.id,
    bankAccount: {
      id: t.bankAccount.id,
      active: t.bankAccount.active,
      ownerId,
      alias: t.bankAccount.alias,
      provider: t.bankAccount.provider,
      type: t.bankAccount.type,
      number: t.bankAccount.number,
      createdAt: time(t.bankAccount.createdAt),
      verifiedAt: time(t.bankAccount.verifiedAt),
      deletedAt: null,
    },
    matchedInvoiceId: t.matchedInvoiceId,
    matchMethod: t.matchMethod,
    amount: t.amount,
    description: t.description,
    hidden: t.hidden,
    receivedAt: time(t.receivedAt),
    matchedAt: time(t.matchedAt),
    createdAt: time(t.createdAt),
    deletedAt: null,
  };
}
