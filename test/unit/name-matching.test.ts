import { describe, expect, it } from 'vitest';
import { decideMatch, namesMatch, removeBrackets } from '../../src/domain/deposits/name-matching.ts';
import { BANK_PROVIDERS, findBankProvider } from '../../src/domain/bank-accounts/bank-providers.ts';

describe('depositor-name matching methods', () => {
  it.each([
    ['홍길동(123)', '홍길동'],
    ['[주문]홍길동', '홍길동'],
    ['홍길동{x}', '홍길동'],
    ['홍(a)길[b]동{c}', '홍길동'],
    ['((nested))홍', '홍'],
    ['（전각）김철수', '김철수'],
  ])('removeBrackets(%j) = %j', (input, out) => expect(removeBrackets(input)).toBe(out));

  it.each([
    ['EXACT', '홍길동', '홍길동', 7, true],
    ['EXACT', '홍길동', '홍길순', 7, false],
    ['BRACKET_REMOVAL', '홍길동(123)', '홍길동', 7, true],
    ['BRACKET_REMOVAL', '홍길동', '[주문]홍길동', 7, true],
    ['BRACKET_REMOVAL', '(123)', '(456)', 7, false],
    ['NAME_PREFIX', '가나다라마바사', '가나다라마바사아자', 7, true],
    ['NAME_PREFIX', '가나다라마바', '가나다라마바사아자', 7, false],
    ['NAME_PREFIX', '가나다라마바사', '가나다라마바사', 7, false],
    ['NAME_PREFIX', '가나다라마바사', '가나다라마바차아자', 7, false],
  ] as const)('%s: deposit %j vs invoice %j (bank keeps %d) → %s', (method, d, i, len, expected) => {
    expect(namesMatch(method, d, i, len)).toBe(expected);
  });

  it('the first method with a match decides, in the order EXACT, BRACKET_REMOVAL, NAME_PREFIX', () => {
    const a = { id: 'a', customerName: '홍길동' };
    const b = { id: 'b', customerName: '홍길동(VIP)' };
    expect(decideMatch('홍길동', [b, a], 7)).toEqual({ kind: 'MATCH', method: 'EXACT', candidate: a });
    expect(decideMatch('홍길동[1]', [b], 7)).toEqual({ kind: 'MATCH', method: 'BRACKET_REMOVAL', candidate: b });
  });

  it('two candidates by the deciding method: AMBIGUOUS (no guess)', () => {
    const a = { id: 'a', customerName: '홍길동(1)' };
    const b = { id: 'b', customerName: '홍길동(2)' };
    const d = decideMatch('홍길동', [a, b], 7);
    expect(d.kind).toBe('AMBIGUOUS');
    expect(d.kind === 'AMBIGUOUS' && d.candidates.map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('no candidate: NONE', () => expect(decideMatch('김철수', [{ customerName: '홍길동' }], 7)).toEqual({ kind: 'NONE' }));

  it('seven providers in upper snake case, each with its truncation length', () => {
    expect(BANK_PROVIDERS).toHaveLength(7);
    for (const p of BANK_PROVIDERS) {
      expect(p.id).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(p.depositorNameLength).toBeGreaterThan(0);
    }
    expect(findBankProvider('SHINHAN')?.depositorNameLength).toBe(7);
  });
});
