/**
 * The dashboard's Deposits screen in Chromium (README, "The dashboard"): the list's filters in the address give what the
 * API gives for the same filters, paged by the server, and a new deposit appears by itself; un-match (refused while
 * another pending invoice is alike, INVOICE_ALREADY_EXISTS explained; then the invoice is pending again), hide and
 * unhide; a bank text no parser read entered by hand pays an invoice, another is dismissed; a simulated history feed
 * connected, paused, resumed, polled now and disconnected. axe-core on each page in Korean and English. Also the API
 * additions it uses, through GraphQL: the source and amount filters, the open bank texts, the offered aggregators.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, noteSkippedWithoutChromium, runBrowserTests } from '../helpers/browser.ts';
import { checkPage, openDashboard } from '../helpers/dashboard.ts';
import { build, isStale } from '../../scripts/build.mjs';

noteSkippedWithoutChromium('dashboard-deposits.test.ts');

let t: TestApp;
let m: Bootstrapped;
/** A second verified account of the workspace (the account filter, the feed). */
let second: Awaited<ReturnType<typeof addVerifiedBankAccount>>;

beforeAll(async () => {
  if (isStale()) await build();
  t = await startTestApp();
  m = await bootstrap(t.client);
  second = await addVerifiedBankAccount(t.client, m.sessionToken, { alias: 'second' });
}, 120_000);
afterAll(() => t?.stop());

const invoice = async (name: string, amount: number) => {
  const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const id = r.body.data.id as string;
  return { id, number: (await gql<{ invoice: { number: number } }>(`query($id: ID!) { invoice(id: $id) { number } }`, { id })).invoice.number };
};
const deposit = async (name: string, amount: number, token = m.bankAccount.notificationToken) => {
  const r = await t.client.deposit(token, { depositorName: name, amount });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.transactionId as string;
};
/** A forwarded text; `text` decides what the service makes of it. */
const bankText = async (text: string) => {
  const r = await t.client.request('POST', '/bank-texts', { token: m.bankAccount.notificationToken, body: { text, receivedAt: new Date().toISOString(), channel: 'SMS', sender: '15778000' } });
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body as { outcome: string; bankTextId: string; transactionId: string | null };
};
/** A Shinhan deposit SMS (the format the parser reads) for the bootstrapped account, at the current KST minute. */
const shinhanDepositText = (name: string, amount: number, balance: number) => {
  const k = new Date(Date.now() + 9 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `[Web발신]\n신한${p(k.getUTCMonth() + 1)}/${p(k.getUTCDate())} ${p(k.getUTCHours())}:${p(k.getUTCMinutes())}\n${m.bankAccount.number}\n입금 ${amount.toLocaleString('en-US')}\n잔액 ${balance.toLocaleString('en-US')}\n ${name}`;
};
const gql = <T = Record<string, any>>(query: string, variables: Record<string, unknown> = {}) => t.client.gql<T>(query, variables, m.sessionToken);
/** The API's first page (20, the dashboard's page size) for `filter`. */
const apiPage = async (filter: Record<string, unknown>) =>
  (await gql<{ transactionPage: { totalItems: number; items: { id: string }[] } }>(`query($f: TransactionFilter) { transactionPage(offset: 0, limit: 20, filter: $f) { totalItems items { id } } }`, { f: filter }))
    .transactionPage;
const todayKst = () => new Date(Date.now() + 9 * 3600_000).toISOString().slice(0, 10);

describe(`the Deposits screen's API additions on ${dbLabel}`, () => {
  it('deposits filtered by how they arrived and by amount, through the same list as the REST filters', async () => {
    const viaText = await bankText(shinhanDepositText('필터문자', 44_100, 1_044_100));
    expect(viaText.outcome).toBe('DEPOSIT');
    const notified = await deposit('필터알림', 44_100);
    const other = await deposit('필터다른', 44_200, second.notificationToken);
    const byText = await apiPage({ source: 'TEXT' });
    expect(byText.items.map((x) => x.id)).toContain(viaText.transactionId);
    expect(byText.items.map((x) => x.id)).not.toContain(notified);
    const byAmount = await apiPage({ amount: 44_100 });
    expect(byAmount.items.map((x) => x.id).sort()).toEqual([viaText.transactionId, notified].sort());
    expect(byAmount.totalItems).toBe(2);
    // Combined with the REST filters (account, matched, hidden, search), as one list.
    expect((await apiPage({ amount: 44_200, bankAccountId: second.id, matched: false, hidden: false, search: '필터' })).items.map((x) => x.id)).toEqual([other]);
    expect((await apiPage({ source: 'NOTIFICATION', amount: 44_100 })).items.map((x) => x.id)).toEqual([notified]);
    const bad = await t.client.graphql(`{ transactionPage(offset: 0, limit: 20, filter: { amount: 0 }) { totalItems } }`, {}, m.sessionToken);
    expect(bad.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('the open bank texts are the ones still to deal with; the aggregators offered are the configured ones', async () => {
    const unread = await bankText('API 추가 확인용 문자입니다');
    expect(unread.outcome).toBe('UNRECOGNIZED');
    const open = async (value: boolean) => (await gql<{ bankTexts: { id: string; resolution: string | null; outcome: string }[] }>(`query($o: Boolean) { bankTexts(open: $o, first: 100) { id resolution outcome } }`, { o: value })).bankTexts;
    expect((await open(true)).map((x) => x.id)).toContain(unread.bankTextId);
    expect((await open(true)).every((x) => ['UNRECOGNIZED', 'REFUSED'].includes(x.outcome) && x.resolution === null)).toBe(true);
    await gql(`mutation($id: ID!) { dismissBankText(id: $id) { __typename } }`, { id: unread.bankTextId });
    expect((await open(true)).map((x) => x.id)).not.toContain(unread.bankTextId);
    expect((await open(false)).find((x) => x.id === unread.bankTextId)).toMatchObject({ resolution: 'DISMISSED' });
    expect(await gql(`{ historyAggregators }`)).toEqual({ historyAggregators: ['SIMULATED'] });
  });
});

describe.skipIf(!runBrowserTests)(`the Deposits screen in Chromium on ${dbLabel}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const shownIds = (page: Page) => page.locator('tr[data-transaction-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-transaction-id')));
  /** The page shows, for the filter in its address, the API's first page and total for `filter`. */
  const showsApiAnswer = async (page: Page, filter: Record<string, unknown>) => {
    const api = await apiPage(filter);
    await expect.poll(() => shownIds(page), { timeout: 10_000 }).toEqual(api.items.map((x) => x.id));
    expect(await page.getByRole('navigation', { name: 'Deposits', exact: true }).innerText()).toMatch(new RegExp(`Total ${api.totalItems}\\b`));
    return api;
  };
  const switchLanguage = async (page: Page, from: string, to: 'ko' | 'en') => {
    await page.getByLabel(from).selectOption(to);
  };

  it('the list: filters in the address as the API answers them, a new deposit live, un-match, hide and unhide', async () => {
    // An unmatched deposit on each account, one of them today's; one matched.
    const unmatchedA = await deposit('목록미매칭', 45_100);
    const unmatchedB = await deposit('목록둘째', 45_200, second.notificationToken);
    const paidInvoice = await invoice('목록매칭', 45_300);
    const matched = await deposit('목록매칭', 45_300);
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: '/dashboard/deposits' });
    await page.getByRole('heading', { name: 'Deposits', exact: true }).waitFor();
    // The default list: what the API gives for "not hidden".
    await showsApiAnswer(page, { hidden: false });
    await checkPage(page, 'deposits-list-en');

    // Unmatched deposits of the second account, through the form: in the address, and the API's answer.
    const filters = page.getByRole('form', { name: 'Deposit filters' });
    await filters.getByLabel(/^Matching/).selectOption('false');
    await filters.getByLabel(/^Account/).selectOption(second.id);
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((u) => u.searchParams.get('matched') === 'false' && u.searchParams.get('bankAccountId') === second.id);
    const onSecond = await showsApiAnswer(page, { matched: false, hidden: false, bankAccountId: second.id });
    expect(onSecond.items.map((x) => x.id)).toContain(unmatchedB);
    expect(onSecond.items.map((x) => x.id)).not.toContain(unmatchedA);
    // Today in KST, a depositor name, an amount and a source; the address alone (a reload) gives the same list.
    await page.goto(`${t.url}/dashboard/deposits`);
    await filters.getByLabel('From (KST)', { exact: true }).fill(todayKst());
    await filters.getByLabel('Until (KST)', { exact: true }).fill(todayKst());
    await filters.getByLabel('Depositor, account number or id', { exact: true }).fill('목록');
    await filters.getByLabel('Amount (won)', { exact: true }).fill('45300');
    await filters.getByLabel(/^Source/).selectOption('NOTIFICATION');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((u) => u.searchParams.get('amount') === '45300');
    const narrow = { hidden: false, dateAfter: todayKst(), dateBefore: todayKst(), search: '목록', amount: 45_300, source: 'NOTIFICATION' };
    expect((await showsApiAnswer(page, narrow)).items.map((x) => x.id)).toEqual([matched]);
    await page.reload();
    await showsApiAnswer(page, narrow);
    expect(await filters.getByLabel('Amount (won)', { exact: true }).inputValue()).toBe('45300');
    // A date the API cannot read, an amount that is not one: said in the page.
    await page.goto(`${t.url}/dashboard/deposits?amount=12x`);
    await page.getByRole('alert').filter({ hasText: 'The amount must be a whole number of won' }).waitFor();
    await page.goto(`${t.url}/dashboard/deposits?dateAfter=2026-13-45`);
    await page.getByRole('alert').filter({ hasText: 'Could not read the deposits' }).waitFor();

    // Live: a deposit made while the list is open appears by itself.
    await page.goto(`${t.url}/dashboard/deposits`);
    await showsApiAnswer(page, { hidden: false });
    const subscribed = new Promise<void>((resolve) => page.on('websocket', (ws) => ws.on('framesent', (f) => String(f.payload).includes('"type":"subscribe"') && resolve())));
    await page.reload();
    await subscribed;
    const live = await deposit('실시간입금', 45_400);
    await page.locator(`tr[data-transaction-id="${live}"]`).waitFor({ timeout: 10_000 });

    // Un-match while another pending invoice has the same name and amount: refused, and said why.
    const twin = await invoice('목록매칭', 45_300);
    const row = page.locator(`tr[data-transaction-id="${matched}"]`);
    await row.getByRole('button', { name: /^Un-match: 목록매칭/ }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'INVOICE_ALREADY_EXISTS' });
    await refusal.waitFor();
    expect(await refusal.innerText()).toContain(`Pending invoice #${twin.number} has the same name and amount`);
    expect((await t.client.request('GET', `/v1/invoices/${paidInvoice.id}`, { token: m.apiKey.secret })).body.data.paid).toBe(true);
    // With the twin canceled, the un-match goes through: the invoice is pending again (REST).
    expect((await t.client.request('DELETE', `/v1/invoices/${twin.id}`, { token: m.apiKey.secret })).status).toBe(200);
    await row.getByRole('button', { name: /^Un-match: 목록매칭/ }).click();
    await page.getByRole('status').filter({ hasText: 'the invoice is pending again' }).waitFor();
    await row.locator('td[data-matched="false"]').waitFor();
    const released = await t.client.request('GET', `/v2/invoices/${paidInvoice.id}`, { token: m.apiKey.secret });
    expect([released.body.data.status, released.body.data.paidAt ?? null]).toEqual(['PENDING', null]);

    // Hide: gone from the default list (the API says hidden); shown among the hidden, where unhide brings it back.
    await page.locator(`tr[data-transaction-id="${unmatchedA}"]`).getByRole('button', { name: /^Hide: 목록미매칭/ }).click();
    await page.locator(`tr[data-transaction-id="${unmatchedA}"]`).waitFor({ state: 'detached' });
    expect((await gql(`query($id: ID!) { transaction(id: $id) { hidden } }`, { id: unmatchedA })).transaction.hidden).toBe(true);
    await filters.getByLabel(/^Hidden/).selectOption('true');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await showsApiAnswer(page, { hidden: true });
    await page.locator(`tr[data-transaction-id="${unmatchedA}"]`).getByRole('button', { name: /^Unhide: 목록미매칭/ }).click();
    await page.locator(`tr[data-transaction-id="${unmatchedA}"]`).waitFor({ state: 'detached' });
    expect((await gql(`query($id: ID!) { transaction(id: $id) { hidden } }`, { id: unmatchedA })).transaction.hidden).toBe(false);
    await page.goto(`${t.url}/dashboard/deposits`);
    await page.locator(`tr[data-transaction-id="${unmatchedA}"]`).waitFor();

    await switchLanguage(page, 'Language', 'ko');
    await page.getByRole('heading', { name: '입금 내역', exact: true }).waitFor();
    await checkPage(page, 'deposits-list-ko');
    expect(foreign, 'requests to other origins').toEqual([]);
    // The expected console errors: the browser's reports of the API's refusals (HTTP 4xx: the bad date).
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
    await context.close();
  }, 90_000);

  it('bank texts: one no parser read entered by hand pays its invoice, another dismissed', async () => {
    const target = await invoice('문자입력', 46_100);
    const toEnter = await bankText('[국민] 문자입력님이 46,100원 보냄 (형식 모름)');
    const toDismiss = await bankText('내일 회의 10시로 변경되었습니다');
    expect([toEnter.outcome, toDismiss.outcome]).toEqual(['UNRECOGNIZED', 'UNRECOGNIZED']);
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'ko-KR', path: '/dashboard/deposits/texts' });
    await page.getByRole('heading', { name: '읽지 못한 은행 문자' }).waitFor();
    const entering = page.getByRole('article').filter({ hasText: '문자입력님이 46,100원' });
    await entering.waitFor();
    await checkPage(page, 'deposits-texts-ko');
    // An amount that is not one: said, and nothing sent.
    await entering.getByLabel('금액 (원)').fill('사만');
    await entering.getByLabel('입금자명').fill('문자입력');
    await entering.getByRole('button', { name: '입금으로 입력' }).click();
    await entering.getByRole('alert').filter({ hasText: '금액은 1원 이상의 정수' }).waitFor();
    await entering.getByLabel('금액 (원)').fill('46,100');
    await entering.getByRole('button', { name: '입금으로 입력' }).click();
    await page.getByRole('status').filter({ hasText: `주문서 #${target.number} 입금 완료` }).waitFor();
    await entering.waitFor({ state: 'detached' });
    expect((await t.client.request('GET', `/v1/invoices/${target.id}`, { token: m.apiKey.secret })).body.data.paid).toBe(true);
    const texts = async () => (await gql<{ bankTexts: { id: string; resolution: string | null; transactionId: string | null }[] }>(`{ bankTexts(first: 100) { id resolution transactionId } }`)).bankTexts;
    const entered = (await texts()).find((x) => x.id === toEnter.bankTextId)!;
    expect(entered.resolution).toBe('ENTERED');
    const paidBy = await gql(`query($id: ID!) { transaction(id: $id) { amount description source matchedInvoiceId } }`, { id: entered.transactionId });
    expect(paidBy.transaction).toEqual({ amount: 46_100, description: '문자입력', source: 'TEXT', matchedInvoiceId: target.id });

    const dismissing = page.getByRole('article').filter({ hasText: '내일 회의 10시로 변경되었습니다' });
    await dismissing.getByRole('button', { name: '입금 아님 (확인)' }).click();
    await page.getByRole('status').filter({ hasText: '문자를 확인 처리했습니다.' }).waitFor();
    await dismissing.waitFor({ state: 'detached' });
    expect((await texts()).find((x) => x.id === toDismiss.bankTextId)).toMatchObject({ resolution: 'DISMISSED', transactionId: null });
    await page.getByText('처리할 문자가 없습니다.').waitFor();

    await switchLanguage(page, '언어', 'en');
    await page.getByRole('heading', { name: 'Unread bank texts' }).waitFor();
    // One open text again, for the English page's check with a form on it.
    await bankText('English page check text, unreadable');
    await page.reload();
    await page.getByRole('article').first().waitFor();
    await checkPage(page, 'deposits-texts-en');
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('deposit feeds: a simulated feed connected, paused, resumed, polled now and disconnected', async () => {
    const feeds = async () => (await gql<{ historyFeeds: { id: string; bankAccountId: string; state: string; lastPolledAt: string | null }[] }>(`{ historyFeeds { id bankAccountId state lastPolledAt } }`)).historyFeeds;
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: '/dashboard/deposits/feeds' });
    await page.getByRole('heading', { name: 'Deposit feeds' }).waitFor();
    await page.getByText('No feed connected yet.').waitFor();
    const connect = page.getByRole('form', { name: 'Connect an account' });
    await connect.getByLabel(/^Account/).selectOption(second.id);
    expect(await connect.getByLabel(/^Aggregator/).locator('option').allInnerTexts()).toEqual(['Simulated (for trying out)']);
    await connect.getByRole('button', { name: 'Connect' }).click();
    await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
    const [feed] = await feeds();
    expect(feed).toMatchObject({ bankAccountId: second.id, state: 'ACTIVE' });
    const row = page.locator(`tr[data-feed-id="${feed!.id}"]`);
    await row.locator('td[data-state="ACTIVE"]').waitFor();
    await checkPage(page, 'deposits-feeds-en');

    await row.getByRole('button', { name: /^Pause: second/ }).click();
    await row.locator('td[data-state="PAUSED"]').waitFor();
    expect((await feeds())[0]!.state).toBe('PAUSED');
    expect(await row.getByRole('button', { name: /^Poll now/ }).isDisabled()).toBe(true);
    const pausedPoll = (await feeds())[0]!.lastPolledAt;
    await row.getByRole('button', { name: /^Resume: second/ }).click();
    await row.locator('td[data-state="ACTIVE"]').waitFor();
    expect((await feeds())[0]!.state).toBe('ACTIVE');
    // The resume's own poll runs at once: poll now once it is done (a poll already running is refused, CONFLICT).
    await expect.poll(async () => (await feeds())[0]!.lastPolledAt, { timeout: 10_000 }).not.toBe(pausedPoll);
    const before = Date.now();
    await row.getByRole('button', { name: /^Poll now: second/ }).click();
    await page.getByRole('status').filter({ hasText: /^Polled: \d+ deposit rows, \d+ new$/ }).waitFor();
    expect(new Date((await feeds())[0]!.lastPolledAt!).getTime()).toBeGreaterThanOrEqual(before - 1000);

    await switchLanguage(page, 'Language', 'ko');
    await page.getByRole('heading', { name: '입금 내역 조회 연결' }).waitFor();
    await checkPage(page, 'deposits-feeds-ko');
    await row.getByRole('button', { name: /^연결 해제: second/ }).click();
    await page.getByText('연결된 거래내역 조회가 없습니다.').waitFor();
    expect(await feeds()).toEqual([]);
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
