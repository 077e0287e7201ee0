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
 * Pure functions; the database side is in deposits.ts (matchCandidates).
 */
import { normalizeName, splitBrackets } from './depositor-name.ts';

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
  return matches(method, compared(depositName), compared(invoiceName), truncationLength);
}

export type MatchDecision<T> =
  | { kind: 'MATCH'; method: AutoMatchMethod; candidate: T }
  | { kind: 'AMBIGUOUS'; method: AutoMatchMethod; candidates: T[] }
  | { kind: 'NONE' };

/**
 * Picks the invoice a deposit pays: the first method with any match decides; exactly one candidate matches, more than
 * one is AMBIGUOUS (left for a manual match — we do not guess).
 */
export function decideMatch<T extends { customerName: string }>(depositName: string, candidates: T[], truncationLength: number): MatchDecision<T> {
  const d = compared(depositName);
  const names = candidates.map((c) => compared(c.customerName));
  for (const method of AUTO_MATCH_METHODS) {
    const hits = candidates.filter((_, k) => matches(method, d, names[k]!, truncationLength));
    if (hits.length === 1) return { kind: 'MATCH', method, candidate: hits[0]! };
    if (hits.length > 1) return { kind: 'AMBIGUOUS', method, candidates: hits };
  }
  return { kind: 'NONE' };
}
