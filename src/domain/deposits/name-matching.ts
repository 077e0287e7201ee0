/**
 * Depositor-name matching methods (spec: transaction.matchMethod), tried in this order on the names' comparison forms
 * (depositor-name.ts: full-width folded, NFC, Latin case folded):
 *  EXACT            the deposit's name equals the invoice's customer name;
 *  BRACKET_REMOVAL  equal after removing bracketed parts such as `(123)`, `[주문]`, `{x}`, `【x】` from both sides,
 *                   unless both carry bracket text and the texts differ: '홍길동(101호)' and '홍길동(102호)' are
 *                   different orders, and a deposit naming one never pays the other;
 *  NAME_PREFIX      the bank truncated the name: the deposit's name is a proper prefix of the invoice's name and is
 *                   exactly the bank's truncation length (per provider, src/domain/bank-accounts/bank-providers.ts).
 *                   The prefix is compared with the brackets in place, so whatever bracket text the truncated name
 *                   still carries ('홍길동(102') begins the invoice's ('홍길동(102호)'), never another order's.
 * A deposit name exactly the bank's truncation length may be a longer name cut short, so there NAME_PREFIX hits are
 * not a later tier: they compete with the tier that decides (EXACT, else BRACKET_REMOVAL). Otherwise an invoice named
 * like the truncated form ('가나다라마바사' beside '가나다라마바사아') would capture the longer name's deposit.
 * Deposit names are compared without their invisible characters (depositor-name.ts depositNameKey).
 * Pure functions; the database side is in candidates.ts (matchCandidates).
 */
import { normalizeName, splitBrackets, withoutInvisible } from './depositor-name.ts';

export type AutoMatchMethod = 'EXACT' | 'BRACKET_REMOVAL' | 'NAME_PREFIX';
export const AUTO_MATCH_METHODS: readonly AutoMatchMethod[] = ['EXACT', 'BRACKET_REMOVAL', 'NAME_PREFIX'];

/** A name in the forms the methods compare. */
interface ComparedName {
  key: string;
  /** Length of `key` in code points. */
  length: number;
  bare: string;
  bracketText: string;
}

function compared(name: string): ComparedName {
  const key = normalizeName(name);
  const { bare, text } = splitBrackets(key);
  return { key, length: [...key].length, bare, bracketText: text.join('\u0001') };
}

function matches(method: AutoMatchMethod, d: ComparedName, i: ComparedName, truncationLength: number): boolean {
  switch (method) {
    case 'EXACT':
      return d.key === i.key;
    case 'BRACKET_REMOVAL':
      return d.bare.length > 0 && d.bare === i.bare && (d.bracketText === '' || i.bracketText === '' || d.bracketText === i.bracketText);
    case 'NAME_PREFIX':
      return d.length === truncationLength && i.length > d.length && i.key.startsWith(d.key);
  }
}

/** Whether the deposit name matches the invoice name by `method` (both compared in their normalised forms). */
export function namesMatch(method: AutoMatchMethod, depositName: string, invoiceName: string, truncationLength: number): boolean {
  return matches(method, compared(withoutInvisible(depositName)), compared(invoiceName), truncationLength);
}

export type MatchDecision<T> =
  | { kind: 'MATCH'; method: AutoMatchMethod; candidate: T }
  | { kind: 'AMBIGUOUS'; method: AutoMatchMethod; candidates: T[] }
  /** The candidate lookup was cut at its limit and what it read does not decide: `candidates` are the hits read. */
  | { kind: 'TOO_MANY_CANDIDATES'; candidates: T[] }
  | { kind: 'NONE' };

/**
 * Picks the invoice a deposit pays: the first method with any match decides; exactly one candidate matches, more than
 * one is AMBIGUOUS (left for a manual match — we do not guess). When the deposit's name is exactly the bank's
 * truncation length, the NAME_PREFIX hits join the deciding tier (EXACT, else BRACKET_REMOVAL): one hit in all
 * matches, two or more are AMBIGUOUS.
 *
 * `complete: false` says the candidates are only the first ones the lookup read (it was cut at its limit): the
 * limit must not decide, so anything but AMBIGUOUS (which more candidates could not undo) becomes
 * TOO_MANY_CANDIDATES.
 */
export function decideMatch<T extends { customerName: string }>(
  depositName: string,
  candidates: T[],
  truncationLength: number,
  opts: { complete?: boolean } = {},
): MatchDecision<T> {
  const decision = decideAmong(depositName, candidates, truncationLength);
  if (opts.complete === false && decision.kind !== 'AMBIGUOUS') {
    return { kind: 'TOO_MANY_CANDIDATES', candidates: decision.kind === 'MATCH' ? [decision.candidate] : [] };
  }
  return decision;
}

function decideAmong<T extends { customerName: string }>(depositName: string, candidates: T[], truncationLength: number): MatchDecision<T> {
  const d = compared(withoutInvisible(depositName));
  const names = candidates.map((c) => compared(c.customerName));
  const hitsBy = (method: AutoMatchMethod) => candidates.filter((_, k) => matches(method, d, names[k]!, truncationLength));
  // The deposit may be a longer name cut short: the invoices it begins compete with any other hit.
  const prefixHits = d.length === truncationLength ? hitsBy('NAME_PREFIX') : [];
  for (const method of ['EXACT', 'BRACKET_REMOVAL'] as const) {
    const hits = hitsBy(method);
    if (hits.length === 0) continue;
    const tier = [...new Set([...hits, ...prefixHits])];
    return tier.length === 1 ? { kind: 'MATCH', method, candidate: tier[0]! } : { kind: 'AMBIGUOUS', method, candidates: tier };
  }
  if (prefixHits.length === 1) return { kind: 'MATCH', method: 'NAME_PREFIX', candidate: prefixHits[0]! };
  if (prefixHits.length > 1) return { kind: 'AMBIGUOUS', method: 'NAME_PREFIX', candidates: prefixHits };
  return { kind: 'NONE' };
}
