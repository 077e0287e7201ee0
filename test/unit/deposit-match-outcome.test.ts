/**
 * What transaction.received says of a stored deposit (src/domain/deposits/deposit-row.ts): its match outcome from the
 * deposit's columns and match note, the event's subject accounts and invoice, and none for a verification deposit.
 */
import { describe, expect, it } from 'vitest';
import type { Transaction } from '../../src/generated/prisma/client.ts';
import { DEPOSIT_UNMATCHED_REASONS, depositMatchOutcome, transactionReceivedEvent } from '../../src/domain/deposits/deposit-row.ts';
import { unmatchedNote } from '../../src/domain/deposits/match-deposit.ts';

const now = new Date('2026-11-26T03:00:00.000Z');
const ivc = (n: number) => `ivc_${String(n).padStart(24, '0')}`;
const deposit = (over: Partial<Transaction> = {}): Transaction => ({
  id: 'trx_000000000000000000000001',
  workspaceId: 'wsp_000000000000000000000001',
  bankAccountId: 'bac_000000000000000000000001',
  bankAccountSnapshot: { id: 'bac_000000000000000000000001' },
  notificationId: 'n-1',
  amount: 10_000,
  description: '홍길동',
  searchText: '',
  hidden: false,
  verification: false,
  matchedInvoiceId: null,
  matchMethod: null,
  matchedAt: null,
  matchNote: null,
  receivedAt: now,
  source: 'NOTIFICATION',
  balanceAfter: null,
  textAnnouncedAt: null,
  textChannels: [],
  historyRowId: null,
  historySeenAt: null,
  createdAt: now,
  updatedAt: now,
  deletedAt: null,
  ...over,
});
const candidate = (n: number) => ({ id: ivc(n) }) as never;

describe('the match outcome of a stored deposit', () => {
  it.each<[string, Partial<Transaction>, boolean, unknown]>([
    ['matched', { matchedInvoiceId: ivc(1), matchMethod: 'NAME_PREFIX', matchedAt: now }, true, { status: 'MATCHED', invoiceId: ivc(1), method: 'NAME_PREFIX' }],
    ['AMBIGUOUS (its note)', { matchNote: unmatchedNote({ kind: 'AMBIGUOUS', method: 'EXACT', candidates: [candidate(1), candidate(2)] }) }, true, { status: 'UNMATCHED', reason: 'AMBIGUOUS', candidateInvoiceIds: [ivc(1), ivc(2)] }],
    ['TOO_MANY_CANDIDATES (its note)', { matchNote: unmatchedNote({ kind: 'TOO_MANY_CANDIDATES', candidates: [candidate(3)] }) }, true, { status: 'UNMATCHED', reason: 'TOO_MANY_CANDIDATES', candidateInvoiceIds: [ivc(3)] }],
    ['ALREADY_PAID (its note)', { matchNote: { reason: 'ALREADY_PAID', candidateInvoiceIds: [ivc(4)], message: '…' } }, true, { status: 'UNMATCHED', reason: 'ALREADY_PAID', candidateInvoiceIds: [ivc(4)] }],
    ['no note on an account that receives', {}, true, { status: 'UNMATCHED', reason: 'NO_CANDIDATE', candidateInvoiceIds: [] }],
    ['no note on an account not verified or inactive', {}, false, { status: 'UNMATCHED', reason: 'ACCOUNT_NOT_RECEIVING', candidateInvoiceIds: [] }],
    ['a note of an unknown reason (none written today) reads as no note', { matchNote: { reason: 'SOMETHING_ELSE' } }, true, { status: 'UNMATCHED', reason: 'NO_CANDIDATE', candidateInvoiceIds: [] }],
  ])('%s', (_name, over, receiving, expected) => {
    expect(depositMatchOutcome(deposit(over), receiving)).toEqual(expected);
  });

  it('every reason is described (the GraphQL enum and the OpenAPI schema read the same table)', () => {
    expect(Object.keys(DEPOSIT_UNMATCHED_REASONS).sort()).toEqual(['ACCOUNT_NOT_RECEIVING', 'ALREADY_PAID', 'AMBIGUOUS', 'NO_CANDIDATE', 'TOO_MANY_CANDIDATES']);
  });
});

describe('the transaction.received event', () => {
  it("is recorded with the deposit's account, the invoice it paid, the deposit with its source and the outcome", () => {
    const matched = deposit({ matchedInvoiceId: ivc(1), matchMethod: 'EXACT', matchedAt: now, source: 'TEXT' });
    const e = transactionReceivedEvent(matched, true, now);
    expect(e).toMatchObject({ workspaceId: matched.workspaceId, type: 'transaction.received', invoiceId: ivc(1), bankAccountIds: [matched.bankAccountId], createdAt: now });
    expect(e.data).toEqual({
      transaction: {
        id: matched.id,
        bankAccount: matched.bankAccountSnapshot,
        matchedInvoiceId: ivc(1),
        matchMethod: 'EXACT',
        amount: 10_000,
        description: '홍길동',
        hidden: false,
        receivedAt: now.toISOString(),
        matchedAt: now.toISOString(),
        createdAt: now.toISOString(),
        source: 'TEXT',
      },
      match: { status: 'MATCHED', invoiceId: ivc(1), method: 'EXACT' },
    });
    expect(transactionReceivedEvent(deposit(), true, now).invoiceId).toBeNull();
  });

  it('a verification deposit has none', () => {
    expect(() => transactionReceivedEvent(deposit({ verification: true, hidden: true, amount: 1 }), true, now)).toThrow(/verification/);
  });
});
