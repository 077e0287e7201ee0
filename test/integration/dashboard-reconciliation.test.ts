/**
 * The Reconciliation screen in Chromium: deposits on several Korean days (bank notifications with explicit times),
 * matched automatically, by hand and not at all, on two accounts; the chart's table shows the API's
 * depositReconciliation figures, summed over the accounts or of one account; a CSV export downloaded in the browser,
 * opened and checked (BOM, headers, Hangul, amounts, RFC 4180 quoting, formula-injection guard, as many rows as the
 * API's list for the range); axe-core on each state, in Korean and English.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, isStale } from '../../scripts/build.mjs';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { won, type Lang } from '../../src/dashboard/i18n.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, noteSkippedWithoutChromium, runBrowserTests } from '../helpers/browser.ts';
import { checkPage, openDashboard } from '../helpers/dashboard.ts';

noteSkippedWithoutChromium('dashboard-reconciliation.test.ts');

/** The Korean calendar day `back` days before today. */
const kstDayBefore = (back: number) => new Date(Date.now() + 9 * 3600_000 - back * 86_400_000).toISOString().slice(0, 10);

/** A CSV file's records (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') record.push(field), (field = '');
    else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field), records.push(record), (field = ''), (record = []), i++;
    } else field += c;
  }
  expect(field === '' && record.length === 0, 'the file ends with CRLF').toBe(true);
  return records;
}

interface Tally {
  count: number;
  amount: number;
}
interface Row {
  date: string;
  bankAccountId: string;
  deposits: Tally;
  matchedAutomatically: Tally;
  matchedByHand: Tally;
  unmatched: Tally;
}
const FIGURES = ['deposits', 'matchedAutomatically', 'matchedByHand', 'unmatched'] as const;

let t: TestApp;
let m: Bootstrapped;
let second: Awaited<ReturnType<typeof addVerifiedBankAccount>>;

beforeAll(async () => {
  if (isStale()) await build();
  t = await startTestApp();
  m = await bootstrap(t.client);
  second = await addVerifiedBankAccount(t.client, m.sessionToken, { alias: '부계좌' });
  const invoice = async (name: string, amount: number) => {
    const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data as { id: string };
  };
  const deposit = async (token: string, depositorName: string, amount: number, daysBack: number) => {
    const r = await t.client.deposit(token, { depositorName, amount, receivedAt: `${kstDayBefore(daysBack)}T12:00:00+09:00` });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.transactionId as string;
  };
  // Six days ago: one matched automatically, one unmatched.
  await invoice('홍길동', 10_000);
  await deposit(m.bankAccount.notificationToken, '홍길동', 10_000, 6);
  await deposit(m.bankAccount.notificationToken, '미확인입금', 7_000, 6);
  // Three days ago: a name with a comma and quotes matched automatically; an ambiguous deposit matched by hand.
  await invoice('김,"철수"', 20_000);
  await deposit(m.bankAccount.notificationToken, '김,"철수"', 20_000, 3);
  const plain = await invoice('이순신', 33_300);
  await invoice('[주문]이순신님', 33_300);
  const ambiguous = await deposit(m.bankAccount.notificationToken, '[주문]이순신', 33_300, 3);
  await t.client.gql(`mutation($input: MatchTransactionInput!) { matchTransaction(input: $input) { transaction { id } } }`, { input: { transactionId: ambiguous, invoiceId: plain.id } }, m.sessionToken);
  // Yesterday: unmatched on both accounts, one of them a name a spreadsheet would run as a formula.
  await invoice('=1+1', 5_000);
  await deposit(m.bankAccount.notificationToken, '=SUM(A1)', 3_000, 1);
  await deposit(second.notificationToken, '두번째계좌', 4_400, 1);
}, 120_000);
afterAll(() => t?.stop());

/** The API's figures of the last 30 Korean days, summed per day (or of one account). */
async function apiFigures(bankAccountId?: string): Promise<Map<string, Omit<Row, 'date' | 'bankAccountId'>>> {
  const r = await t.client.gql<{ depositReconciliation: Row[] }>(
    `query($a: String!, $b: String!, $acc: ID) { depositReconciliation(dateAfter: $a, dateBefore: $b, bankAccountId: $acc) {
       date bankAccountId deposits { count amount } matchedAutomatically { count amount } matchedByHand { count amount } unmatched { count amount } } }`,
    { a: kstDayBefore(29), b: kstDayBefore(0), acc: bankAccountId ?? null },
    m.sessionToken,
  );
  const days = new Map<string, Omit<Row, 'date' | 'bankAccountId'>>();
  for (const row of r.depositReconciliation) {
    const day = days.get(row.date) ?? { deposits: { count: 0, amount: 0 }, matchedAutomatically: { count: 0, amount: 0 }, matchedByHand: { count: 0, amount: 0 }, unmatched: { count: 0, amount: 0 } };
    for (const f of FIGURES) (day[f].count += row[f].count), (day[f].amount += row[f].amount);
    days.set(row.date, day);
  }
  return days;
}

/** The table under the chart, read as figures per day (and the total row). */
async function tableFigures(page: Page): Promise<Record<string, Record<string, string>>> {
  return page.locator('table.recon-table tr[data-day]').evaluateAll((rows) =>
    Object.fromEntries(rows.map((r) => [r.getAttribute('data-day'), Object.fromEntries([...r.querySelectorAll('td[data-figure]')].map((td) => [td.getAttribute('data-figure'), td.textContent]))])),
  );
}

/** What the table must show for the API's figures, in `lang`. */
function expectedTable(lang: Lang, days: Map<string, Omit<Row, 'date' | 'bankAccountId'>>): Record<string, Record<string, string>> {
  const cells = (d: Omit<Row, 'date' | 'bankAccountId'>) => Object.fromEntries(FIGURES.flatMap((f) => [[`${f}.count`, String(d[f].count)], [`${f}.amount`, won(lang, d[f].amount)]]));
  const total = { deposits: { count: 0, amount: 0 }, matchedAutomatically: { count: 0, amount: 0 }, matchedByHand: { count: 0, amount: 0 }, unmatched: { count: 0, amount: 0 } };
  for (const d of days.values()) for (const f of FIGURES) (total[f].count += d[f].count), (total[f].amount += d[f].amount);
  return { ...Object.fromEntries([...days].map(([date, d]) => [date, cells(d)])), total: cells(total) };
}

describe.skipIf(!runBrowserTests)('the Reconciliation screen in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('Korean: the chart and its table show the API figures, of all accounts or one; an invoice CSV downloads, opens in order', async () => {
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'ko-KR', path: '/dashboard/reconciliation' });
    await page.getByRole('heading', { name: '입금 현황' }).waitFor();
    const all = await apiFigures();
    // The data set: three days, every outcome among them, both accounts summed.
    expect([...all.keys()].sort()).toEqual([kstDayBefore(6), kstDayBefore(3), kstDayBefore(1)].sort());
    expect(all.get(kstDayBefore(3))).toEqual({ deposits: { count: 2, amount: 53_300 }, matchedAutomatically: { count: 1, amount: 20_000 }, matchedByHand: { count: 1, amount: 33_300 }, unmatched: { count: 0, amount: 0 } });
    expect(all.get(kstDayBefore(1))?.unmatched).toEqual({ count: 2, amount: 7_400 });
    await page.locator('table.recon-table tfoot tr[data-day="total"]').waitFor();
    expect(await tableFigures(page)).toEqual(expectedTable('ko', all));
    // The chart: an image with a summary, a bar segment per outcome with its figure as a tooltip.
    const chart = page.getByRole('img', { name: /^최근 30일 입금/ });
    expect(await chart.getAttribute('aria-label')).toContain(`입금 6건 (${won('ko', 77_700)})`);
    expect(await page.locator(`svg.recon-chart g[data-day="${kstDayBefore(3)}"] rect title`).allTextContents()).toEqual([
      `${kstDayBefore(3)}: 입금 2건 (53,300원)`,
      `${kstDayBefore(3)} · 자동 매칭: 1건 (20,000원)`,
      `${kstDayBefore(3)} · 수동 매칭: 1건 (33,300원)`,
    ]);
    expect(await page.locator('svg.recon-chart g[data-day] rect[fill="#bc4c00"]').count()).toBe(2);
    await checkPage(page, 'reconciliation-chart-ko');

    // One account: the second's one deposit only.
    await page.getByLabel('계좌').selectOption({ label: `부계좌 (${second.number})` });
    const one = await apiFigures(second.id);
    expect([...one.keys()]).toEqual([kstDayBefore(1)]);
    await page.waitForFunction(() => document.querySelectorAll('table.recon-table tbody tr').length === 1);
    expect(await tableFigures(page)).toEqual(expectedTable('ko', one));

    // Amounts on the chart's axis.
    await page.getByLabel('차트 기준').selectOption('amount');
    await page.locator('svg.recon-chart text', { hasText: '원' }).first().waitFor();
    await checkPage(page, 'reconciliation-amounts-ko');

    // The invoices of the last week, as a file.
    const from = kstDayBefore(7);
    const to = kstDayBefore(0);
    await page.getByLabel('내보낼 항목').selectOption('invoices');
    await page.getByLabel('시작일 (KST)').fill(from);
    await page.getByLabel('종료일 (KST)').fill(to);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV 내려받기' }).click()]);
    expect(download.suggestedFilename()).toBe(`invoices_${from}_${to}.csv`);
    const bytes = readFileSync((await download.path())!);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text).toContain('\r\n');
    const records = parseCsv(text.slice(1));
    expect(records[0]).toEqual(['ID', '번호', '상태', '입금자명', '이메일', '전화번호', '금액(원)', '생성 시각(KST)', '만료 시각(KST)', '입금 완료 시각(KST)', '취소 시각(KST)', '취소 사유']);
    const listed = await t.client.gql<{ invoicePage: { totalItems: number; items: { id: string; customer: { name: string }; amount: number; status: string; createdAt: string }[] } }>(
      `query($f: InvoiceFilter) { invoicePage(offset: 0, limit: 100, filter: $f) { totalItems items { id customer { name } amount status createdAt } } }`,
      { f: { dateAfter: from, dateBefore: to } },
      m.sessionToken,
    );
    expect(records.length - 1).toBe(listed.invoicePage.totalItems);
    expect(listed.invoicePage.totalItems).toBe(5);
    const byId = new Map(records.slice(1).map((r) => [r[0], r]));
    for (const i of listed.invoicePage.items) {
      const r = byId.get(i.id)!;
      // The Hangul names intact; '=1+1' guarded with a quote so no spreadsheet runs it.
      expect([r[2], r[3], r[6], r[7]]).toEqual([i.status, i.customer.name.startsWith('=') ? `'${i.customer.name}` : i.customer.name, String(i.amount), new Date(new Date(i.createdAt).getTime() + 9 * 3600_000).toISOString().slice(0, 19).replace('T', ' ')]);
    }
    expect(records.map((r) => r[3])).toEqual(expect.arrayContaining(['홍길동', '김,"철수"', '[주문]이순신님', "'=1+1"]));
    // RFC 4180 in the raw text: the comma and quotes inside one quoted field.
    expect(text).toContain(',"김,""철수""",');
    expect(text).toContain(",'=1+1,");
    await page.getByRole('status').filter({ hasText: `invoices_${from}_${to}.csv (5 행)` }).waitFor();
    await checkPage(page, 'reconciliation-exported-ko');
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('English: a deposit CSV with every deposit the API lists for the range; a wrong range is refused in words', async () => {
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: '/dashboard/reconciliation' });
    await page.getByRole('heading', { name: 'Reconciliation' }).waitFor();
    await page.locator('table.recon-table tfoot tr[data-day="total"]').waitFor();
    expect(await tableFigures(page)).toEqual(expectedTable('en', await apiFigures()));
    await checkPage(page, 'reconciliation-chart-en');

    // A range backwards: a message, no file.
    await page.getByLabel('What to export').selectOption('deposits');
    await page.getByLabel('From (KST)').fill(kstDayBefore(0));
    await page.getByLabel('To (KST)').fill(kstDayBefore(2));
    await page.getByRole('button', { name: 'Download CSV' }).click();
    await page.getByRole('alert').filter({ hasText: 'The first day is after the last.' }).waitFor();
    await checkPage(page, 'reconciliation-bad-range-en');

    const from = kstDayBefore(2);
    const to = kstDayBefore(0);
    await page.getByLabel('From (KST)').fill(from);
    await page.getByLabel('To (KST)').fill(to);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const bytes = readFileSync((await download.path())!);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const records = parseCsv(bytes.toString('utf8').slice(1));
    expect(records[0]).toEqual(['ID', 'Received (KST)', 'Recorded (KST)', 'Depositor name', 'Amount (KRW)', 'Account ID', 'Account alias', 'Account number', 'Source', 'Matched invoice ID', 'Match method', 'Hidden']);
    // The list's filter is the day the service recorded a deposit (today for all of them here, whatever their bank time).
    const listed = await t.client.gql<{ transactionPage: { totalItems: number; items: { id: string; description: string; amount: number; receivedAt: string; matchMethod: string | null }[] } }>(
      `query($f: TransactionFilter) { transactionPage(offset: 0, limit: 100, filter: $f) { totalItems items { id description amount receivedAt matchMethod } } }`,
      { f: { dateAfter: from, dateBefore: to } },
      m.sessionToken,
    );
    expect(records.length - 1).toBe(listed.transactionPage.totalItems);
    // Six deposits and the two accounts' 1-won verifications (hidden, listed all the same).
    expect(listed.transactionPage.totalItems).toBe(8);
    const byId = new Map(records.slice(1).map((r) => [r[0], r]));
    for (const d of listed.transactionPage.items) {
      const r = byId.get(d.id)!;
      expect([r[1], r[3], r[4], r[10]]).toEqual([
        new Date(new Date(d.receivedAt).getTime() + 9 * 3600_000).toISOString().slice(0, 19).replace('T', ' '),
        d.description.startsWith('=') ? `'${d.description}` : d.description,
        String(d.amount),
        d.matchMethod ?? '',
      ]);
    }
    expect(records.find((r) => r[3] === '김,"철수"')?.slice(1, 2)).toEqual([`${kstDayBefore(3)} 12:00:00`]);
    expect(records.find((r) => r[3] === "'=SUM(A1)")?.[4]).toBe('3000');
    await page.getByRole('status').filter({ hasText: `deposits_${from}_${to}.csv (8 rows)` }).waitFor();
    await checkPage(page, 'reconciliation-exported-en');
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
