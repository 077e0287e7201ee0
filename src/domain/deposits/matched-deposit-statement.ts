/**
 * A workspace's new deposits stored in one statement: for each matched one its payment, the deposit, the history line,
 * the e-mail and its events (the deposit's transaction.received, then the invoice's invoice.paid); for each unmatched
 * one the deposit, noted, and its transaction.received.
 */
import type { Invoice, Transaction } from '../../generated/prisma/client.ts';
import type { Deps } from '../deps.ts';
import { emailInsertCtes, type QueuedEmail } from '../email/email.ts';
import { eventInsertCtes, jsonRow, type CommittedEvent, type NewEvent } from '../events/outbox.ts';
import { historyInsertSql } from '../invoices/history.ts';
import { SqlParams } from '../sql.ts';
import { paidByDeposit, paidByDepositEvent, paidByDepositHistory, payInvoiceSql } from './deposit-payment.ts';
import { depositInsertSql, transactionReceivedEvent } from './deposit-row.ts';
import type { AutoMatchMethod } from './name-matching.ts';

/** A deposit that matched exactly one invoice, ready to be stored together with paying it. */
export interface MatchedDepositWrite {
  deposit: Transaction;
  /** The deposit as stored when the payment goes through. */
  matched: Transaction;
  candidate: Invoice;
  method: AutoMatchMethod;
  now: Date;
  mail: QueuedEmail | null;
}

/** A deposit that matched no single invoice (on an account that receives), ready to be stored with its note. */
export interface UnmatchedDepositWrite {
  deposit: Transaction;
  now: Date;
  /** The workspace's invoiceSeq when the deposit's candidates were read (see InvoicesCreatedMeanwhile). */
  invoiceSeqAtRead: number;
  candidate?: undefined;
}

/**
 * An unmatched deposit stored after an invoice was created that its candidates' read could not see (the workspace's
 * invoiceSeq under the statement's lock is past the one read): its matching is to be run again after the commit
 * (intake.ts, matchAgainAfterCommit).
 */
export interface InvoicesCreatedMeanwhile {
  stored: Transaction;
  invoicesCreatedMeanwhile: true;
}

export type DepositWrite = MatchedDepositWrite | UnmatchedDepositWrite;

export type MatchedDepositResult = Transaction | { fallBack: true; lostCandidateId: string } | InvoicesCreatedMeanwhile;

const isMatched = (it: DepositWrite): it is MatchedDepositWrite => it.candidate !== undefined;

/**
 * Stores new deposits of one workspace in one statement, all or nothing per deposit; a matched one whose invoice
 * changed since it was read is not stored (`fallBack`). Live subscribers hear of them after the commit. For tests too.
 */
export async function storeMatchedDepositsInOneStatement(deps: Deps, workspaceId: string, items: readonly DepositWrite[]): Promise<MatchedDepositResult[]> {
  // The invoices are locked, and the events numbered, in id order: two such statements never wait for each other in a
  // cycle. Unmatched deposits (no invoice to lock) come after them, in the order given.
  const key = (it: DepositWrite) => (isMatched(it) ? `0${it.candidate.id}` : '1');
  const order = items.map((_, i) => i).sort((a, b) => (key(items[a]!) < key(items[b]!) ? -1 : key(items[a]!) > key(items[b]!) ? 1 : a - b));
  const sorted = order.map((i) => items[i]!);
  const s = new SqlParams();
  const ctes: string[] = [];
  // Per deposit its transaction.received, then (matched) the invoice.paid of its payment: written only if it is stored.
  const eventsOf = sorted.map((it): NewEvent[] =>
    isMatched(it) ? [transactionReceivedEvent(it.matched, true, it.now), paidByDepositEvent(paidByDeposit(it.candidate, it.now), it.matched, it.now)] : [transactionReceivedEvent(it.deposit, true, it.now)],
  );
  const events = eventsOf.flat();
  const stored = (i: number) => `EXISTS (SELECT 1 FROM deposit_${i})`;
  sorted.forEach((it, i) => {
    if (!isMatched(it)) {
      ctes.push(`deposit_${i} AS (${depositInsertSql(s, it.deposit)})`);
      return;
    }
    ctes.push(
      `paid_${i} AS (${payInvoiceSql(s, it.candidate, it.now, { unchangedSince: it.candidate.updatedAt })})`,
      `deposit_${i} AS (${depositInsertSql(s, it.deposit, { from: `paid_${i}`, method: it.method, at: it.now })})`,
      `history_${i} AS (${historyInsertSql(s, { invoiceId: `deposit_${i}."matchedInvoiceId"`, from: `deposit_${i}`, type: 'paid', now: it.now, actor: null, data: paidByDepositHistory(it.matched, it.method) })})`,
    );
    if (it.mail) ctes.push(emailInsertCtes(s, it.mail, { name: `email_${i}`, guard: stored(i) }).sql);
  });
  const eventCtes = eventInsertCtes(s, workspaceId, events, sorted.length === 1 ? { name: 'event', guard: stored(0) } : { name: 'event', guards: eventsOf.flatMap((e, i) => e.map(() => stored(i))) });
  ctes.push(eventCtes.sql);
  // The ids of each deposit's events, in `events` order.
  const firstEvent = eventsOf.map((_, i) => eventsOf.slice(0, i).reduce((n, e) => n + e.length, 0));
  const receivedId = (i: number) => eventCtes.ids[firstEvent[i]!]!;
  const paidId = (i: number) => eventCtes.ids[firstEvent[i]! + 1]!;
  const sequenceOf = (id: string) => `(SELECT sequence FROM event WHERE id = ${s.p(id)})`;
  // Each stored deposit answers with its events' sequences only: the row written is the one this process built
  // (parsing the whole row back cost more than the rest of the answer).
  const rows = await deps.sql.query<{ item: number; receivedSequence: string | number | bigint | null; paidSequence: string | number | bigint | null; invoiceSeq: number | null }>(
    `WITH ${ctes.join(',\n')}
     ${sorted
       .map(
         (it, i) =>
           `SELECT ${i} AS item, ${sequenceOf(receivedId(i))} AS "receivedSequence", ${isMatched(it) ? sequenceOf(paidId(i)) : 'NULL::bigint'} AS "paidSequence", (SELECT "invoiceSeq" FROM event_seq) AS "invoiceSeq" FROM deposit_${i} d`,
       )
       .join('\n     UNION ALL ')}`,
    s.values,
    // Prepared (parsed and planned once per connection, not per call: planning a batch took longer than running it)
    // for one deposit, with or without its e-mail, and for batches of up to settings.preparedDepositBatchMax of one
    // kind (all matched, without e-mails, or all unmatched): a bounded number of texts. Larger batches, mixed ones and
    // those with e-mails (a text per combination) are planned each time.
    {
      prepare:
        sorted.length === 1 || (sorted.length <= (deps.settings.preparedDepositBatchMax ?? 1) && !sorted.some((it) => isMatched(it) && it.mail) && new Set(sorted.map(isMatched)).size === 1),
    },
  );
  const matchedCount = sorted.filter(isMatched).length;
  if (matchedCount > 0) deps.observe?.matchedDepositBatch?.(matchedCount);
  const byItem = new Map(rows.map(({ item, ...row }) => [Number(item), row]));
  // An unmatched deposit's insert is unconditional: the statement stored it, or failed.
  if (sorted.some((it, i) => !isMatched(it) && !byItem.has(i))) throw new Error('deposit insert returned nothing');
  const committed: CommittedEvent[] = [];
  const results = sorted.map((it, i): MatchedDepositResult => {
    const row = byItem.get(i);
    if (!isMatched(it)) {
      committed.push({ id: receivedId(i), workspaceId, sequence: String(row!.receivedSequence), type: 'transaction.received', invoiceId: null, cashReceiptId: null, bankAccountIds: [it.deposit.bankAccountId], createdAt: it.now });
      return Number(row!.invoiceSeq) > it.invoiceSeqAtRead ? { stored: it.deposit, invoicesCreatedMeanwhile: true } : it.deposit;
    }
    if (!row) return { fallBack: true, lostCandidateId: it.candidate.id };
    const paid = paidByDeposit(it.candidate, it.now);
    const invoice = jsonRow(paid);
    const received = { id: receivedId(i), workspaceId, sequence: String(row.receivedSequence), type: 'transaction.received' as const, invoiceId: paid.id, cashReceiptId: null, bankAccountIds: [it.matched.bankAccountId], createdAt: it.now, invoice };
    committed.push(received, { ...received, id: paidId(i), sequence: String(row.paidSequence), type: 'invoice.paid', bankAccountIds: [...paid.bankAccountIds] });
    return it.matched;
  });
  try {
    // Committed (in sequence order, which is the order written): live subscribers hear of the deposits now.
    if (committed.length > 0) deps.onEventsCommitted(committed);
    if (sorted.some((it, i) => isMatched(it) && it.mail && byItem.has(i))) deps.onJobsQueued();
  } catch (e) {
    // The deposits are stored: the dispatcher still publishes their events; nothing here may fail their callers.
    deps.log.error({ err: e }, 'telling subscribers of committed deposits failed');
  }
  const inInputOrder: MatchedDepositResult[] = new Array(items.length);
  order.forEach((input, i) => (inInputOrder[input] = results[i]!));
  return inInputOrder;
}
