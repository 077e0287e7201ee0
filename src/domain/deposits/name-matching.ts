/**
 * Depositor-name matching methods (spec: transaction.matchMethod), tried in this order:
 *  EXACT            the deposit's name equals the invoice's customer name;
 *  BRACKET_REMOVAL  equal after removing bracketed parts such as `(123)`, `[주문]`, `{x}` from both sides;
 *  NAME_PREFIX      the bank truncated the name: the deposit's name is a proper prefix of the invoice's name and is
 *                   exactly the bank's truncation length (per provider, src/domain/bank-accounts/bank-providers.ts).
 * Pure functions; the database side is in matching.ts.
 */
export type AutoMatchMethod = 'EXACT' | 'BRACKET_REMOVAL' | 'NAME_PREFIX';
export const AUTO_MATCH_METHODS: readonly AutoMatchMethod[] = ['EXACT', 'BRACKET_REMOVAL', 'NAME_PREFIX'];

const BRACKETED = /\([^()]*\)|\[[^[\]]*\]|\{[^{}]*\}|（[^（）]*）|【[^【】]*】/g;

/** Removes bracketed parts (repeatedly, for nesting) and surrounding whitespace. */
export function removeBrackets(name: string): string {
  let prev: string;
  let s = name;
  do {
    prev = s;
    s = s.replace(BRACKETED, '');
  } while (s !== prev);
  return s.replace(/\s+/g, '').trim();
}

/** Whether the deposit name matches the invoice name by `method`. */
export function namesMatch(method: AutoMatchMethod, depositName: string, invoiceName: string, truncationLength: number): boolean {
  switch (method) {
    case 'EXACT':
      return depositName === invoiceName;
    case 'BRACKET_REMOVAL': {
      const d = removeBrackets(depositName);
      const i = removeBrackets(invoiceName);
      return d.length > 0 && d === i;
    }
    case 'NAME_PREFIX': {
      const d = [...depositName];
      const i = [...invoiceName];
      return d.length === truncationLength && i.length > d.length && invoiceName.startsWith(depositName);
    }
  }
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
  for (const method of AUTO_MATCH_METHODS) {
    const hits = candidates.filter((c) => namesMatch(method, depositName, c.customerName, truncationLength));
    if (hits.length === 1) return { kind: 'MATCH', method, candidate: hits[0] };
    if (hits.length > 1) return { kind: 'AMBIGUOUS', method, candidates: hits };
  }
  return { kind: 'NONE' };
}
