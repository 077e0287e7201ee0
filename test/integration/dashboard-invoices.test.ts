/**
 * The dashboard's Invoices screen in Chromium: every filter of the REST list narrows the list to the ids GET
 * /v1/invoices or /v2/invoices gives for the same filter (dates in KST, across days of the service's clock), kept in
 * the address (reload, back); an invoice created in the form appears, and a duplicate is refused with a link to the
 * one in the way; the detail shows a deposit paying it live, and the cash receipt issued for it; mark paid, cancel
 * with a reason, an edit of the amount with the guide e-mail sent again reach the API (read back through REST); an
 * edit of an invoice paid meanwhile is refused in words with its code. axe-core on the list, the form and the detail,
 * in Korean and English.
 */
import type { Browser, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { build, isStale } from '../../scripts/build.mjs';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, noteSkippedWithoutChromium, runBrowserTests } from '../helpers/browser.ts';
import { checkPage, openDashboard } from '../helpers/dashboard.ts';

noteSkippedWithoutChromium('dashboard-invoices.test.ts');

const DAY = 86_400_000;
/** The service's clock: the filters' invoices are made on two days three days apart. */
const clock = new OffsetClock();
let t: TestApp;
let m: Bootstrapped;
beforeAll(async () => {
  if (isStale()) await build();
  t = await startTestApp({ clock });
  m = await bootstrap(t.client);
}, 120_000);
afterAll(() => t?.stop());

/** The KST date of an instant, as the list's date filters take it. */
const kstDate = (at: Date) => new Date(at.getTime() + 9 * 3_600_000).toISOString().slice(0, 10);

const rest = (method: string, path: string, body?: unknown) => t.client.request(method, path, { token: m.apiKey.secret, body });

async function createInvoice(body: Record<string, unknown>): Promise<{ id: string }> {
  const r = await rest('POST', '/v1/invoices', { bankAccountIds: [], ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

const v2Invoice = async (id: string) => (await rest('GET', `/v2/invoices/${id}`)).body.data;

/** The ids of the list's rows, in order. */
const rowIds = (page: Page) => page.locator('tr[data-invoice-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-invoice-id')));

/** The browser's own report of a refused request (the API's 4xx for a refusal the page shows in words). */
const refusedRequest = (p: string) => /Failed to load resource: the server responded with a status of 4\d\d/.test(p);

interface Filters {
  search?: string;
  statuses?: string[];
  paid?: 'true' | 'false';
  expired?: 'true' | 'false';
  dateAfter?: string;
  dateBefore?: string;
  hideCanceled?: boolean;
}

/** Sets the filters' controls (English labels) from a clear list and applies them. */
async function applyFilters(page: Page, f: Filters): Promise<void> {
  const clear = page.getByRole('link', { name: 'Clear filters' });
  if (await clear.count()) {
    await clear.click();
    await page.waitForURL((u) => u.search === '');
  }
  const form = page.getByRole('search', { name: 'Filters' });
  if (f.search) await form.getByLabel('Search').fill(f.search);
  for (const s of f.statuses ?? []) await form.getByRole('checkbox', { name: s, exact: true }).check();
  if (f.paid) await form.getByRole('combobox', { name: /^Payment/ }).selectOption(f.paid);
  if (f.expired) await form.getByRole('combobox', { name: /^Expiry/ }).selectOption(f.expired);
  if (f.dateAfter) await form.getByLabel('Created from (KST)').fill(f.dateAfter);
  if (f.dateBefore) await form.getByLabel('Created until (KST)').fill(f.dateBefore);
  if (f.hideCanceled) await form.getByRole('checkbox', { name: /Hide canceled/ }).check();
  await form.getByRole('button', { name: 'Apply' }).click();
}

/** The list shows exactly the REST list's ids for `path` (and its total), which are `expected`. */
async function expectSameAsRest(page: Page, path: string, expected: string[]): Promise<void> {
  const listed = await rest('GET', path);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  const ids = listed.body.data.map((i: { id: string }) => i.id);
  // The REST list narrows as this test means it to (else comparing would prove nothing).
  expect(ids, path).toEqual(expected);
  await expect.poll(() => rowIds(page), { timeout: 10_000 }).toEqual(ids);
  expect(await page.getByRole('navigation', { name: 'Invoices' }).innerText()).toContain(`Total ${listed.body.totalItems}`);
}

describe.skipIf(!runBrowserTests)(`the Invoices screen in Chromium (${dbLabel})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('every filter of the REST list narrows the list as GET /v1/invoices and /v2/invoices do, kept in the address', async () => {
    // Day one: an invoice that will expire, one paid.
    const firstDay = kstDate(clock.now());
    const willExpire = await createInvoice({ customer: { name: '이전대기' }, amount: 11_000, expireAfter: '1d' });
    const paidEarly = await createInvoice({ customer: { name: '이전입금' }, amount: 12_000 });
    expect((await rest('POST', `/v1/invoices/${paidEarly.id}/mark-as-paid`)).status).toBe(200);
    // Three days later: a pending one with a buyer e-mail, a canceled one, a paid one.
    clock.advance(3 * DAY);
    const lastDay = kstDate(clock.now());
    const pending = await createInvoice({ customer: { name: '최근대기', email: 'find.me@example.com' }, amount: 13_000 });
    const canceled = await createInvoice({ customer: { name: '최근취소' }, amount: 14_000 });
    expect((await rest('POST', `/v2/invoices/${canceled.id}/cancel`, { reason: 'test' })).status).toBe(200);
    const paidLate = await createInvoice({ customer: { name: '최근입금' }, amount: 15_000 });
    expect((await rest('POST', `/v1/invoices/${paidLate.id}/mark-as-paid`)).status).toBe(200);

    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: '/dashboard/invoices' });
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    // Unfiltered: canceled ones listed too, as /v2/invoices lists them.
    await expectSameAsRest(page, '/v2/invoices?limit=20', [paidLate.id, canceled.id, pending.id, paidEarly.id, willExpire.id]);
    await checkPage(page, 'invoices-list-en');

    // v1's "can still receive a deposit": not paid, not expired (canceled hidden, as v1 hides them).
    await applyFilters(page, { paid: 'false', expired: 'false', hideCanceled: true });
    await expectSameAsRest(page, '/v1/invoices?offset=0&limit=20&paid=false&expired=false', [pending.id]);
    expect(new URL(page.url()).search).toBe('?paid=false&expired=false&includeCanceled=false');
    // Search in the buyer's e-mail.
    await applyFilters(page, { search: 'FIND.me', hideCanceled: true });
    await expectSameAsRest(page, '/v1/invoices?offset=0&limit=20&search=FIND.me', [pending.id]);
    // Expired, and paid, from the first day on (KST dates).
    await applyFilters(page, { expired: 'true', hideCanceled: true });
    await expectSameAsRest(page, '/v1/invoices?offset=0&limit=20&expired=true', [willExpire.id]);
    await applyFilters(page, { paid: 'true', dateAfter: lastDay, hideCanceled: true });
    await expectSameAsRest(page, `/v1/invoices?offset=0&limit=20&paid=true&dateAfter=${lastDay}`, [paidLate.id]);
    // v2's statuses, and a date range ending on the first day.
    await applyFilters(page, { statuses: ['Pending', 'Expired'] });
    await expectSameAsRest(page, '/v2/invoices?limit=20&status=PENDING,EXPIRED', [pending.id, willExpire.id]);
    await applyFilters(page, { statuses: ['Canceled'] });
    await expectSameAsRest(page, '/v2/invoices?limit=20&status=CANCELED', [canceled.id]);
    await applyFilters(page, { dateAfter: firstDay, dateBefore: firstDay });
    await expectSameAsRest(page, `/v2/invoices?limit=20&dateAfter=${firstDay}&dateBefore=${firstDay}`, [paidEarly.id, willExpire.id]);
    await checkPage(page, 'invoices-filtered-en');

    // The address keeps the filters: a reload shows the same list and the same controls; back shows the steps before
    // (the cleared list, then the canceled ones).
    await page.reload();
    await expect.poll(() => rowIds(page), { timeout: 10_000 }).toEqual([paidEarly.id, willExpire.id]);
    expect(await page.getByLabel('Created until (KST)').inputValue()).toBe(firstDay);
    await page.goBack();
    await expect.poll(() => rowIds(page), { timeout: 10_000 }).toHaveLength(5);
    await page.goBack();
    await expect.poll(() => rowIds(page), { timeout: 10_000 }).toEqual([canceled.id]);
    expect(await page.getByRole('checkbox', { name: 'Canceled', exact: true }).isChecked()).toBe(true);

    // A malformed date typed in the address: the API's refusal in words, not a blank page.
    await page.goto(`${t.url}/dashboard/invoices?dateAfter=2026-02-30`);
    await page.getByRole('alert').filter({ hasText: 'INVALID_DATE_RANGE_FORMAT' }).waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('Dates must be YYYY-MM-DD.');

    // The Korean list, filtered.
    const ko = await openDashboard(browser, t.url, m, { locale: 'ko-KR', path: '/dashboard/invoices?status=PAID' });
    await expect.poll(() => rowIds(ko.page), { timeout: 10_000 }).toEqual([paidLate.id, paidEarly.id]);
    expect(await ko.page.getByRole('checkbox', { name: '입금 완료', exact: true }).isChecked()).toBe(true);
    await checkPage(ko.page, 'invoices-filtered-ko');
    expect([...foreign, ...ko.foreign], 'requests to other origins').toEqual([]);
    expect([...problems, ...ko.problems].filter((p) => !refusedRequest(p))).toEqual([]);
    await ko.context.close();
    await context.close();
  }, 90_000);

  it('an invoice created in the form appears in the list; a duplicate is refused with a link to the pending one (Korean)', async () => {
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'ko-KR', path: '/dashboard/invoices' });
    await page.getByRole('link', { name: '새로 만들기' }).click();
    await page.getByRole('heading', { name: '새 주문서' }).waitFor();
    await checkPage(page, 'invoices-create-ko');
    const fill = async () => {
      await page.getByLabel('입금자명').fill('폼생성');
      await page.getByLabel('금액 (원)').fill('41000');
      await page.getByLabel('구매자 이메일').fill('form@example.com');
      await page.getByLabel('만료까지').fill('7d');
      await page.getByRole('combobox', { name: /^현금영수증/ }).selectOption('PERSONAL');
      await page.getByLabel('현금영수증 번호').fill('010-1234-5678');
      await page.getByRole('button', { name: '만들기' }).click();
    };
    await fill();
    // Created: its detail, then the list has it.
    await page.waitForURL(/\/dashboard\/invoices\/ivc_/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await page.getByRole('heading', { name: /폼생성/ }).waitFor();
    const made = await v2Invoice(id);
    expect(made).toMatchObject({ status: 'PENDING', amount: 41_000, customer: { name: '폼생성', email: 'form@example.com' }, cashReceipt: { type: 'PERSONAL', identifier: '01012345678' } });
    expect(made.expiresAt - made.createdAt).toBe(7 * 86_400);
    await page.getByRole('link', { name: '← 목록으로' }).click();
    await page.locator(`tr[data-invoice-id="${id}"] td[data-status="PENDING"]`).waitFor();

    // The same name and amount again: INVOICE_ALREADY_EXISTS in words, linking to the pending one.
    await page.getByRole('link', { name: '새로 만들기' }).click();
    await fill();
    const alert = page.getByRole('alert').filter({ hasText: 'INVOICE_ALREADY_EXISTS' });
    await alert.waitFor();
    expect(await alert.innerText()).toContain('같은 입금자명과 금액으로 입금을 기다리는 주문서가 이미 있습니다.');
    await checkPage(page, 'invoices-create-refused-ko');
    expect((await rest('GET', '/v1/invoices?offset=0&limit=20&search=폼생성')).body.totalItems).toBe(1);
    await alert.getByRole('link', { name: /기존 주문서 보기/ }).click();
    await page.waitForURL(`${t.url}/dashboard/invoices/${id}`);
    await page.getByRole('heading', { name: /폼생성/ }).waitFor();
    await checkPage(page, 'invoices-detail-ko');
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems.filter((p) => !refusedRequest(p))).toEqual([]);
    await context.close();
  }, 60_000);

  it('the open detail shows a deposit paying it by itself', async () => {
    // With a cash receipt to issue on payment (bootstrap registered the business information).
    const invoice = await createInvoice({ customer: { name: '상세실시간' }, amount: 42_000, cashReceipt: { type: 'PERSONAL', identifier: '01098765432' } });
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: '/dashboard/invoices' });
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    // The detail's subscription, as its WebSocket sends it (the deposit comes after it, as a buyer's would).
    const subscribed = new Promise<void>((resolve) => page.on('websocket', (ws) => ws.on('framesent', (f) => String(f.payload).includes('"type":"subscribe"') && resolve())));
    await page.locator(`tr[data-invoice-id="${invoice.id}"]`).getByRole('link').click();
    const status = page.locator('[data-invoice-status]');
    await status.waitFor();
    expect(await status.getAttribute('data-invoice-status')).toBe('PENDING');
    await page.getByText('No deposit matched yet.').waitFor();
    expect(await page.getByText('To issue on payment:').innerText()).toContain('01098765432');
    await subscribed;
    const deposit = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '상세실시간', amount: 42_000 });
    expect(deposit.status).toBe(201);
    await page.locator(`tr[data-transaction-id="${deposit.body.transactionId}"]`).waitFor({ timeout: 10_000 });
    expect(await status.getAttribute('data-invoice-status')).toBe('PAID');
    expect(await page.locator(`tr[data-transaction-id="${deposit.body.transactionId}"]`).innerText()).toContain('₩42,000');
    await page.locator('tr[data-history-type="paid"]').waitFor();
    // The receipt issued for it, with its VAT split (42,000 = 38,182 + 3,818).
    const receipts = await rest('GET', `/v1/cash-receipts?offset=0&limit=20&search=${invoice.id}`);
    expect(receipts.body.totalItems).toBe(1);
    const receipt = page.locator(`tr[data-receipt-id="${receipts.body.data[0].id}"]`);
    await receipt.waitFor();
    expect(await receipt.innerText()).toMatch(/₩42,000\s+₩38,182\s+₩3,818/);
    await checkPage(page, 'invoices-detail-paid-en');
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('the list follows from the sequence it read after: an invoice made before its subscription starts shows; after a dropped connection it subscribes again from the last event received, and the gap comes first', async () => {
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: '/dashboard/assets/app.css' });
    // Every WebSocket of the page goes through here to the service: what the page subscribes with, what it receives.
    const sockets: { page: WebSocketRoute; server: WebSocketRoute; received: string[] }[] = [];
    const subscribed: { socket: number; since: string | null }[] = [];
    /** Subscriptions sent by the page, counted before the gate. */
    let sent = 0;
    let open!: () => void;
    let gate: Promise<void> | null = new Promise<void>((resolve) => (open = resolve));
    /** Sent instead of the page's sequence in its next subscribe (a sequence the service no longer knows). */
    let forge: string | null = null;
    await context.routeWebSocket(/\/graphql$/, (ws) => {
      const socket = { page: ws, server: ws.connectToServer(), received: [] as string[] };
      const n = sockets.push(socket) - 1;
      ws.onMessage(async (frame) => {
        const msg = JSON.parse(String(frame));
        if (msg.type === 'subscribe' && String(msg.payload.query).includes('invoiceEvents')) {
          sent++;
          await gate;
          subscribed.push({ socket: n, since: msg.payload.variables?.since ?? null });
          if (forge) {
            msg.payload.variables = { ...msg.payload.variables, since: forge };
            forge = null;
            return socket.server.send(JSON.stringify(msg));
          }
        }
        socket.server.send(frame);
      });
      socket.server.onMessage((frame) => {
        socket.received.push(String(frame));
        ws.send(frame);
      });
    });
    const lastSequence = async () => {
      const r = await rest('POST', '/graphql', { query: '{ lastEventSequence }' });
      expect(r.body.errors, JSON.stringify(r.body)).toBeUndefined();
      return r.body.data.lastEventSequence as string;
    };
    /** The invoice events a socket delivered: [sequence, invoice id]. */
    const events = (socket: number) =>
      sockets[socket]!.received.map((f) => JSON.parse(f)).filter((f) => f.type === 'next' && f.payload.data?.invoiceEvents).map((f) => [f.payload.data.invoiceEvents.sequence, f.payload.data.invoiceEvents.invoice.id]);

    // The page reads the list and the last sequence; its subscription is held until an invoice is made meanwhile (as a
    // slow service start of the subscription would let happen).
    const head = await lastSequence();
    await page.goto(`${t.url}/dashboard/invoices`);
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    await expect.poll(() => sent, { timeout: 20_000 }).toBe(1);
    const before = await createInvoice({ customer: { name: '끊기전' }, amount: 43_000 });
    expect(await lastSequence()).not.toBe(head);
    open();
    await expect.poll(() => subscribed.length, { timeout: 20_000 }).toBe(1);
    expect(subscribed[0]).toEqual({ socket: 0, since: head });
    await expect.poll(() => events(0).map(([, id]) => id), { timeout: 10_000 }).toContain(before.id);
    await page.locator(`tr[data-invoice-id="${before.id}"]`).waitFor({ timeout: 10_000 });
    const last = events(0).at(-1)![0];

    // The connection drops (as a proxy's restart would); the page's next subscribe waits until an invoice is made in the gap.
    gate = new Promise<void>((resolve) => (open = resolve));
    await sockets[0]!.page.close({ code: 1012, reason: 'service restart' });
    await sockets[0]!.server.close();
    await expect.poll(() => sent, { timeout: 20_000 }).toBe(2);
    const during = await createInvoice({ customer: { name: '끊긴동안' }, amount: 43_100 });
    open();
    await expect.poll(() => subscribed.length, { timeout: 20_000 }).toBe(2);
    expect(subscribed[1]).toEqual({ socket: 1, since: last });
    // The service sends what happened after that sequence first: the invoice made in the gap.
    await expect.poll(() => events(1).map(([, id]) => id), { timeout: 10_000 }).toContain(during.id);
    await page.locator(`tr[data-invoice-id="${during.id}"]`).waitFor({ timeout: 10_000 });

    // Dropped again, and the sequence it resumes from is refused (beyond the workspace's last event, as after a
    // restore): the page reads the last sequence again at once, on the same connection, and follows from it.
    gate = null;
    forge = '9000000000000000000';
    await expect.poll(() => events(1).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const resumeFrom = events(1).at(-1)![0];
    await sockets[1]!.page.close({ code: 1012, reason: 'service restart' });
    await sockets[1]!.server.close();
    await expect.poll(() => subscribed.length, { timeout: 20_000 }).toBe(4);
    const headNow = await lastSequence();
    expect(subscribed.slice(2)).toEqual([
      { socket: 2, since: resumeFrom },
      { socket: 2, since: headNow },
    ]);
    expect(sockets[2]!.received.some((f) => f.includes('VALIDATION_FAILED'))).toBe(true);
    const after = await createInvoice({ customer: { name: '복원뒤' }, amount: 43_200 });
    await expect.poll(() => events(2).map(([, id]) => id), { timeout: 10_000 }).toContain(after.id);
    await page.locator(`tr[data-invoice-id="${after.id}"]`).waitFor({ timeout: 10_000 });
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('mark paid, cancel with a reason, and an edit of the amount with the guide e-mail reach the API; an edit of an invoice paid meanwhile is refused', async () => {
    const toPay = await createInvoice({ customer: { name: '수동입금' }, amount: 43_000 });
    const toCancel = await createInvoice({ customer: { name: '취소대상' }, amount: 44_000, expireAfter: '2d' });
    const toEdit = await createInvoice({ customer: { name: '수정대상', email: 'guide@example.com' }, amount: 45_000, expireAfter: '2d' });
    const raced = await createInvoice({ customer: { name: '경합대상' }, amount: 46_000 });
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: `/dashboard/invoices/${toPay.id}` });
    const status = page.locator('[data-invoice-status]');

    // Mark paid, confirmed in a second step.
    await page.getByRole('button', { name: 'Mark paid' }).click();
    await page.getByRole('button', { name: 'Yes, mark paid' }).click();
    await page.locator('[data-invoice-status="PAID"]').waitFor();
    expect((await rest('GET', `/v1/invoices/${toPay.id}`)).body.data.paid).toBe(true);
    expect(await v2Invoice(toPay.id)).toMatchObject({ status: 'PAID' });
    expect(await page.getByRole('button', { name: 'Mark paid' }).count()).toBe(0);

    // Cancel with a reason.
    await page.goto(`${t.url}/dashboard/invoices/${toCancel.id}`);
    await page.getByRole('button', { name: 'Cancel the invoice' }).click();
    await page.getByLabel('Reason').fill('고객 요청으로 취소');
    await checkPage(page, 'invoices-cancel-en');
    await page.getByRole('button', { name: 'Confirm the cancel' }).click();
    await page.locator('[data-invoice-status="CANCELED"]').waitFor();
    expect(await v2Invoice(toCancel.id)).toMatchObject({ status: 'CANCELED', cancelReason: '고객 요청으로 취소' });
    expect(await page.locator('tr[data-history-type="canceled"]').innerText()).toContain('고객 요청으로 취소');

    // Edit the amount and send the payment guide again.
    await page.goto(`${t.url}/dashboard/invoices/${toEdit.id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit the invoice' });
    await form.getByLabel('Amount (won)').fill('47000');
    await form.getByRole('checkbox', { name: 'Send the payment-guide e-mail again' }).check();
    await checkPage(page, 'invoices-edit-en');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: /₩47,000/ }).waitFor();
    const edited = await v2Invoice(toEdit.id);
    expect(edited).toMatchObject({ status: 'PENDING', amount: 47_000, customer: { name: '수정대상' } });
    expect(edited.guideEmailSentAt).toEqual(expect.any(Number));
    expect(edited.history.map((h: { type: string }) => h.type)).toEqual(['created', 'updated', 'guide_email_sent']);
    await page.locator('tr[data-history-type="guide_email_sent"]').waitFor();
    expect(await page.locator('tr[data-history-type="updated"]').innerText()).toContain('amount');

    // An edit opened on a pending invoice that a deposit pays meanwhile: the page shows it paid, and saving is
    // refused in words with its code; nothing changed.
    await page.goto(`${t.url}/dashboard/invoices/${raced.id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await form.getByLabel('Amount (won)').fill('48000');
    expect((await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '경합대상', amount: 46_000 })).status).toBe(201);
    await page.locator('[data-invoice-status="PAID"]').waitFor({ timeout: 10_000 });
    await form.getByRole('button', { name: 'Save' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'INVOICE_NOT_PENDING' });
    await refused.waitFor();
    expect(await refused.innerText()).toContain('The invoice is no longer pending');
    await checkPage(page, 'invoices-edit-refused-en');
    expect(await v2Invoice(raced.id)).toMatchObject({ status: 'PAID', amount: 46_000 });
    expect(await status.getAttribute('data-invoice-status')).toBe('PAID');
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems.filter((p) => !refusedRequest(p))).toEqual([]);
    await context.close();
  }, 60_000);
});
