/** The identity of a deposit announced by text or history, and the window a history poll reads. */
import { describe, expect, it } from 'vitest';
import { announcedDepositIdentity, namesMayBeOne } from '../../src/domain/deposits/announced-deposits.ts';
import { MAX_LOOKBACK_DAYS, pollWindow } from '../../src/domain/deposits/history/history-polling.ts';
import { storableText } from '../../src/domain/validation.ts';

const at = new Date('2026-07-04T06:18:25Z');
const base = { amount: 10_000, depositorName: '홍길동', occurredAt: at, balanceAfter: 3_710_000 };

describe('announcedDepositIdentity', () => {
  it('is the account, amount, minute and balance: the name does not count when the balance is known', () => {
    const id = announcedDepositIdentity('bac_1', base);
    expect(id).toMatch(/^dep:[0-9a-f]{40}$/);
    expect(announcedDepositIdentity('bac_1', { ...base, depositorName: '홍길' })).toBe(id);
    expect(announcedDepositIdentity('bac_1', { ...base, occurredAt: new Date('2026-07-04T06:18:59.999Z') })).toBe(id);
    expect(announcedDepositIdentity('bac_1', { ...base, occurredAt: new Date('2026-07-04T06:19:00Z') })).not.toBe(id);
    expect(announcedDepositIdentity('bac_1', { ...base, balanceAfter: 3_710_001 })).not.toBe(id);
    expect(announcedDepositIdentity('bac_1', { ...base, amount: 10_001 })).not.toBe(id);
    expect(announcedDepositIdentity('bac_2', base)).not.toBe(id);
  });

  it('is the name (in its comparison form) when the bank gave no balance', () => {
    const id = announcedDepositIdentity('bac_1', { ...base, balanceAfter: null });
    expect(id).not.toBe(announcedDepositIdentity('bac_1', base));
    // NFD Hangul and full-width Latin compare as their NFC / ASCII forms do.
    expect(announcedDepositIdentity('bac_1', { ...base, depositorName: '홍길동'.normalize('NFD'), balanceAfter: null })).toBe(id);
    expect(announcedDepositIdentity('bac_1', { ...base, depositorName: '김철수', balanceAfter: null })).not.toBe(id);
    expect(announcedDepositIdentity('bac_1', { ...base, depositorName: 'ＫＩＭ', balanceAfter: null })).toBe(announcedDepositIdentity('bac_1', { ...base, depositorName: 'kim', balanceAfter: null }));
  });

  it('a zero balance is a balance, not a missing one', () => {
    expect(announcedDepositIdentity('bac_1', { ...base, balanceAfter: 0 })).not.toBe(announcedDepositIdentity('bac_1', { ...base, balanceAfter: null }));
  });
});

describe('pollWindow', () => {
  const now = new Date('2026-11-26T01:00:00Z'); // 10:00 KST
  it('reads from the Korean day before the last complete poll to today', () => {
    expect(pollWindow({ lastPolledAt: new Date('2026-11-25T16:30:00Z'), createdAt: new Date('2026-01-01T00:00:00Z') }, now)).toEqual({ from: '2026-11-25', to: '2026-11-26' });
  });
  it('a feed never polled reads from the day before it was connected', () => {
    expect(pollWindow({ lastPolledAt: null, createdAt: new Date('2026-11-20T03:00:00Z') }, now)).toEqual({ from: '2026-11-19', to: '2026-11-26' });
  });
  it(`reads at most ${MAX_LOOKBACK_DAYS} days back, however long the feed was stopped`, () => {
    expect(pollWindow({ lastPolledAt: new Date('2025-01-01T00:00:00Z'), createdAt: new Date('2025-01-01T00:00:00Z') }, now)).toEqual({ from: '2026-10-26', to: '2026-11-26' });
  });
});

describe('namesMayBeOne', () => {
  it('equal names, in their comparison form', () => {
    expect(namesMayBeOne('홍길동', '홍길동'.normalize('NFD'))).toBe(true);
    expect(namesMayBeOne('ＫＩＭ', 'kim')).toBe(true);
  });
  it('one name cut short of the other, keeping at least three characters', () => {
    expect(namesMayBeOne('홍길동(테스트상', '홍길동(테스트상점)')).toBe(true);
    expect(namesMayBeOne('홍길동(테스트상점)', '홍길동(테스트상')).toBe(true);
    expect(namesMayBeOne('홍길', '홍길동')).toBe(false);
    expect(namesMayBeOne('홍길동', '홍길순')).toBe(false);
    expect(namesMayBeOne('길동', '홍길동')).toBe(false);
  });
});

describe('storableText (a history row\'s name, a shop order\'s text)', () => {
  it('drops what no database stores, and cuts at 100 characters', () => {
    expect(storableText('bad\u0000name', 100)).toBe('badname');
    expect(storableText('a\uD800b', 100)).toBe('ab');
    expect(storableText('  홍길동\n', 100)).toBe('홍길동');
    expect([...storableText('가'.repeat(300), 100)]).toHaveLength(100);
    expect(storableText(42, 100)).toBe('');
  });
});
