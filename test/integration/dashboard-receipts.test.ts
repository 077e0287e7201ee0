/**
 * The dashboard's Cash receipts section, in Chromium: a paid invoice's receipt issued from the form, PENDING until the
 * simulated agency answers (the service's clock moved past its delay) and ISSUED on the open page by itself; a partial
 * cancel (the cancellation receipt and the original's remaining amount checked through the API), then a full one; the
 * receipt e-mailed (the simulated agency's mail lands in the outbox the `emails` query lists); a receipt the tax
 * authority rejects, reissued with a corrected number; refusals in words; the list's filters in the address; axe-core
 * on every page, Korean and English.
 * Before the browser, the GraphQL the section added: issueInvoiceCashReceipt and its rules.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, noteSkippedWithoutChromium, runBrowserTests } from '../helpers/browser.ts';
import { checkPage, openDashboard } from '../helpers/dashboard.ts';
import { eventually, until } from '../helpers/wait.ts';
import { build, isStale } from '../../scripts/build.mjs';

noteSkippedWithoutChromium('dashboard-receipts.test.ts');

const RECEIPT = `id status kind amount supplyCost tax canceledAmount remainingAmount partial relatedInvoiceId reissuedFromId reissuedToId
  cancellations { id kind amount supplyCost tax partial originalId cancelReason }`;
const ISSUE = `mutation($i: IssueInvoiceCashReceiptInput!) { issueInvoiceCashReceipt(input: $i) {
  __typename ... on CashReceiptPayload { cashReceipt { ${RECEIPT} } } ... on DomainError { code data } } }`;

/**
 * The simulated tax authority answers this long after issuing, on the service's clock: never by itself during a test,
 * so a receipt stays PENDING (the page shows it) until the test moves the clock past it (agencyAnswers).
 */
const AGENCY_DELAY_MS = 600_000;
const clock = new OffsetClock();
let t: TestApp;
let m: Bootstrapped;
let noBiz: Bootstrapped;
beforeAll(async () => {
  if (isStale()) await build();
  t = await startTestApp({ clock, env: { AGENCY_SIM_DELAY_MS: String(AGENCY_DELAY_MS) } });
  [m, noBiz] = await Promise.all([bootstrap(t.client), bootstrap(t.client, { businessInfo: false })]);
}, 120_000);
afterAll(() => t?.stop());

/** An invoice of `who`'s, paid by mark-as-paid unless `paid` is false. */
async function invoice(who: Bootstrapped, name: string, amount: number, paid = true): Promise<string> {
  const created = await t.client.request('POST', '/v1/invoices', { token: who.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (paid) expect((await t.client.request('POST', `/v1/invoices/${created.body.data.id}/mark-as-paid`, { token: who.apiKey.secret })).status).toBe(200);
  return created.body.data.id;
}

const receipt = async (id: string) => (await t.client.gql(`query($id: ID!) { cashReceipt(id: $id) { ${RECEIPT} } }`, { id }, m.sessionToken)).cashReceipt;
/**
 * The tax authority answers receipt `id`: once its result is asked for (its settle job queued when the agency took the
 * receipt), the service's clock moves past the simulated agency's delay and the job runner is woken.
 */
async function agencyAnswers(id: string): Promise<void> {
  await eventually(`the settle job of ${id}`, async () => (await t.app.db.sql.query(`SELECT 1 FROM "Job" WHERE kind = 'receipt.settle' AND payload->>'receiptId' = $1`, [id])).length > 0);
  clock.advance(AGENCY_DELAY_MS);
  t.app.workers.jobs.wake();
}
const settled = (id: string) => until(() => receipt(id), (r) => r.status !== 'PENDING' && r.cancellations.every((c: { status?: string }) => c.status !== 'PENDING'), 20_000);
const emails = async () => (await t.client.gql(`{ emails { kind to subject text status invoiceId } }`, {}, m.sessionToken)).emails as { kind: string; to: string; subject: string; text: string; status: string; invoiceId: string | null }[];

describe(`issueInvoiceCashReceipt (GraphQL) on ${dbLabel}`, () => {
  it("a paid invoice's receipt: its amount, linked to it, split into supply amount and VAT; one live receipt per invoice", async () => {
    const paid = await invoice(m, 'API영수증', 22_000);
    const r = await t.client.gql(ISSUE, { i: { invoiceId: paid, type: 'CORPORATE', identifier: '1098765432' } }, m.apiKey.secret);
    expect(r.issueInvoiceCashReceipt).toMatchObject({ __typename: 'CashReceiptPayload', cashReceipt: { status: 'PENDING', kind: 'ORIGINAL', amount: 22_000, supplyCost: 20_000, tax: 2000, relatedInvoiceId: paid } });
    const first = r.issueInvoiceCashReceipt.cashReceipt.id;
    // The invoice's history says so.
    const history = await t.client.gql(`query($id: ID!) { invoice(id: $id) { history { type data } } }`, { id: paid }, m.sessionToken);
    expect(history.invoice.history).toContainEqual(expect.objectContaining({ type: 'cash_receipt_requested', data: { cashReceiptId: first } }));
    // A second while the first is live: refused, naming the first.
    const again = await t.client.gql(ISSUE, { i: { invoiceId: paid, type: 'PERSONAL', identifier: '01012345678' } }, m.apiKey.secret);
    expect(again.issueInvoiceCashReceipt).toEqual({ __typename: 'DomainError', code: 'INVOICE_RECEIPT_NOT_ISSUABLE', data: { reason: 'RECEIPT_EXISTS', cashReceiptId: first } });
    // Canceled in full, it leaves room for a new one.
    await agencyAnswers(first);
    expect((await settled(first)).status).toBe('ISSUED');
    const canceled = await t.client.gql(`mutation($id: ID!) { cancelCashReceipt(id: $id, input: {reason: "wrong number"}) { __typename } }`, { id: first }, m.apiKey.secret);
    expect(canceled.cancelCashReceipt.__typename).toBe('CashReceiptPayload');
    const renewed = await t.client.gql(ISSUE, { i: { invoiceId: paid, type: 'PERSONAL', identifier: '01012345678' } }, m.apiKey.secret);
    expect(renewed.issueInvoiceCashReceipt).toMatchObject({ __typename: 'CashReceiptPayload', cashReceipt: { amount: 22_000, relatedInvoiceId: paid } });
  });

  it('refusals: an unpaid invoice, an identifier unfit for the type, no business info, another workspace’s invoice', async () => {
    const unpaid = await invoice(m, 'API미입금', 23_000, false);
    expect((await t.client.gql(ISSUE, { i: { invoiceId: unpaid, type: 'PERSONAL', identifier: '01012345678' } }, m.apiKey.secret)).issueInvoiceCashReceipt).toEqual({
      __typename: 'DomainError',
      code: 'INVOICE_RECEIPT_NOT_ISSUABLE',
      data: { reason: 'NOT_PAID' },
    });
    const paid = await invoice(m, 'API번호', 24_000);
    expect((await t.client.gql(ISSUE, { i: { invoiceId: paid, type: 'CORPORATE', identifier: '01012345678' } }, m.apiKey.secret)).issueInvoiceCashReceipt).toMatchObject({
      code: 'INVALID_CASH_RECEIPT_IDENTIFIER',
    });
    const noBizPaid = await invoice(noBiz, 'API사업자', 25_000);
    expect((await t.client.gql(ISSUE, { i: { invoiceId: noBizPaid, type: 'PERSONAL', identifier: '01012345678' } }, noBiz.apiKey.secret)).issueInvoiceCashReceipt).toMatchObject({
      code: 'BUSINESS_INFO_NOT_REGISTERED',
    });
    expect((await t.client.gql(ISSUE, { i: { invoiceId: noBizPaid, type: 'PERSONAL', identifier: '01012345678' } }, m.apiKey.secret)).issueInvoiceCashReceipt).toMatchObject({ code: 'INVOICE_NOT_FOUND' });
    // Nothing was issued for any of them.
    const none = await t.client.gql(`query($s: String) { cashReceiptPage(offset: 0, limit: 5, filter: {search: $s}) { totalItems } }`, { s: paid }, m.sessionToken);
    expect(none.cashReceiptPage.totalItems).toBe(0);
  });

  it("the simulated agency's receipt e-mail lands in the workspace's outbox", async () => {
    const paid = await invoice(m, 'API메일', 5500);
    const r = await t.client.gql(ISSUE, { i: { invoiceId: paid, type: 'PERSONAL', identifier: '01055556666' } }, m.apiKey.secret);
    const id = r.issueInvoiceCashReceipt.cashReceipt.id;
    await agencyAnswers(id);
    await settled(id);
    const sent = await t.client.gql(`mutation($id: ID!) { sendCashReceiptEmail(id: $id, email: "api-buyer@example.com") { __typename } }`, { id }, m.apiKey.secret);
    expect(sent.sendCashReceiptEmail.__typename).toBe('SendCashReceiptEmailPayload');
    const mails = await until(emails, (es) => es.some((e) => e.to === 'api-buyer@example.com' && e.status === 'SENT'));
    const mail = mails.find((e) => e.to === 'api-buyer@example.com');
    expect(mail).toMatchObject({ kind: 'cash_receipt', invoiceId: paid, status: 'SENT' });
    expect(mail!.text).toContain('5,500원');
    expect(mail!.text).toContain('공급가액: 5,000원');
  });
});

describe.skipIf(!runBrowserTests)(`the Cash receipts section in Chromium on ${dbLabel}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('issue for a paid invoice (ko) → PENDING, then ISSUED by itself; a partial cancel, e-mail, a full cancel (en)', async () => {
    const paid = await invoice(m, '영수증손님', 11_000);
    const ko = await openDashboard(browser, t.url, m, { locale: 'ko-KR', path: '/dashboard/receipts' });
    const { page } = ko;
    await page.getByRole('heading', { name: '현금영수증', exact: true }).waitFor();
    await checkPage(page, 'receipts-list-ko');
    await page.getByRole('link', { name: '현금영수증 발행' }).click();
    await page.getByRole('heading', { name: '주문서에 현금영수증 발행' }).waitFor();
    await page.getByLabel('주문서 찾기 (입금자명 또는 주문서 번호)').fill('영수증손님');
    const select = page.getByRole('combobox', { name: '입금 완료된 주문서' });
    await select.locator(`option[value="${paid}"]`).waitFor({ state: 'attached' });
    await select.selectOption(paid);
    await page.getByLabel('소득공제용').check();
    // A number unfit for the purpose: refused by the API, explained in words.
    await page.getByLabel('휴대폰 번호 (10-11자리)').fill('0101234');
    await page.getByRole('button', { name: '발행', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('소득공제용은 휴대폰 번호 10-11자리');
    expect(await alert.getAttribute('data-code')).toBe('INVALID_CASH_RECEIPT_IDENTIFIER');
    await checkPage(page, 'receipts-issue-refused-ko');
    // Typed with hyphens, as people write phone numbers.
    await page.getByLabel('휴대폰 번호 (10-11자리)').fill('010-2345-6789');
    await page.getByRole('button', { name: '발행', exact: true }).click();
    await page.waitForURL(/\/dashboard\/receipts\/crt_/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    // PENDING first (until the agency answers), then ISSUED on the open page, without a reload.
    await page.locator('dd[data-status="PENDING"]').waitFor();
    await checkPage(page, 'receipts-detail-pending-ko');
    await agencyAnswers(id);
    await page.locator('dd[data-status="ISSUED"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('dd[data-supply-cost]').innerText()).toBe('10,000원');
    expect(await page.locator('dd[data-tax]').innerText()).toBe('1,000원');
    await checkPage(page, 'receipts-detail-issued-ko');
    expect(await receipt(id)).toMatchObject({ status: 'ISSUED', amount: 11_000, relatedInvoiceId: paid, remainingAmount: 11_000 });
    expect(ko.foreign).toEqual([]);
    expect(ko.problems).toEqual([]);
    await ko.context.close();

    const en = await openDashboard(browser, t.url, m, { locale: 'en-US', path: `/dashboard/receipts/${id}` });
    const p = en.page;
    await p.locator('dd[data-status="ISSUED"]').waitFor();
    // E-mailed through the agency: the simulated one's mail is in the outbox.
    await p.getByLabel('Send to (e-mail address)').fill('buyer@example.com');
    await p.getByRole('button', { name: 'Send', exact: true }).click();
    await p.getByRole('status').filter({ hasText: 'The agency sent the e-mail: buyer@example.com' }).waitFor();
    const mails = await until(emails, (es) => es.some((e) => e.to === 'buyer@example.com' && e.status === 'SENT'));
    expect(mails.find((e) => e.to === 'buyer@example.com')).toMatchObject({ kind: 'cash_receipt', invoiceId: paid });
    // A partial cancel: 4,400 of 11,000.
    await p.getByLabel('Cancel part of it').check();
    await p.getByLabel('Amount to cancel (won)').fill('4,400');
    await p.getByLabel('Reason (1-100 characters)').fill('one item returned');
    await p.getByRole('button', { name: 'Issue the cancellation' }).click();
    await p.getByRole('status').filter({ hasText: 'Cancellation issued' }).waitFor();
    await p.locator('dd[data-remaining-amount="6600"]').waitFor();
    expect(await p.locator('dd[data-remaining-amount]').innerText()).toBe('₩6,600');
    const afterPart = await receipt(id);
    expect(afterPart).toMatchObject({ status: 'ISSUED', canceledAmount: 4400, remainingAmount: 6600 });
    expect(afterPart.cancellations).toEqual([
      expect.objectContaining({ kind: 'CANCELLATION', amount: 4400, supplyCost: 4000, tax: 400, partial: true, originalId: id, cancelReason: 'one item returned' }),
    ]);
    // The cancellation receipt is on the page, and settles there.
    const row = p.locator(`tr[data-receipt-id="${afterPart.cancellations[0].id}"]`);
    await row.locator('td[data-status="PENDING"]').waitFor();
    await agencyAnswers(afterPart.cancellations[0].id);
    await row.locator('td[data-status="ISSUED"]').waitFor({ timeout: 20_000 });
    await checkPage(p, 'receipts-detail-partly-canceled-en');
    // More than remains: refused, in words.
    await p.getByLabel('Cancel part of it').check();
    await p.getByLabel('Amount to cancel (won)').fill('7000');
    await p.getByLabel('Reason (1-100 characters)').fill('too much');
    await p.getByRole('button', { name: 'Issue the cancellation' }).click();
    await p.getByRole('alert').filter({ hasText: 'at most what remains' }).waitFor();
    // The rest, in full: the original is CANCELED, with two cancellations summing to it.
    await p.getByLabel('Cancel all that remains').check();
    await p.getByLabel('Reason (1-100 characters)').fill('order canceled');
    await p.getByRole('button', { name: 'Issue the cancellation' }).click();
    await p.locator('dd[data-status="CANCELED"]').waitFor();
    const full = await settled(id);
    expect(full).toMatchObject({ status: 'CANCELED', canceledAmount: 11_000, remainingAmount: 0 });
    expect(full.cancellations.map((c: { amount: number; partial: boolean }) => [c.amount, c.partial])).toEqual([
      [4400, true],
      [6600, true],
    ]);
    expect(full.cancellations.reduce((s: number, c: { supplyCost: number; tax: number }) => s + c.supplyCost + c.tax, 0)).toBe(11_000);
    // Nothing left to cancel: the form is gone.
    expect(await p.getByRole('button', { name: 'Issue the cancellation' }).count()).toBe(0);
    await checkPage(p, 'receipts-detail-canceled-en');
    expect(en.foreign).toEqual([]);
    expect(en.problems).toEqual([]);
    await en.context.close();
  }, 90_000);

  it('a receipt the tax authority rejects shows FAILED and is reissued with a corrected number; the list filters by status (en)', async () => {
    const paid = await invoice(m, 'Rejected', 33_000);
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: `/dashboard/receipts/new?invoice=${paid}` });
    await page.getByRole('heading', { name: "Issue an invoice's cash receipt" }).waitFor();
    const select = page.getByRole('combobox', { name: 'Paid invoice' });
    await select.locator(`option[value="${paid}"]`).waitFor({ state: 'attached' });
    await select.selectOption(paid);
    await checkPage(page, 'receipts-issue-en');
    // 0100009...: the simulated tax authority rejects it.
    await page.getByLabel('Phone number (10-11 digits)').fill('01000091234');
    await page.getByRole('button', { name: 'Issue', exact: true }).click();
    await page.waitForURL(/\/dashboard\/receipts\/crt_/);
    const failedId = new URL(page.url()).pathname.split('/').pop()!;
    await agencyAnswers(failedId);
    await page.locator('dd[data-status="FAILED"]').waitFor({ timeout: 20_000 });
    await checkPage(page, 'receipts-detail-failed-en');
    await page.getByLabel('Phone number (10-11 digits)').fill('01033334444');
    await page.getByRole('button', { name: 'Reissue', exact: true }).click();
    await page.waitForURL((u) => /\/dashboard\/receipts\/crt_/.test(u.pathname) && !u.pathname.endsWith(failedId));
    const newId = new URL(page.url()).pathname.split('/').pop()!;
    await agencyAnswers(newId);
    await page.locator('dd[data-status="ISSUED"]').waitFor({ timeout: 20_000 });
    expect(await receipt(failedId)).toMatchObject({ status: 'FAILED', reissuedToId: newId });
    expect(await receipt(newId)).toMatchObject({ status: 'ISSUED', reissuedFromId: failedId, relatedInvoiceId: paid, amount: 33_000 });

    // The list, filtered by status in the address: the failed original, not its issued reissue.
    await page.getByRole('link', { name: 'All cash receipts' }).click();
    // The list shown (its rows read) before the filter is chosen: a form of the page still loading could be replaced.
    await page.locator(`tr[data-receipt-id="${newId}"]`).waitFor();
    await page.getByLabel('Status').selectOption('FAILED');
    expect(await page.getByLabel('Status').inputValue()).toBe('FAILED');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=FAILED/);
    // The unfiltered rows stay until the filtered answer replaces them: the issued reissue leaves, the failed one stays.
    await page.locator(`tr[data-receipt-id="${newId}"]`).waitFor({ state: 'detached', timeout: 10_000 });
    await page.locator(`tr[data-receipt-id="${failedId}"]`).waitFor();
    const row = page.locator(`tr[data-receipt-id="${failedId}"]`);
    expect(await row.innerText()).toContain('₩33,000');
    expect(await row.innerText()).toContain('₩30,000');
    expect(await row.innerText()).toContain(paid);
    await checkPage(page, 'receipts-list-failed-en');
    // A date the API cannot read: said in words, not a blank page.
    await page.goto(`${t.url}/dashboard/receipts?from=2026-13-40`);
    await page.getByRole('alert').filter({ hasText: 'Dates are YYYY-MM-DD' }).waitFor();
    expect(foreign).toEqual([]);
    // The browser's own report of the bad date's answer (an HTTP error status) is expected; nothing else.
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
    await context.close();
  }, 90_000);
});
