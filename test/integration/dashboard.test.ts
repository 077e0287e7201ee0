/**
 * The merchant dashboard in a real browser (headless Chromium from Debian's package, driven by playwright-core): the
 * page and its assets from this service only, under its Content-Security-Policy; log in (the session in an HttpOnly
 * cookie no script sees), the invoice list with amounts in won and times in KST, Korean for a Korean browser and
 * English on demand, log out. Needs Chromium as browser.test.ts does (CI installs it; elsewhere skipped with a note).
 */
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { DASHBOARD_CSP } from '../../src/http/dashboard.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, noteSkippedWithoutChromium, openPage, runBrowserTests } from '../helpers/browser.ts';
import { checkPage, openDashboard } from '../helpers/dashboard.ts';
import { build, isStale } from '../../scripts/build.mjs';

noteSkippedWithoutChromium('dashboard.test.ts');

let t: TestApp;
let m: Bootstrapped;
beforeAll(async () => {
  // The dashboard's assets are built by `npm install` / `npm run build`: rebuilt here when a source changed since.
  if (isStale()) await build();
  t = await startTestApp();
  m = await bootstrap(t.client);
}, 120_000);
afterAll(() => t?.stop());

describe('the dashboard over HTTP', () => {
  it('every path under /dashboard is the one page, linking only its own assets, under a policy of this origin only', async () => {
    for (const path of ['/dashboard', '/dashboard/invoices', '/dashboard/anything/below']) {
      const res = await fetch(`${t.url}${path}`);
      expect([path, res.status, res.headers.get('content-type'), res.headers.get('content-security-policy'), res.headers.get('x-frame-options')]).toEqual([path, 200, 'text/html; charset=utf-8', DASHBOARD_CSP, 'DENY']);
      const html = await res.text();
      expect(html).not.toMatch(/https?:\/\/|<script>|style=/);
      expect([...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((x) => x[1]).sort()).toEqual(['/dashboard/assets/app.css', '/dashboard/assets/app.js', '/dashboard/assets/icon.svg']);
    }
    // Its icon, so that a browser does not ask for /favicon.ico (a 404 in its console).
    const icon = await fetch(`${t.url}/dashboard/assets/icon.svg`);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
    const js = await fetch(`${t.url}/dashboard/assets/app.js`);
    expect([js.status, js.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    // The initial script's budget (the issue: at most 250 KB gzipped): app.js and the chunks it imports at once, as
    // served. The screens' chunks, loaded when first shown (import("./chunk-...")), are not initial.
    const initial = new Map<string, Buffer>([['app.js', Buffer.from(await js.arrayBuffer())]]);
    for (const [, body] of initial) {
      for (const [, name] of body.toString('utf8').matchAll(/(?:^|[;}\s])import\s*(?:[^"()]*?from\s*)?"\.\/(chunk-[\w-]+\.js)"/g)) {
        if (initial.has(name!)) continue;
        const chunk = await fetch(`${t.url}/dashboard/assets/${name}`);
        expect([name, chunk.status, chunk.headers.get('cache-control')]).toEqual([name, 200, 'public, max-age=31536000, immutable']);
        initial.set(name!, Buffer.from(await chunk.arrayBuffer()));
      }
    }
    const gzipped = [...initial.values()].reduce((n, b) => n + gzipSync(b).byteLength, 0);
    expect(initial.size).toBeGreaterThan(1);
    expect(gzipped).toBeLessThan(250_000);
    // The screens are chunks of their own: the initial script does not carry them.
    expect([...initial.values()].some((b) => b.toString('utf8').includes('DashboardInvoices'))).toBe(false);
    expect((await fetch(`${t.url}/dashboard/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${t.url}/dashboard/assets/../../package.json`)).status).not.toBe(200);
  });
});

describe.skipIf(!runBrowserTests)('the dashboard in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The dashboard in a fresh context in `locale`, only the app's origin let through (openPage). */
  const open = (locale: string) => openPage(browser, `${t.url}/dashboard`, { locale, viewport: { width: 1280, height: 900 } });

  it('a Korean browser logs in, sees its invoices in won and KST, switches to English, and logs out', async () => {
    const created = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '대시보드' }, amount: 31_000 } });
    expect(created.status).toBe(201);
    const { page, context, foreign, problems } = await open('ko-KR');
    // Korean by default for a Korean browser; the form's controls have their labels.
    await page.getByRole('heading', { name: '입금 확인 대시보드' }).waitFor();
    await checkPage(page, 'login-ko');
    await page.getByLabel('이메일').fill(m.email);
    await page.getByLabel('비밀번호').fill('not-the-password-1');
    await page.getByRole('button', { name: '로그인' }).click();
    await page.getByRole('alert').filter({ hasText: '이메일 또는 비밀번호가 올바르지 않습니다.' }).waitFor();
    await page.getByLabel('비밀번호').fill(m.password);
    await page.getByRole('button', { name: '로그인' }).click();
    await page.getByRole('link', { name: '주문서' }).click();
    // The list: the invoice's row, its amount in won, its time in KST.
    const row = page.locator(`tr[data-invoice-id="${created.body.data.id}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('31,000원');
    await checkPage(page, 'invoices-ko');
    expect(await row.innerText()).toContain('입금 대기');
    const kst = new Date(new Date(created.body.data.issuedAt).getTime() + 9 * 3600_000).toISOString().slice(0, 16).replace('T', ' ');
    expect(await row.innerText()).toContain(kst);
    // The session is in an HttpOnly cookie: no script of the page sees it, and nothing keeps it in storage.
    expect(await page.evaluate(() => document.cookie)).not.toContain('btp_session');
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toMatch(/sess_/);
    expect((await context.cookies()).find((c) => c.name === 'btp_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    // English on demand, kept for the next visit.
    await page.getByLabel('언어').selectOption('en');
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    expect(await row.innerText()).toContain('₩31,000');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await page.reload();
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    // Log out: back to the log-in form, and the cookie is gone.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect((await context.cookies()).find((c) => c.name === 'btp_session')).toBeUndefined();
    expect(foreign, 'requests to other origins').toEqual([]);
    // The expected console errors: the browser's own reports of a 401 (the logged-out page's first question, the wrong
    // password).
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
    await context.close();
  }, 60_000);

  it('a deposit that pays an invoice updates the open list by itself', async () => {
    const created = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '실시간' }, amount: 32_100 } });
    expect(created.status).toBe(201);
    const { page, context, foreign, problems } = await open('en-US');
    // The page's subscription, as its WebSocket sends it (the deposit below comes after it, as a buyer's would).
    const subscribed = new Promise<void>((resolve) =>
      page.on('websocket', (ws) => ws.on('framesent', (f) => String(f.payload).includes('"type":"subscribe"') && resolve())),
    );
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Password').fill(m.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('link', { name: 'Invoices' }).click();
    const status = page.locator(`tr[data-invoice-id="${created.body.data.id}"] td[data-status]`);
    await status.waitFor();
    expect(await status.getAttribute('data-status')).toBe('PENDING');
    await subscribed;
    expect((await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '실시간', amount: 32_100 })).status).toBe(201);
    await page.locator(`tr[data-invoice-id="${created.body.data.id}"] td[data-status="PAID"]`).waitFor({ timeout: 10_000 });
    // An invoice created elsewhere appears too.
    const other = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '새주문' }, amount: 32_200 } });
    await page.locator(`tr[data-invoice-id="${other.body.data.id}"]`).waitFor({ timeout: 10_000 });
    expect(foreign, 'requests to other origins').toEqual([]);
    // The one expected console error: the browser's own report of the logged-out page's first question (HTTP 401).
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
    await context.close();
  }, 60_000);

  it('an ambiguous deposit shows its candidates, and one click matches it to the right one', async () => {
    const invoice = async (name: string) => {
      const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount: 33_300 } });
      expect(r.status).toBe(201);
      return r.body.data as { id: string };
    };
    // '[주문]홍길동' fits both by bracket removal (README, matching table): AMBIGUOUS, both candidates.
    const plain = await invoice('홍길동');
    const bracketed = await invoice('[주문]홍길동님');
    const deposit = await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '[주문]홍길동', amount: 33_300 });
    expect(deposit.status).toBe(201);
    const { page, context, foreign, problems } = await open('en-US');
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Password').fill(m.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('link', { name: 'Deposits' }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard/deposits');
    const row = page.locator(`tr[data-transaction-id="${deposit.body.transactionId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('Several invoices match');
    expect(await row.locator('button[data-candidate-id]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-candidate-id')).sort())).toEqual([plain.id, bracketed.id].sort());
    const button = row.locator(`button[data-candidate-id="${plain.id}"]`);
    expect(await button.getAttribute('aria-label')).toMatch(/^Match to this invoice: #\d+ 홍길동 ₩33,300$/);
    await button.click();
    await row.locator('td[data-matched="true"]').waitFor();
    expect(await row.innerText()).toContain('Matched (MANUAL)');
    const paid = await t.client.request('GET', `/v1/invoices/${plain.id}`, { token: m.apiKey.secret });
    expect(paid.body.data.paid).toBe(true);
    const other = await t.client.request('GET', `/v1/invoices/${bracketed.id}`, { token: m.apiKey.secret });
    expect(other.body.data.paid).toBe(false);
    // The section is in the address: a reload stays on the deposits.
    await page.reload();
    await page.getByRole('heading', { name: 'Deposits' }).waitFor();
    expect(foreign, 'requests to other origins').toEqual([]);
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
    await context.close();
  }, 60_000);
  it('a session ended elsewhere (another tab logged out, or it expired) brings back the log-in form at the next step', async () => {
    const { page, context, foreign } = await openDashboard(browser, t.url, m, { path: '/dashboard/invoices' });
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    // Another tab logs out: the session ends on the server (the cookie jar is shared, as a browser's is).
    const out = await context.request.delete(`${t.url}/dashboard/session`, { headers: { origin: t.url } });
    expect(out.status()).toBe(204);
    // The next step: a click on Deposits, unless the open list's live subscription, refused on its next connection,
    // already brought the log-in form back (either is the session's end seen at once).
    const logInButton = page.getByRole('button', { name: 'Log in' });
    if (!(await logInButton.isVisible())) await page.getByRole('link', { name: 'Deposits' }).click({ timeout: 5_000 }).catch(() => {});
    await logInButton.waitFor();
    expect(await page.getByRole('heading', { name: 'Deposits' }).count()).toBe(0);
    // Logging in again brings back the screen the address names (Deposits after the click, Invoices if the form came
    // back before it).
    const screen = new URL(page.url()).pathname === '/dashboard/deposits' ? 'Deposits' : 'Invoices';
    await page.getByLabel('E-mail').fill(m.email);
    await page.getByLabel('Password').fill(m.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: screen }).waitFor();
    expect(foreign).toEqual([]);
    await context.close();
  }, 60_000);
  it('works from the keyboard alone: log in, reach a section by Tab and open it with Enter', async () => {
    const { page, context, foreign } = await open('en-US');
    await page.getByRole('heading', { name: 'Bank-transfer dashboard' }).waitFor();
    /** Tabs until the focused element satisfies `is` (at most 40 presses); its description otherwise. */
    const tabTo = async (what: string, is: (el: { tag: string; name: string; text: string }) => boolean) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        const el = await page.evaluate(() => {
          const a = document.activeElement as HTMLElement | null;
          return { tag: a?.tagName ?? '', name: a?.getAttribute('name') ?? '', text: (a?.textContent ?? '').trim() };
        });
        if (is(el)) return;
      }
      throw new Error(`Tab never reached ${what}`);
    };
    await tabTo('the e-mail field', (el) => el.tag === 'INPUT' && el.name === 'email');
    await page.keyboard.type(m.email);
    await tabTo('the password field', (el) => el.tag === 'INPUT' && el.name === 'password');
    await page.keyboard.type(m.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    await tabTo('the Deposits link', (el) => el.tag === 'A' && el.text === 'Deposits');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Deposits' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/deposits');
    // The focus ring is visible where the keyboard is (the style sheet's :focus-visible outline).
    await tabTo('a control', (el) => el.tag === 'A' || el.tag === 'BUTTON' || el.tag === 'INPUT' || el.tag === 'SELECT');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    expect(foreign).toEqual([]);
    await context.close();
  }, 60_000);
});
