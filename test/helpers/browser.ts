/**
 * Headless Chromium for the browser tests (Debian's `chromium` package, driven by playwright-core: nothing is
 * downloaded). Without it the browser tests are skipped with a note, except under CI=1 (`.ci/run` installs it), where
 * they fail.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
export const chromiumRequired = !!process.env.CI;
/** Whether a file's browser tests run: Chromium is here, or CI requires it (then launchChromium fails without it). */
export const runBrowserTests = haveChromium || chromiumRequired;

/** Notes, once per file, that its browser tests are skipped. */
export function noteSkippedWithoutChromium(file: string): void {
  if (!runBrowserTests) console.warn(`${file}: the browser tests are SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH). Under CI=1 they fail instead.`);
}

/**
 * Headless, in a fresh temporary profile (playwright's launch makes one and removes it on close). Nothing but the page:
 * no background, update, sync or QUIC traffic (a closed network refuses it and Chromium stalls).
 */
export async function launchChromium(): Promise<Browser> {
  if (!haveChromium) throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH.`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  /** Requests (and WebSockets) to any other origin than the app's: blocked, and recorded here. */
  foreign: string[];
  /** Console errors and uncaught page errors. */
  problems: string[];
}

/** A page of the app at `url` in a fresh context (its own storage) that lets through only the app's origin. */
export async function openPage(browser: Browser, url: string, options: { locale?: string; viewport?: { width: number; height: number } } = {}): Promise<OpenedPage> {
  const origin = new URL(url).origin;
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1600, height: 1000 }, ...(options.locale ? { locale: options.locale } : {}) });
  const foreign: string[] = [];
  const problems: string[] = [];
  await context.route('**/*', (route) => {
    const target = route.request().url();
    if (new URL(target).origin === origin) return route.continue();
    foreign.push(target);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol !== 'data:' && u.protocol !== 'blob:' && u.origin !== origin && !foreign.includes(r.url())) foreign.push(r.url());
  });
  page.on('websocket', (ws) => {
    if (new URL(ws.url()).host !== new URL(origin).host) foreign.push(ws.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url, { waitUntil: 'load' });
  return { page, context, foreign, problems };
}
