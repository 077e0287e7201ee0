/**
 * The dashboard's Settings in Chromium: business information changed (a bad business number refused in words), the
 * paid e-mail switched, a bank account renamed (a blank alias refused in words), deactivated and reactivated, and one
 * added with the onboarding's step and verified live. Each outcome is read back from the API (GraphQL, and REST v1
 * where the account shows: a deposit's bankAccount, an invoice naming it).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { build, isStale } from '../../scripts/build.mjs';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, noteSkippedWithoutChromium, runBrowserTests } from '../helpers/browser.ts';
import { checkPage, openDashboard } from '../helpers/dashboard.ts';

noteSkippedWithoutChromium('dashboard-settings.test.ts');

let t: TestApp;
let m: Bootstrapped;
beforeAll(async () => {
  if (isStale()) await build();
  t = await startTestApp();
  m = await bootstrap(t.client);
}, 120_000);
afterAll(() => t?.stop());

const workspace = async () =>
  (await t.client.gql(`{ viewer { workspace { paidEmailEnabled businessInfo { corpNum companyName representativeName agencyLinkedAt } } } }`, {}, m.sessionToken)).viewer.workspace;
const account = async (id: string) =>
  (await t.client.gql<{ bankAccounts: { id: string; alias: string; active: boolean }[] }>(`{ bankAccounts { id alias active } }`, {}, m.sessionToken)).bankAccounts.find((a) => a.id === id);
/** The browser's own report of a refused request (the API's 4xx for a refusal the page shows in words). */
const refusedRequest = (p: string) => /Failed to load resource: the server responded with a status of 4\d\d/.test(p);

describe.skipIf(!runBrowserTests)(`the Settings screen in Chromium (${dbLabel})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('business info, the paid e-mail, and a bank account renamed, deactivated and reactivated reach the API (English)', async () => {
    const second = await addVerifiedBankAccount(t.client, m.sessionToken, { alias: 'Second' });
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'en-US', path: '/dashboard/settings' });
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    const row = page.locator(`tr[data-bank-account-id="${second.id}"]`);
    await row.waitFor();
    expect(await page.locator('dd[data-field="corpNum"]').innerText()).toBe('123-45-67890');
    await checkPage(page, 'settings-overview-en');

    // A business number that is not 10 digits: refused in words, nothing changed.
    const business = page.getByRole('form', { name: 'Change business information' });
    await business.getByLabel('Business registration number').fill('12345');
    await business.getByRole('button', { name: 'Change business information' }).click();
    await page.getByRole('alert').filter({ hasText: 'The business registration number must be 10 digits' }).waitFor();
    expect((await workspace()).businessInfo.corpNum).toBe('1234567890');
    await checkPage(page, 'settings-business-refused-en');
    await business.getByLabel('Business registration number').fill('220-81-62517');
    await business.getByLabel('Company name').fill('Settings Shop');
    await business.getByLabel('Representative').fill('김대표');
    await business.getByRole('button', { name: 'Change business information' }).click();
    await page.getByRole('status').filter({ hasText: 'Business information saved' }).waitFor();
    expect((await workspace()).businessInfo).toMatchObject({ corpNum: '2208162517', companyName: 'Settings Shop', representativeName: '김대표', agencyLinkedAt: expect.any(String) });
    await page.locator('dd[data-field="corpNum"]', { hasText: '220-81-62517' }).waitFor();

    // The paid e-mail, both ways.
    const paidEmail = page.getByLabel('E-mail the buyer when a deposit pays their invoice');
    const before = (await workspace()).paidEmailEnabled as boolean;
    expect(await paidEmail.isChecked()).toBe(before);
    await paidEmail.click();
    await page.getByRole('status').filter({ hasText: before ? 'buyers get no payment e-mail' : 'buyers get the payment e-mail' }).waitFor();
    expect((await workspace()).paidEmailEnabled).toBe(!before);
    await paidEmail.click();
    await page.getByRole('status').filter({ hasText: before ? 'buyers get the payment e-mail' : 'buyers get no payment e-mail' }).waitFor();
    expect((await workspace()).paidEmailEnabled).toBe(before);

    // Rename: a blank alias refused in words, then a good one.
    await row.getByRole('button', { name: 'Rename: Second' }).click();
    await row.getByLabel('New alias').fill('   ');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByRole('alert').filter({ hasText: 'The alias must be 1-50 characters' }).waitFor();
    expect((await account(second.id))!.alias).toBe('Second');
    await checkPage(page, 'settings-alias-refused-en');
    await row.getByLabel('New alias').fill('Front counter');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.getByRole('button', { name: 'Rename: Front counter' }).waitFor();
    expect(await account(second.id)).toEqual({ id: second.id, alias: 'Front counter', active: true });

    // Deactivate, after the confirmation that says what it means.
    await row.getByRole('button', { name: 'Deactivate: Front counter' }).click();
    await row.getByRole('group', { name: 'Deactivate: Front counter' }).getByText('no new invoice may name it').waitFor();
    await checkPage(page, 'settings-deactivate-confirm-en');
    await row.getByRole('button', { name: 'Confirm deactivation' }).click();
    await page.locator(`tr[data-bank-account-id="${second.id}"][data-active="false"]`).waitFor();
    expect(await row.locator('td[data-in-use]').innerText()).toBe('Deactivated');
    expect(await account(second.id)).toEqual({ id: second.id, alias: 'Front counter', active: false });
    await checkPage(page, 'settings-deactivated-en');
    // REST: a deposit to it shows the account as it now is, and is not matched; an invoice may not name it.
    const key = m.apiKey.secret;
    const invoice = await t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [], customer: { name: 'Counter' }, amount: 52_000 } });
    expect(invoice.status).toBe(201);
    const deposit = await t.client.deposit(second.notificationToken, { depositorName: 'Counter', amount: 52_000 });
    expect(deposit.status).toBe(201);
    const stored = await t.client.request('GET', `/v1/transactions/${deposit.body.transactionId}`, { token: key });
    expect(stored.body.data).toMatchObject({ matchedInvoiceId: null, bankAccount: { id: second.id, alias: 'Front counter', active: false } });
    const named = await t.client.request('POST', '/v1/invoices', { token: key, body: { bankAccountIds: [second.id], customer: { name: 'Named' }, amount: 52_001 } });
    expect([named.status, named.body.code]).toEqual([403, 'BANK_ACCOUNT_INACTIVE']);

    // Back in use.
    await row.getByRole('button', { name: 'Reactivate: Front counter' }).click();
    await page.locator(`tr[data-bank-account-id="${second.id}"][data-active="true"]`).waitFor();
    expect((await account(second.id))!.active).toBe(true);

    expect(foreign, 'requests to other origins').toEqual([]);
    // The business-number and alias refusals come as GraphQL errors or in-band results; the browser reports the former's status.
    expect(problems.filter((p) => !refusedRequest(p))).toEqual([]);
    await context.close();
  }, 60_000);

  it('in Korean: an account added with the onboarding step, its code shown in the list, verified live', async () => {
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, m, { locale: 'ko-KR', path: '/dashboard/settings' });
    await page.getByRole('heading', { name: '설정' }).waitFor();
    await page.getByRole('heading', { name: '입금 계좌' }).waitFor();
    await page.locator(`tr[data-bank-account-id="${m.bankAccount.id}"]`).waitFor();
    await checkPage(page, 'settings-overview-ko');

    const add = page.getByRole('form', { name: '입금 계좌 등록' });
    await add.getByLabel('은행').selectOption('KAKAOBANK');
    await add.getByLabel('계좌번호').fill('3333-01-2345678');
    await add.getByLabel('별칭').fill('카카오 통장');
    await add.getByRole('button', { name: '등록' }).click();
    const token = await page.locator('[data-secret]').innerText();
    expect(token).toMatch(/^bnt_/);
    // The list has it, unverified, with the code to send.
    const added = (await t.client.gql<{ bankAccounts: { id: string; number: string; alias: string; verificationCode: string | null }[] }>(
      `{ bankAccounts { id number alias verificationCode } }`, {}, m.sessionToken,
    )).bankAccounts.find((a) => a.alias === '카카오 통장');
    expect(added).toMatchObject({ number: '3333012345678', verificationCode: expect.stringMatching(/^\d{6}$/) });
    const row = page.locator(`tr[data-bank-account-id="${added!.id}"]`);
    await row.getByText(added!.verificationCode!).waitFor();
    expect(await row.innerText()).toContain('인증 전');
    await checkPage(page, 'settings-added-ko');
    // The 1-won deposit: the step says verified by itself.
    expect((await t.client.deposit(token, { depositorName: added!.verificationCode!, amount: 1 })).status).toBe(201);
    await page.getByRole('status').filter({ hasText: '인증 완료' }).waitFor({ timeout: 15_000 });

    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
