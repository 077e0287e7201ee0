/**
 * The dashboard's Developers section in Chromium: an API key created in the page (read-only, limited to an account,
 * with an expiry) whose shown-once secret authenticates the REST API and is refused on a write, then disabled (401)
 * and deleted; a webhook to a local receiver, its delivery log (status, response code, duration per attempt) after a
 * failed then retried delivery, a redelivery from the page that the receiver gets again, signed with the shown secret,
 * and a rotation; an OAuth app whose shown client secret exchanges a code for a token, and the grant listed. Korean
 * and English, axe-core on every part. Also the API's ApiKey.lastUsedAt, which the key list shows.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, noteSkippedWithoutChromium, runBrowserTests } from '../helpers/browser.ts';
import { checkPage, openDashboard } from '../helpers/dashboard.ts';
import { Receiver, type Received } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';
import { build, isStale } from '../../scripts/build.mjs';

noteSkippedWithoutChromium('dashboard-developers.test.ts');

/** Standard Webhooks verification, independent of the service's code (node:crypto only). */
function signedBy(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`).digest();
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((s) => {
      const [v, b64] = s.split(',');
      const got = Buffer.from(b64 ?? '', 'base64');
      return v === 'v1' && got.length === expected.length && timingSafeEqual(got, expected);
    });
}

let t: TestApp;
let m: Bootstrapped;
const rx = new Receiver();

beforeAll(async () => {
  if (isStale()) await build();
  await rx.start();
  // Loopback targets allowed (the receiver is on 127.0.0.1); a failed attempt is retried after 300 ms.
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_DELAYS_MS: '300,300,300,300,300,300', WEBHOOK_TIMEOUT_MS: '2000' } });
  m = await bootstrap(t.client);
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await rx.stop();
});

const KEYS = `{ apiKeys { id name readOnly bankAccountIds expiresAt disabledAt lastUsedAt } }`;
type KeyRow = { id: string; name: string; readOnly: boolean; bankAccountIds: string[] | null; expiresAt: string | null; disabledAt: string | null; lastUsedAt: string | null };
const keys = async (session = m.sessionToken) => (await t.client.gql<{ apiKeys: KeyRow[] }>(KEYS, {}, session)).apiKeys;

describe(`ApiKey.lastUsedAt on ${dbLabel}`, () => {
  it('is null until the key authenticates a call, then that time; a call within the minute does not rewrite it', async () => {
    const ws = await bootstrap(t.client);
    const created = await t.client.gql(`mutation { createApiKey(input: { name: "used" }) { apiKey { id lastUsedAt } secret } }`, {}, ws.sessionToken);
    expect(created.createApiKey.apiKey.lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: created.createApiKey.secret })).status).toBe(200);
    const after = Date.now();
    const first = (await keys(ws.sessionToken)).find((k) => k.id === created.createApiKey.apiKey.id)!;
    expect(Date.parse(first.lastUsedAt!)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(first.lastUsedAt!)).toBeLessThanOrEqual(after + 5);
    // Another key of the workspace, unused, stays null: the write is the calling key's only.
    expect((await keys(ws.sessionToken)).find((k) => k.id === ws.apiKey.id)!.lastUsedAt).toBeNull();
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: created.createApiKey.secret })).status).toBe(200);
    expect((await keys(ws.sessionToken)).find((k) => k.id === created.createApiKey.apiKey.id)!.lastUsedAt).toBe(first.lastUsedAt);
    // A refused key (disabled) is not "used".
    await t.client.gql(`mutation($id: ID!) { disableApiKey(id: $id) { apiKey { id } } }`, { id: ws.apiKey.id }, ws.sessionToken);
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: ws.apiKey.secret })).status).toBe(401);
    expect((await keys(ws.sessionToken)).find((k) => k.id === ws.apiKey.id)!.lastUsedAt).toBeNull();
  });
});

describe.skipIf(!runBrowserTests)(`the Developers section in Chromium on ${dbLabel}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const who = () => ({ email: m.email, password: m.password });
  /** The secret a SecretOnce group labelled `label` shows. */
  const shownSecret = (page: Page, label: RegExp) => page.getByRole('group', { name: label }).locator('code[data-secret]').innerText();

  it('API keys (ko, then en): a read-only key limited to an account, with an expiry; its secret works once shown, a write is refused; disable → 401; delete', async () => {
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, who(), { locale: 'ko-KR', path: '/dashboard/developers' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await page.getByRole('heading', { name: 'API 키', exact: true }).waitFor();
    await page.locator(`tr[data-api-key-id="${m.apiKey.id}"]`).waitFor();
    await checkPage(page, 'developers-keys-ko');

    // An expiry in the past: the API's refusal, in the page.
    await page.getByLabel('이름').fill('지난 키');
    await page.getByLabel(/만료일/).fill('2020-01-01');
    await page.getByRole('button', { name: '만들기' }).click();
    await page.getByRole('alert').filter({ hasText: 'expiresAt' }).waitFor();

    // Usable through 30 days from now (a KST date): it stops at the next KST midnight.
    const day = new Date(Date.now() + 9 * 3600_000 + 30 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('이름').fill('읽기 전용 키');
    await page.getByLabel(/읽기 전용/).check();
    await page.getByRole('radio', { name: '선택한 계좌만' }).check();
    await page.getByRole('checkbox', { name: new RegExp(m.bankAccount.number) }).check();
    await page.getByLabel(/만료일/).fill(day);
    await page.getByRole('button', { name: '만들기' }).click();
    const secret = await shownSecret(page, /새 API 키의 비밀 값/);
    expect(secret).toMatch(/^sk_live_/);
    await page.getByRole('button', { name: /^복사: 새 API 키의 비밀 값/ }).click();
    await page.getByRole('button', { name: /^복사했습니다: 새 API 키의 비밀 값/ }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await checkPage(page, 'developers-key-secret-ko');

    // The key as the API has it.
    const key = (await keys()).find((k) => k.name === '읽기 전용 키')!;
    expect(key).toMatchObject({ readOnly: true, bankAccountIds: [m.bankAccount.id], disabledAt: null, lastUsedAt: null });
    expect(Date.parse(key.expiresAt!)).toBe(Date.parse(`${day}T00:00:00+09:00`) + 86_400_000);
    // The shown secret reads, and is refused a write.
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: secret })).status).toBe(200);
    const write = await t.client.request('POST', '/v1/invoices', { token: secret, body: { bankAccountIds: [m.bankAccount.id], customer: { name: '쓰기' }, amount: 1000 } });
    expect(write.status).toBe(403);
    expect(JSON.stringify(write.body)).toContain('INSUFFICIENT_PERMISSIONS');

    // The list, re-read: read-only, the account, last used now (the GET above), active.
    await page.reload();
    const row = page.locator(`tr[data-api-key-id="${key.id}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('읽기 전용');
    expect(await row.innerText()).toContain(m.bankAccount.number);
    expect(await row.locator('td[data-state]').getAttribute('data-state')).toBe('active');
    expect(await row.locator('td[data-last-used]').getAttribute('data-last-used')).toBe((await keys()).find((k) => k.id === key.id)!.lastUsedAt);
    // Shown once: the reloaded page has no secret.
    expect(await page.locator('code[data-secret]').count()).toBe(0);

    // Disable: refused at once.
    await row.getByRole('button', { name: '사용 중지: 읽기 전용 키' }).click();
    await row.locator('td[data-state="disabled"]').waitFor();
    expect((await t.client.request('GET', '/v1/invoices?offset=0&limit=1', { token: secret })).status).toBe(401);

    // English, then delete (asked first; Cancel keeps it).
    await page.getByLabel('언어').selectOption('en');
    await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
    await checkPage(page, 'developers-keys-en');
    await row.getByRole('button', { name: 'Delete: 읽기 전용 키' }).click();
    await row.getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Delete: 읽기 전용 키' }).click();
    await row.getByRole('button', { name: 'Confirm delete: 읽기 전용 키' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await keys()).map((k) => k.id)).not.toContain(key.id);
    expect((await keys()).map((k) => k.id)).toContain(m.apiKey.id);

    expect(foreign, 'requests to other origins').toEqual([]);
    // The expected console error: the browser's report of the refused expiry (a validation error, HTTP 400 or 422).
    expect(problems.filter((p) => !/status of 4(00|22)/.test(p))).toEqual([]);
    await context.close();
  }, 60_000);

  it('a webhook (en, then ko): secret shown once, the delivery log of a failed then retried attempt, a redelivery from the page, a rotation', async () => {
    // The first delivery to this workspace's webhook fails (500); every later one succeeds.
    let failed = false;
    rx.respond = (_n, r) => (r.json?.workspaceId === m.workspaceId && !failed ? ((failed = true), 500) : 200);
    const url = `${rx.url}?dashboard`;
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, who(), { locale: 'en-US', path: '/dashboard/developers/webhooks' });
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    await checkPage(page, 'developers-webhooks-en');

    // A URL the API refuses (not http(s)): its message in the page.
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('alert').filter({ hasText: 'WEBHOOK_URL_FORBIDDEN' }).waitFor();

    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByLabel('Version').selectOption('V2');
    expect(await page.locator('#webhook-events').innerText()).toContain('transaction.received');
    await page.getByRole('button', { name: 'Create' }).click();
    const secret = await shownSecret(page, /The webhook’s signing secret/);
    expect(secret).toMatch(/^whsec_/);
    await checkPage(page, 'developers-webhook-secret-en');
    const hooks = (await t.client.gql(`{ webhooks { id url version enabled } }`, {}, m.sessionToken)).webhooks as { id: string; url: string; version: string; enabled: boolean }[];
    expect(hooks).toEqual([{ id: expect.stringMatching(/^whd_/), url, version: 'V2', enabled: true }]);
    const hookId = hooks[0]!.id;

    // An invoice: its invoice.created fails once (500), then the retry succeeds.
    const invoice = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '웹훅기록' }, amount: 41_000 } });
    expect(invoice.status).toBe(201);
    type Attempt = { id: string; eventId: string; attempt: number; status: string; responseStatus: number | null; durationMs: number };
    const DELIVERIES = `query($id: ID!) { webhook(id: $id) { deliveries { id eventId attempt status responseStatus durationMs } } }`;
    const deliveries = async () => (await t.client.gql(DELIVERIES, { id: hookId }, m.sessionToken)).webhook.deliveries as Attempt[];
    const first = await until(deliveries, (d) => d.some((x) => x.status === 'SUCCEEDED'), 20_000, 200);
    expect(first.map((d) => [d.attempt, d.status, d.responseStatus])).toEqual([
      [2, 'SUCCEEDED', 200],
      [1, 'FAILED', 500],
    ]);
    const eventId = first[0]!.eventId;
    const got = () => rx.received.filter((r) => r.headers['webhook-id'] === eventId);
    expect(got().map((r) => r.json.type)).toEqual(['invoice.created', 'invoice.created']);

    // The log: per attempt its status, response code and duration, as the API recorded them.
    await page.getByRole('link', { name: `Delivery log: ${url}` }).click();
    await page.getByRole('heading', { name: `Webhooks: ${url}` }).waitFor();
    const rows = page.locator('tr[data-delivery-id]');
    expect(await until(() => rows.count(), (n) => n === 2)).toBe(2);
    for (const d of first) {
      const row = page.locator(`tr[data-delivery-id="${d.id}"]`);
      expect(await row.locator('td[data-status]').innerText()).toBe(d.status === 'SUCCEEDED' ? 'Succeeded' : 'Failed');
      expect(await row.locator('td[data-response-status]').innerText()).toBe(String(d.responseStatus));
      expect(await row.locator('td[data-duration-ms]').innerText()).toBe(`${d.durationMs} ms`);
      expect(await row.locator('td[data-attempt]').innerText()).toBe(String(d.attempt));
    }
    await checkPage(page, 'developers-webhook-log-en');

    // Redeliver from the page: a fresh round (attempt 1) appears by itself, and the receiver got the event again,
    // signed with the secret the page showed.
    await page.getByRole('button', { name: `Redeliver: ${eventId}` }).click();
    await page.getByRole('status').filter({ hasText: 'Redelivery scheduled' }).waitFor();
    expect(await until(() => rows.count(), (n) => n === 3, 20_000, 200)).toBe(3);
    const newest = rows.first();
    expect([await newest.getAttribute('data-event-id'), await newest.locator('td[data-attempt]').innerText(), await newest.locator('td[data-status]').innerText()]).toEqual([eventId, '1', 'Succeeded']);
    expect(await newest.locator('td[data-response-status]').innerText()).toBe('200');
    expect(got()).toHaveLength(3);
    for (const r of got()) expect(signedBy(secret, r)).toBe(true);
    expect(got()[2]!.json.data.invoice.id).toBe(invoice.body.data.id);

    // Rotate: the new secret shown once; the next redelivery is signed by it (and by the old one for 24 hours).
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = await shownSecret(page, /The webhook’s signing secret/);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: `Redeliver: ${eventId}` }).click();
    expect(await until(() => rows.count(), (n) => n === 4, 20_000, 200)).toBe(4);
    await rx.waitFor(() => got().length === 4);
    expect([signedBy(rotated, got()[3]!), signedBy(secret, got()[3]!)]).toEqual([true, true]);

    // Korean; change the URL, disable, then delete (asked first) → back to the list, which is empty.
    await page.getByLabel('Language').selectOption('ko');
    await page.getByRole('heading', { name: `웹훅: ${url}` }).waitFor();
    await checkPage(page, 'developers-webhook-log-ko');
    const moved = `${rx.url}?moved`;
    await page.getByLabel('받을 주소 (URL)').fill(moved);
    await page.getByRole('button', { name: '주소 변경' }).click();
    await page.getByRole('heading', { name: `웹훅: ${moved}` }).waitFor();
    await page.getByRole('button', { name: '사용 중지' }).click();
    await page.locator('dd[data-enabled="false"]').waitFor();
    expect((await t.client.gql(`{ webhooks { url enabled } }`, {}, m.sessionToken)).webhooks).toEqual([{ url: moved, enabled: false }]);
    await page.getByRole('button', { name: `삭제: ${moved}` }).click();
    await page.getByRole('button', { name: `삭제 확인: ${moved}` }).click();
    await page.getByText('웹훅이 없습니다.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/developers/webhooks');
    expect((await t.client.gql(`{ webhooks { id } }`, {}, m.sessionToken)).webhooks).toEqual([]);
    await checkPage(page, 'developers-webhooks-ko');

    expect(foreign, 'requests to other origins').toEqual([]);
    // The expected console error: the browser's report of the refused URL (HTTP 422).
    expect(problems.filter((p) => !/status of 4(00|22)/.test(p))).toEqual([]);
    await context.close();
    rx.respond = () => 200;
  }, 90_000);

  it('an OAuth app (ko, then en): its client secret shown once exchanges a code for a token; the grant is listed', async () => {
    const redirect = 'https://partner.example/callback';
    const { page, context, foreign, problems } = await openDashboard(browser, t.url, who(), { locale: 'ko-KR', path: '/dashboard/developers/oauth-apps' });
    await page.getByRole('heading', { name: 'OAuth 앱', exact: true }).waitFor();
    await page.getByText('OAuth 앱이 없습니다.').waitFor();
    await checkPage(page, 'developers-oauth-ko');

    // A redirect URI the API refuses (plain http off localhost): its message in the page.
    await page.getByLabel('이름').fill('파트너 앱');
    await page.getByLabel(/리디렉션 URI/).fill('http://evil.example/cb');
    await page.getByRole('button', { name: '만들기' }).click();
    await page.getByRole('alert').filter({ hasText: 'VALIDATION_FAILED' }).waitFor();

    await page.getByLabel(/리디렉션 URI/).fill(`${redirect}\nhttp://localhost:3000/cb`);
    await page.getByRole('button', { name: '만들기' }).click();
    const clientSecret = await shownSecret(page, /새 OAuth 앱의 클라이언트 비밀 값/);
    const clientId = await page.locator('code[data-client-id]').innerText();
    expect([clientId, clientSecret]).toEqual([expect.stringMatching(/^oap_/), expect.stringMatching(/^oas_/)]);
    await checkPage(page, 'developers-oauth-secret-ko');
    const apps = (await t.client.gql(`{ oauthApps { id name redirectUris } }`, {}, m.sessionToken)).oauthApps;
    expect(apps).toEqual([{ id: clientId, name: '파트너 앱', redirectUris: [redirect, 'http://localhost:3000/cb'] }]);

    // The shown secret is the app's: with it, an authorization code becomes an access token.
    const code = (await t.client.gql(`mutation($i: AuthorizeOAuthAppInput!) { authorizeOAuthApp(input: $i) { code } }`, { i: { clientId, redirectUri: redirect } }, m.sessionToken)).authorizeOAuthApp.code;
    const token = await t.client.request('POST', '/v2/oauth-apps/token', {
      rawBody: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`${clientId}:${clientSecret}`).toString('base64') },
    });
    expect(token.status).toBe(200);
    expect(JSON.stringify(token.body)).toMatch(/oat_/);

    // Re-read in English: the app listed, its secret no longer shown, the workspace's grant to it.
    await page.getByLabel('언어').selectOption('en');
    await page.reload();
    await page.locator(`tr[data-oauth-app-id="${clientId}"]`).waitFor();
    const grant = page.locator('tr[data-grant-id]');
    await grant.waitFor();
    expect(await grant.innerText()).toContain('파트너 앱');
    expect(await grant.locator('td[data-revoked]').innerText()).toBe('Active');
    expect(await page.locator('code[data-secret]').count()).toBe(0);
    await checkPage(page, 'developers-oauth-en');

    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems.filter((p) => !/status of 4(00|22)/.test(p))).toEqual([]);
    await context.close();
  }, 60_000);
});
