/**
 * Depositor-name matching (spec: transaction.matchMethod), on the names' comparison forms (depositor-name.ts). Pure
 * functions; the database side is in candidates.ts (matchCandidates).
 */
import { normalizeName, splitBrackets, withoutInvisible } from './depositor-name.ts';

/** The automatic matching methods, tried in this order. */
export type AutoMatchMethod =
  /** The deposit's name equals the invoice's customer name. */
  | 'EXACT'
  /** Equal with bracketed parts (`(123)`, `[주문]`, `【x】`) removed, unless both carry bracket text that differs: '홍길동(101호)' never pays '홍길동(102호)'. */
  | 'BRACKET_REMOVAL'
  /** The bank truncated it: the deposit's name, exactly the bank's truncation length, begins the invoice's (brackets in place, so '홍길동(102' begins only '홍길동(102호)'). */
  | 'NAME_PREFIX';
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
 * Picks the invoice a deposit pays: the first method with any match decides; more than one match is AMBIGUOUS (we do
 * not guess). A name of exactly the truncation length may be a longer one cut short: its NAME_PREFIX hits compete.
 */
export function decideMatch<T extends { customerName: string }>(
  depositName: string,
  candidates: T[],
  truncationLength: number,
  opts: { complete?: boolean } = {},
): MatchDecision<T> {
  const decision = decideAmong(depositName, candidates, truncationLength);
  // Candidates cut at the lookup's limit must not decide: anything but AMBIGUOUS (more could not undo it) is too many.
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
