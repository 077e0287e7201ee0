/**
 * The reconciliation screen's logic outside the browser: the CSV a spreadsheet opens (BOM, RFC 4180 quoting, formula
 * injection guarded, KST times), the Korean days of the chart and its sums over accounts, the export's bounds and
 * paging.
 */
import { describe, expect, it } from 'vitest';
import { BOM, businessNumberText, csvDocument, csvField, kstDateTime, phoneText } from '../../src/dashboard/screens/reconciliation/csv.ts';
import { addDays, axisStep, daysBetween, figuresByDay, isDay, kstDay, lastDays, totalOf } from '../../src/dashboard/screens/reconciliation/days.ts';
import { DEPOSIT_COLUMNS, exportCsv, INVOICE_COLUMNS, RECEIPT_COLUMNS, MAX_EXPORT_DAYS, rangeProblem, readAllPages } from '../../src/dashboard/screens/reconciliation/exports.ts';

describe('the CSV', () => {
  it('starts with the BOM, ends every record with CRLF, and keeps Hangul as it is', () => {
    const doc = csvDocument(['이름', '금액'], [['홍길동', 10_000]]);
    expect(doc.startsWith(BOM)).toBe(true);
    expect(BOM).toBe('\uFEFF');
    expect(doc).toBe('\uFEFF이름,금액\r\n홍길동,10000\r\n');
    // UTF-8: the BOM's three bytes, then Hangul in three bytes each.
    expect([...new TextEncoder().encode(doc).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  it('quotes a field holding a comma, a quote, CR or LF (RFC 4180), doubling its quotes', () => {
    expect(csvField('김,"철수"')).toBe('"김,""철수"""');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line 1\nline 2')).toBe('"line 1\nline 2"');
    expect(csvField('line 1\r\nline 2')).toBe('"line 1\r\nline 2"');
    expect(csvField('plain')).toBe('plain');
    expect(csvField('')).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });

  it('prefixes a text cell a spreadsheet would run as a formula with a quote (OWASP), then quotes it as needed', () => {
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvField('+82')).toBe("'+82");
    expect(csvField('-5')).toBe("'-5");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tcmd')).toBe("'\tcmd");
    expect(csvField('\r=1')).toBe(`"'\r=1"`);
    expect(csvField('=1+1,2')).toBe(`"'=1+1,2"`);
    // Only at the start: a name with a hyphen inside is left alone.
    expect(csvField('김-철수')).toBe('김-철수');
  });

  it('writes numbers as plain integers, never guarded', () => {
    expect(csvField(1_234_000)).toBe('1234000');
    expect(csvField(0)).toBe('0');
    expect(csvField(-3)).toBe('-3');
    expect(csvField(Number.NaN)).toBe('');
  });

  it('writes times as KST wall time to the second', () => {
    expect(kstDateTime('2026-11-26T06:04:05.123Z')).toBe('2026-11-26 15:04:05');
    // 15:30 UTC is already the next day in Korea.
    expect(kstDateTime('2026-11-26T15:30:00Z')).toBe('2026-11-27 00:30:00');
    expect(kstDateTime(null)).toBeNull();
  });

  it('a list file: headers in the page language, values as the API gives them', () => {
    const deposit = {
      id: 'trx_1',
      receivedAt: '2026-11-26T01:00:00Z',
      createdAt: '2026-11-26T01:00:02Z',
      description: '=cmd|"/C calc"!A0',
      amount: 12_000,
      bankAccountId: 'bac_1',
      bankAccount: { alias: '주거래, 통장', number: '1234' },
      source: 'NOTIFICATION' as const,
      matchedInvoiceId: null,
      matchMethod: null,
      hidden: false,
    };
    const ko = exportCsv('ko', DEPOSIT_COLUMNS, [deposit]).split('\r\n');
    expect(ko[0]).toBe('\uFEFFID,입금 시각(KST),기록 시각(KST),입금자명,금액(원),계좌 ID,계좌 별칭,계좌번호,수신 경로,매칭된 주문서 ID,매칭 방법,숨김');
    expect(ko[1]).toBe(`trx_1,2026-11-26 10:00:00,2026-11-26 10:00:02,"'=cmd|""/C calc""!A0",12000,bac_1,"주거래, 통장","=""1234""",NOTIFICATION,,,N`);
    const en = exportCsv('en', DEPOSIT_COLUMNS, [deposit]).split('\r\n');
    expect(en[0]).toBe('\uFEFFID,Received (KST),Recorded (KST),Depositor name,Amount (KRW),Account ID,Account alias,Account number,Source,Matched invoice ID,Match method,Hidden');
    expect(en[1]).toBe(ko[1]);
  });

  it('phone and business numbers as Koreans write them, so a spreadsheet keeps the leading 0 (text, not a number or formula)', () => {
    expect(phoneText('01012345678')).toBe('010-1234-5678');
    expect(phoneText('0111234567')).toBe('011-123-4567');
    expect(phoneText('0212345678')).toBe('02-1234-5678');
    expect(phoneText('021234567')).toBe('02-123-4567');
    expect(phoneText('0311234567')).toBe('031-123-4567');
    expect(phoneText('15881234')).toBe('1588-1234');
    expect([phoneText(null), phoneText(''), phoneText('12345'), phoneText('+821012345678')]).toEqual([null, null, '12345', '+821012345678']);
    expect(businessNumberText('1234567890')).toBe('123-45-67890');
    expect([businessNumberText(null), businessNumberText('123')]).toEqual([null, '123']);
    for (const text of ['010-1234-5678', '02-1234-5678', '123-45-67890']) expect(csvField(text)).toBe(text);
    // A bank account number, grouped differently by each bank: kept as written with a formula of digits only.
    expect(csvField({ digits: '0110123456789' })).toBe('"=""0110123456789"""');
    expect(csvField({ digits: '=1+1' })).toBe("'=1+1");
    expect(csvField({ digits: '110-123-456789' })).toBe('110-123-456789');
    const invoice = { id: 'ivc_1', number: 1, status: 'PENDING', amount: 1000, createdAt: '2026-11-26T00:00:00.000Z', expiresAt: null, paidAt: null, canceledAt: null, cancelReason: null, customer: { name: '홍길동', email: null, phoneNumber: '01012345678' } };
    expect(exportCsv('en', INVOICE_COLUMNS, [invoice as never]).split('\r\n')[1]).toContain(',010-1234-5678,1000,');
    const receipt = (type: string, identifier: string) => ({ id: 'crc_1', kind: 'ISSUE', status: 'ISSUED', type, issuedAt: null, identifier, amount: 1100, supplyCost: 1000, tax: 100, canceledAmount: 0, relatedInvoiceId: null, originalId: null, ntsConfirmNum: null });
    expect(exportCsv('en', RECEIPT_COLUMNS, [receipt('PERSONAL', '01012345678') as never]).split('\r\n')[1]).toContain(',010-1234-5678,1100,');
    expect(exportCsv('en', RECEIPT_COLUMNS, [receipt('CORPORATE', '1234567890') as never]).split('\r\n')[1]).toContain(',123-45-67890,1100,');
  });
});

describe('the Korean days of the chart', () => {
  it('a day is the Korean calendar day, whatever the zone of the clock', () => {
    expect(kstDay(new Date('2026-11-26T14:59:59Z'))).toBe('2026-11-26');
    expect(kstDay(new Date('2026-11-26T15:00:00Z'))).toBe('2026-11-27');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });

  it('the last 30 days end today in Korea, oldest first', () => {
    const days = lastDays(new Date('2026-11-26T16:00:00Z'));
    expect(days).toHaveLength(30);
    expect(days[29]).toBe('2026-11-27');
    expect(days[0]).toBe('2026-10-29');
    expect(new Set(days).size).toBe(30);
  });

  it("the API's rows (a day per account, empty days left out) become one row per day, summed, zero when absent", () => {
    const t = (count: number, amount: number) => ({ count, amount });
    const row = (date: string, account: string, auto: number, hand: number, un: number) => ({
      date,
      bankAccountId: account,
      deposits: t(auto + hand + un, (auto + hand + un) * 1000),
      matchedAutomatically: t(auto, auto * 1000),
      matchedByHand: t(hand, hand * 1000),
      unmatched: t(un, un * 1000),
    });
    const days = ['2026-11-24', '2026-11-25', '2026-11-26'];
    const figures = figuresByDay(days, [row('2026-11-26', 'bac_a', 2, 0, 1), row('2026-11-26', 'bac_b', 1, 1, 0), row('2026-11-24', 'bac_a', 0, 0, 2), row('2026-10-01', 'bac_a', 9, 9, 9)]);
    expect(figures.map((d) => d.date)).toEqual(days);
    expect(figures[2]).toEqual({ date: '2026-11-26', deposits: t(5, 5000), matchedAutomatically: t(3, 3000), matchedByHand: t(1, 1000), unmatched: t(1, 1000) });
    expect(figures[1]).toEqual({ date: '2026-11-25', deposits: t(0, 0), matchedAutomatically: t(0, 0), matchedByHand: t(0, 0), unmatched: t(0, 0) });
    // A row outside the days shown is not counted.
    expect(totalOf(figures)).toEqual({ deposits: t(7, 7000), matchedAutomatically: t(3, 3000), matchedByHand: t(1, 1000), unmatched: t(3, 3000) });
  });

  it('the axis climbs in round steps that reach the largest bar', () => {
    expect(axisStep(0)).toBe(1);
    expect(axisStep(3)).toBe(1);
    expect(axisStep(7)).toBe(2);
    expect(axisStep(17)).toBe(5);
    expect(axisStep(40)).toBe(10);
    expect(axisStep(1_234_000)).toBe(500_000);
    for (const max of [1, 9, 11, 99, 101, 12_345, 999_999]) expect(axisStep(max) * 4).toBeGreaterThanOrEqual(max);
  });
});

describe('the export', () => {
  it('a range is two real dates in order, at most MAX_EXPORT_DAYS days', () => {
    expect(rangeProblem('2026-11-01', '2026-11-30')).toBeNull();
    expect(rangeProblem('2026-11-30', '2026-11-30')).toBeNull();
    expect(rangeProblem('', '2026-11-30')).toBe('badDate');
    expect(rangeProblem('2026-02-30', '2026-03-01')).toBe('badDate');
    expect(rangeProblem('2026-12-01', '2026-11-30')).toBe('badOrder');
    expect(rangeProblem('2026-01-01', addDays('2026-01-01', MAX_EXPORT_DAYS - 1))).toBeNull();
    expect(rangeProblem('2026-01-01', addDays('2026-01-01', MAX_EXPORT_DAYS))).toBe('tooLong');
    expect(isDay('2026-11-31')).toBe(false);
    expect(daysBetween('2026-11-01', '2026-11-30')).toBe(30);
  });

  const list = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${n - i}` }));

  it('reads every page, reporting progress, and keeps a row once when a new row shifts the pages', async () => {
    let rows = list(250);
    const progress: [number, number][] = [];
    const r = await readAllPages(
      async (offset) => {
        const page = { items: rows.slice(offset, offset + 100), totalItems: rows.length };
        // A row created after the first page: the older rows move one place down.
        if (offset === 0) rows = [{ id: 'r251' }, ...rows];
        return page;
      },
      (read, total) => progress.push([read, total]),
      () => false,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.rows).toHaveLength(250);
    expect(new Set(r.rows.map((x) => x.id)).size).toBe(250);
    expect(progress).toEqual([
      [100, 250],
      [199, 251],
      [250, 251],
    ]);
  });

  it('refuses a list longer than the bound before reading it, and stops when asked', async () => {
    let reads = 0;
    const tooMany = await readAllPages(
      async () => (reads++, { items: list(100), totalItems: 30_000 }),
      () => {},
      () => false,
    );
    expect(tooMany).toEqual({ ok: false, reason: 'tooMany', total: 30_000 });
    expect(reads).toBe(1);
    const rows = list(300);
    const stopped = await readAllPages(
      async (offset) => ({ items: rows.slice(offset, offset + 100), totalItems: 300 }),
      () => {},
      () => true,
    );
    expect(stopped).toEqual({ ok: false, reason: 'stopped' });
  });
});
