/**
 * The dashboard's browser tests share these: a page already logged in (the session cookie set as the log-in form sets
 * it), and `checkPage`, which runs axe-core on the page as it stands (no serious or critical violation, the issue's
 * bar) and keeps a screenshot under test/output/screenshots/<embedded|postgresql>/ (CI keeps that folder as an artifact; git ignores it).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { onPostgres } from './app.ts';
import { openPage, type OpenedPage } from './browser.ts';

/** One folder per database mode: CI runs the suite on both, and keeps both sets. */
export const SCREENSHOTS = join(import.meta.dirname, '..', 'output', 'screenshots', onPostgres ? 'postgresql' : 'embedded');

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The dashboard at `path`, logged in as `who` through POST /dashboard/session from the page's own origin (the cookie
 * the form would get), in a fresh context of `locale`.
 */
export async function openDashboard(browser: Browser, baseUrl: string, who: { email: string; password: string }, options: { locale?: string; path?: string } = {}): Promise<OpenedPage> {
  const opened = await openPage(browser, `${baseUrl}/dashboard/assets/app.css`, { locale: options.locale ?? 'en-US', viewport: { width: 1280, height: 900 } });
  const res = await opened.page.request.post(`${baseUrl}/dashboard/session`, { data: who, headers: { origin: baseUrl } });
  expect(res.status(), await res.text()).toBe(200);
  await opened.page.goto(`${baseUrl}${options.path ?? '/dashboard'}`, { waitUntil: 'load' });
  return opened;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/**
 * axe-core on the page now (WCAG 2.1 A and AA and best practices): the serious and critical violations, which the test
 * expects none of; and a full-page screenshot named `name`.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  // Injected through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations;
  })) as AxeViolation[];
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `axe-core on ${name}`).toEqual([]);
}
