/** Matched deposits of one workspace stored in one statement: payments, deposits, history, e-mails and events. */
import type { Invoice, Transaction } from '../../generated/prisma/client.ts';
import type { Deps } from '../deps.ts';
import { emailInsertCtes, type QueuedEmail } from '../email/email.ts';
import { eventInsertCtes, jsonRow, type CommittedEvent } from '../events/outbox.ts';
import { historyInsertSql } from '../invoices/history.ts';
import { SqlParams } from '../sql.ts';
import { paidByDeposit, paidByDepositEvent, paidByDepositHistory, payInvoiceSql } from './deposit-payment.ts';
import { depositInsertSql } from './deposit-row.ts';
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

export type MatchedDepositResult = Transaction | { fallBack: true; lostCandidateId: string };

/**
 * Stores matched deposits of one workspace in one statement, all or nothing per deposit; one whose invoice changed
 * since it was read is not stored (`fallBack`). Live subscribers hear of the payments after the commit. For tests too.
 */
export async function storeMatchedDepositsInOneStatement(deps: Deps, workspaceId: string, items: readonly MatchedDepositWrite[]): Promise<MatchedDepositResult[]> {
  // The invoices are locked, and the events numbered, in id order: two such statements never wait for each other in a cycle.
  const order = items.map((_, i) => i).sort((a, b) => (items[a]!.candidate.id < items[b]!.candidate.id ? -1 : items[a]!.candidate.id > items[b]!.candidate.id ? 1 : a - b));
  const sorted = order.map((i) => items[i]!);
  const s = new SqlParams();
  const ctes: string[] = [];
  const events = sorted.map((it) => paidByDepositEvent(paidByDeposit(it.candidate, it.now), it.matched, it.now));
  const stored = (i: number) => `EXISTS (SELECT 1 FROM deposit_${i})`;
  sorted.forEach((it, i) => {
    ctes.push(
      `paid_${i} AS (${payInvoiceSql(s, it.candidate, it.now, { unchangedSince: it.candidate.updatedAt })})`,
      `deposit_${i} AS (${depositInsertSql(s, it.deposit, { from: `paid_${i}`, method: it.method, at: it.now })})`,
      `history_${i} AS (${historyInsertSql(s, { invoiceId: `deposit_${i}."matchedInvoiceId"`, from: `deposit_${i}`, type: 'paid', now: it.now, actor: null, data: paidByDepositHistory(it.matched, it.method) })})`,
    );
    if (it.mail) ctes.push(emailInsertCtes(s, it.mail, { name: `email_${i}`, guard: stored(i) }).sql);
  });
  const eventCtes = eventInsertCtes(s, workspaceId, events, sorted.length === 1 ? { name: 'event', guard: stored(0) } : { name: 'event', guards: sorted.map((_, i) => stored(i)) });
  ctes.push(eventCtes.sql);
  // Each stored deposit answers with its event's sequence only: the row written is `it.matched`, which this process
  // built (parsing the whole row back cost more than the rest of the answer).
  const rows = await deps.sql.query<{ item: number; eventSequence: string | number | bigint | null }>(
    `WITH ${ctes.join(',\n')}
     ${sorted.map((_, i) => `SELECT ${i} AS item, (SELECT sequence FROM event WHERE id = ${s.p(eventCtes.ids[i])}) AS "eventSequence" FROM deposit_${i} d`).join('\n     UNION ALL ')}`,
    s.values,
    // Prepared (parsed and planned once per connection, not per call: planning a batch took longer than running it)
    // for one deposit, with or without its e-mail, and for batches of up to settings.preparedDepositBatchMax without
    // e-mails: a bounded number of texts. Larger batches, or batches with e-mails (a text per combination), are
    // planned each time.
    { prepare: sorted.length === 1 || (sorted.length <= (deps.settings.preparedDepositBatchMax ?? 1) && !sorted.some((it) => it.mail)) },
  );
  deps.observe?.matchedDepositBatch?.(sorted.length);
  const byItem = new Map(rows.map(({ item, ...row }) => [Number(item), row]));
  const committed: CommittedEvent[] = [];
  const results = sorted.map((it, i): MatchedDepositResult => {
    const row = byItem.get(i);
    if (!row) return { fallBack: true, lostCandidateId: it.candidate.id };
    const { eventSequence } = row;
    const paid = paidByDeposit(it.candidate, it.now);
    committed.push({
      id: eventCtes.ids[i]!,
      workspaceId,
      sequence: String(eventSequence),
      type: events[i]!.type,
      invoiceId: paid.id,
      cashReceiptId: null,
      bankAccountIds: [...paid.bankAccountIds],
      createdAt: it.now,
      invoice: jsonRow(paid),
    });
    return it.matched;
  });
  try {
    // Committed (in sequence order, which is the order written): live subscribers hear of the payments now.
    if (committed.length > 0) deps.onEventsCommitted(committed);
    if (sorted.some((it, i) => it.mail && byItem.has(i))) deps.onJobsQueued();
  } catch (e) {
    // The deposits are stored: the dispatcher still publishes their events; nothing here may fail their callers.
    deps.log.error({ err: e }, 'telling subscribers of committed deposits failed');
  }
  const inInputOrder: MatchedDepositResult[] = new Array(items.length);
  order.forEach((input, i) => (inInputOrder[input] = results[i]!));
  return inInputOrder;
}
