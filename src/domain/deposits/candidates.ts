/** The invoices a deposit could pay, read through the name indexes (spec: matching deposit — EXACT, BRACKET_REMOVAL, NAME_PREFIX). */
import type { Invoice, Transaction } from '../../generated/prisma/client.ts';
import { asRaw, type Sql } from '../deps.ts';
import { transitionFromSql } from '../invoices/invoice-state.ts';
import { SqlParams } from '../sql.ts';
import { depositNameKey, splitBrackets } from './depositor-name.ts';

/**
 * The pending, unexpired invoices of the workspace with the deposit's amount that can receive on its account
 * (fragments take SQL expressions: placeholders, or columns of the caller's query).
 */
function candidateBaseSql(s: SqlParams, e: { workspaceId: string; bankAccountId: string; amount: string; now: Date }): string {
  const now = s.p(e.now.toISOString(), '::timestamptz');
  return `SELECT * FROM "Invoice"
     WHERE "workspaceId" = ${e.workspaceId} AND amount = ${e.amount} AND ${transitionFromSql('DEPOSIT_MATCH', now)}
       AND (cardinality("bankAccountIds") = 0 OR ${e.bankAccountId} = ANY("bankAccountIds"))`;
}

/**
 * The most candidates a lookup reads; it asks for one more, to know whether it was cut (then the limit may not decide:
 * decideMatch's `complete`).
 */
export const CANDIDATE_LIMIT = 50;

/**
 * EXACT candidates: named like the deposit once both are normalised (`name`: the deposit's depositNameKey(); index
 * Invoice_name_prefix_idx on workspace, amount, customerNameKey), oldest first, at most CANDIDATE_LIMIT + 1. Exported
 * for the plan test.
 */
export function exactCandidatesSql(s: SqlParams, e: { workspaceId: string; bankAccountId: string; amount: string; name: string; now: Date }): string {
  return `${candidateBaseSql(s, e)} AND "customerNameKey" = ${e.name} ORDER BY "createdAt" LIMIT ${CANDIDATE_LIMIT + 1}`;
}

/**
 * Pending, unexpired invoices of the workspace with the deposit's amount that can receive on its account and whose
 * name could match it — fetched through indexes, never by scanning every invoice of that amount:
 *  - EXACT hits are the invoices named like the deposit (normalised: customerNameKey; `exact`: already read by the
 *    caller); when there are any, they decide, unless the deposit's name is exactly the bank's truncation length;
 *  - otherwise: invoices whose bracket-free name equals the deposit's bracket-free name (BRACKET_REMOVAL, index on
 *    customerNameBare), and, when the deposit's normalised name has exactly the bank's truncation length, invoices
 *    whose normalised name starts with it (NAME_PREFIX, text_pattern_ops index on customerNameKey; they compete with
 *    EXACT hits, so such a deposit with EXACT hits costs this second lookup). decideMatch() then picks among them
 *    (and drops bracket-free hits whose bracket text differs from the deposit's).
 * `complete` is false when a lookup was cut at CANDIDATE_LIMIT (`candidates` then hold its first CANDIDATE_LIMIT rows).
 */
export async function matchCandidates(
  db: Sql,
  trx: Pick<Transaction, 'workspaceId' | 'bankAccountId' | 'amount' | 'description'>,
  truncation: number,
  now: Date,
  exact?: Invoice[],
): Promise<{ candidates: Invoice[]; complete: boolean }> {
  const q = asRaw(db);
  const depositName = depositNameKey(trx.description);
  const at = () => {
    const s = new SqlParams();
    return { s, e: { workspaceId: s.p(trx.workspaceId), bankAccountId: s.p(trx.bankAccountId), amount: s.p(trx.amount, '::int'), now } };
  };
  if (!exact) {
    const { s, e } = at();
    exact = await q<Invoice>(exactCandidatesSql(s, { ...e, name: s.p(depositName) }), s.values);
  }
  const exactComplete = exact.length <= CANDIDATE_LIMIT;
  const exactRead = exact.slice(0, CANDIDATE_LIMIT);
  // A name of exactly the bank's truncation length may be a longer name cut short: the invoices it begins compete.
  const mayBeTruncated = [...depositName].length === truncation;
  if (exactRead.length > 0 && !mayBeTruncated) return { candidates: exactRead, complete: exactComplete };
  const bare = splitBrackets(depositName).bare;
  const prefix = mayBeTruncated ? likePrefix(depositName) : null;
  if (bare.length === 0 && prefix === null) return { candidates: exactRead, complete: exactComplete };
  const { s, e } = at();
  const named = await q<Invoice>(nameCandidatesSql(s, { ...e, bare, prefix }), s.values);
  const candidates = new Map(exactRead.map((i) => [i.id, i]));
  for (const i of named.slice(0, CANDIDATE_LIMIT)) if (!candidates.has(i.id)) candidates.set(i.id, i);
  return { candidates: [...candidates.values()], complete: exactComplete && named.length <= CANDIDATE_LIMIT };
}

/**
 * BRACKET_REMOVAL and NAME_PREFIX candidates (`bare`: the deposit's bracket-free name; `prefix`: a LIKE pattern of
 * its normalised name, or null), oldest first, at most CANDIDATE_LIMIT + 1. Sent with its values (a custom plan: LIKE
 * 'prefix%' uses the text_pattern_ops index only with the pattern known). Exported for the plan test.
 */
export function nameCandidatesSql(s: SqlParams, e: { workspaceId: string; bankAccountId: string; amount: string; now: Date; bare: string; prefix: string | null }): string {
  const b = s.p(e.bare);
  const p = s.p(e.prefix, '::text');
  return `${candidateBaseSql(s, e)} AND (("customerNameBare" = ${b} AND ${b} <> '') OR (${p} IS NOT NULL AND "customerNameKey" LIKE ${p})) ORDER BY "createdAt" LIMIT ${CANDIDATE_LIMIT + 1}`;
}

/** A LIKE pattern matching names that start with `prefix` (wildcards in it escaped). */
function likePrefix(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
}
