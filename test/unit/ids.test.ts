import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, idKindOf, isId, newId, randomAlnum, type IdKind } from '../../src/domain/ids.ts';

describe('identifiers (spec: prefix + 24 characters of [a-z0-9])', () => {
  it.each(Object.entries(ID_PREFIXES))('%s ids are %s + 24 lowercase letters and digits', (kind, prefix) => {
    const id = newId(kind as keyof typeof ID_PREFIXES);
    expect(id).toMatch(new RegExp(`^${prefix}[a-z0-9]{24}$`));
    expect(isId(kind as keyof typeof ID_PREFIXES, id)).toBe(true);
  });

  it('ids do not repeat (10,000 draws)', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => newId('invoice')));
    expect(seen.size).toBe(10_000);
  });

  it('every character of the alphabet appears and nothing else (no modulo bias towards a subset)', () => {
    const s = randomAlnum(36_000);
    const counts = new Map<string, number>();
    for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe('0123456789abcdefghijklmnopqrstuvwxyz');
    for (const n of counts.values()) expect(n).toBeGreaterThan(700);
  });

  it.each([
    ['invoice', 'ivc_abc', false],
    ['invoice', 'trx_' + 'a'.repeat(24), false],
    ['invoice', 'ivc_' + 'A'.repeat(24), false],
    ['invoice', 'ivc_' + 'a'.repeat(25), false],
    ['invoice', 'ivc_' + 'a'.repeat(24), true],
    ['transaction', 12345, false],
  ] as const)('isId(%s, %s) = %s', (kind, value, expected) => {
    expect(isId(kind, value)).toBe(expected);
  });

  it.each(Object.keys(ID_PREFIXES) as IdKind[])('idKindOf reads %s back from its prefix', (kind) => {
    expect(idKindOf(newId(kind))).toBe(kind);
  });

  it.each(['xyz_' + 'a'.repeat(24), 'ivc' + 'a'.repeat(24), '', 'ivcx_abc', '_abc'])('idKindOf(%j) is null (no known prefix)', (value) => {
    expect(idKindOf(value)).toBeNull();
  });
});
