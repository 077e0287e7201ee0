/** Matching a stored deposit inside its transaction (the slow path): candidates, decision, payment or a note why not. */
import type { Invoice, Transaction } from '../../generated/prisma/client.ts';
import type { RawQuery } from '../deps.ts';
import { recordEvents } from '../events/outbox.ts';
import { SqlParams } from '../sql.ts';
import { CANDIDATE_LIMIT, matchCandidates } from './candidates.ts';
import { afterDepositPaid, payInvoiceSql } from './deposit-payment.ts';
import { transactionReceivedEvent, type DepositUnmatchedReason } from './deposit-row.ts';
import { decideMatch, type AutoMatchMethod, type MatchDecision } from './name-matching.ts';

/**
 * The deposit being matched was matched by another transaction since it was read (only a deposit committed earlier,
 * matched again: intake.ts matchAgainAfterCommit); thrown to roll back the payment made in the same statement.
 */
export class DepositMatchedMeanwhile extends Error {
  constructor(readonly transactionId: string) {
    super(`deposit ${transactionId} was matched by another transaction meanwhile`);
    this.name = 'DepositMatchedMeanwhile';
  }
}

/** Why a deposit that matched no single invoice stays unmatched, for its matchNote (null: nothing matched). */
export function unmatchedNote(decision: Exclude<MatchDecision<Invoice>, { kind: 'MATCH' }>) {
  switch (decision.kind) {
    case 'AMBIGUOUS':
      return {
        reason: 'AMBIGUOUS' satisfies DepositUnmatchedReason,
        method: decision.method,
        candidateInvoiceIds: decision.candidates.map((c) => c.id),
        message: 'More than one pending invoice matches this deposit; match it manually.',
      };
    case 'TOO_MANY_CANDIDATES':
      return {
        reason: 'TOO_MANY_CANDIDATES' satisfies DepositUnmatchedReason,
        candidateInvoiceIds: decision.candidates.map((c) => c.id),
        message: `More than ${CANDIDATE_LIMIT} pending invoices could match this deposit, too many to be sure which one it pays; the matching ones among those read are listed. Match it manually.`,
      };
    case 'NONE':
      return null;
  }
}

/** Notes on a stored deposit why it stayed unmatched. */
async function noteUnmatched(q: RawQuery, trx: Transaction, note: Record<string, unknown>, now: Date): Promise<Transaction> {
  const [noted] = await q<Transaction>(`UPDATE "Transaction" SET "matchNote" = $2::jsonb, "updatedAt" = $3::timestamptz WHERE id = $1 RETURNING *`, [
    trx.id,
    JSON.stringify(note),
    now.toISOString(),
  ]);
  return noted ?? trx;
}

/**
 * Matches a just-stored deposit in its transaction (spec: States — matching deposit); an ambiguous match is noted.
 * `lostCandidateId`: the invoice it matched when first read, which changed before it could be paid. `onlyInvoiceId`:
 * an earlier, unmatched deposit matched again for one new invoice (a shop order imported after the deposit arrived):
 * it pays that invoice if its decision is that invoice, else it is left exactly as it was. `received`: a deposit
 * stored in this transaction, whose `transaction.received` event is written here, with its outcome, before the
 * `invoice.paid` of its payment.
 */
export async function matchDeposit(
  q: RawQuery,
  trx: Transaction,
  truncation: number,
  now: Date,
  lostCandidateId?: string,
  opts: { onlyInvoiceId?: string; received?: boolean } = {},
): Promise<Transaction> {
  const { deposit, paid } = await decideAndLink(q, trx, truncation, now, lostCandidateId, opts);
  if (opts.received) await recordEvents(q, deposit.workspaceId, [transactionReceivedEvent(deposit, true, now)]);
  if (paid) await afterDepositPaid(q, deposit, paid.invoice, paid.method, now, null);
  return deposit;
}

/**
 * The decision and, for a match, the invoice's payment and the deposit's link in one statement; or the note why it
 * stays unmatched. The rest of a payment (history, receipt, e-mail, event) is the caller's.
 */
async function decideAndLink(
  q: RawQuery,
  trx: Transaction,
  truncation: number,
  now: Date,
  lostCandidateId: string | undefined,
  opts: { onlyInvoiceId?: string },
): Promise<{ deposit: Transaction; paid?: { invoice: Invoice; method: AutoMatchMethod } }> {
  for (let attempt = 1; ; attempt++) {
    const found = await matchCandidates(q, trx, truncation, now);
    const decision = decideMatch(trx.description, found.candidates, truncation, { complete: found.complete });
    if (opts.onlyInvoiceId !== undefined && (decision.kind !== 'MATCH' || decision.candidate.id !== opts.onlyInvoiceId)) return { deposit: trx };
    if (decision.kind === 'NONE') {
      if (attempt === 1 && lostCandidateId) return { deposit: await noteIfPaidByAnother(q, trx, lostCandidateId, now) };
      return { deposit: trx };
    }
    if (decision.kind !== 'MATCH') return { deposit: await noteUnmatched(q, trx, unmatchedNote(decision)!, now) };
    // The same statement pays the invoice (if it is still what was matched) and links the deposit to it.
    const candidate = decision.candidate;
    const s = new SqlParams();
    const [paid] = await q<Invoice & { linked: boolean }>(
      `WITH paid AS (${payInvoiceSql(s, candidate, now)}),
            linked AS (
              UPDATE "Transaction" t SET "matchedInvoiceId" = paid.id, "matchMethod" = ${s.p(decision.method, '::"MatchMethod"')},
                     "matchedAt" = ${s.p(now.toISOString(), '::timestamptz')}, "matchNote" = NULL, "updatedAt" = ${s.p(now.toISOString(), '::timestamptz')}
                FROM paid WHERE t.id = ${s.p(trx.id)} AND t."matchedInvoiceId" IS NULL
              RETURNING t.id
            )
       SELECT paid.*, EXISTS (SELECT 1 FROM linked) AS linked FROM paid`,
      s.values,
    );
    if (paid) {
      const { linked, ...invoice } = paid;
      // Rolls back the payment just made: the deposit was matched by another transaction since it was read.
      if (!linked) throw new DepositMatchedMeanwhile(trx.id);
      const matched: Transaction = { ...trx, matchedInvoiceId: invoice.id, matchMethod: decision.method, matchedAt: now, matchNote: null, updatedAt: now };
      return { deposit: matched, paid: { invoice, method: decision.method } };
    }
    // Still pending, so it was edited under us: match again against what is committed now (a few times at most; after
    // that the deposit stays unmatched, for a manual match).
    if ((await storedInvoiceStatus(q, candidate.id)) === 'PENDING') {
      if (attempt < 3) continue;
      return { deposit: trx };
    }
    return { deposit: await noteUnmatched(q, trx, alreadyPaidNote(candidate.id), now) };
  }
}

async function storedInvoiceStatus(q: RawQuery, invoiceId: string): Promise<string | null> {
  const [row] = await q<{ status: string }>(`SELECT status FROM "Invoice" WHERE id = $1`, [invoiceId]);
  return row?.status ?? null;
}

/** Paid by another deposit first (or canceled): this deposit stays unmatched, noted (nothing else was written). */
function alreadyPaidNote(invoiceId: string) {
  return { reason: 'ALREADY_PAID' satisfies DepositUnmatchedReason, candidateInvoiceIds: [invoiceId], message: 'The matching invoice was paid by another deposit.' };
}

async function noteIfPaidByAnother(q: RawQuery, trx: Transaction, invoiceId: string, now: Date): Promise<Transaction> {
  const status = await storedInvoiceStatus(q, invoiceId);
  return status !== null && status !== 'PENDING' ? noteUnmatched(q, trx, alreadyPaidNote(invoiceId), now) : trx;
}
