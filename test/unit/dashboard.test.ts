/**
 * The dashboard's logic outside the browser: its GraphQL types are the committed schema's; its words (every one in both
 * languages, none empty), won and KST; which screen an address shows.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dictionary, initialLang, kst, t, won, WORDS } from '../../src/dashboard/i18n.ts';
import { pathOf, routeOf } from '../../src/dashboard/routes.ts';
import { w as deposits } from '../../src/dashboard/screens/deposits/words.ts';
import { w as developers } from '../../src/dashboard/screens/developers/words.ts';
import { w as home } from '../../src/dashboard/screens/home/words.ts';
import { REFUSALS as invoiceRefusals, w as invoices } from '../../src/dashboard/screens/invoices/words.ts';
import { w as receipts } from '../../src/dashboard/screens/receipts/words.ts';
import { w as reconciliation } from '../../src/dashboard/screens/reconciliation/words.ts';
import { w as settings } from '../../src/dashboard/screens/settings/words.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

describe("the dashboard's GraphQL types", () => {
  it('src/dashboard/graphql-env.d.ts is the introspection of schema/schema.graphql (run `npm run schema:write` after a change)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'tada-')), 'graphql-env.d.ts');
    execFileSync(join(ROOT, 'node_modules/.bin/gql-tada'), ['generate', 'output', '-c', 'src/dashboard/tsconfig.json', '-o', out], { cwd: ROOT, stdio: 'pipe' });
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(ROOT, 'src/dashboard/graphql-env.d.ts'), 'utf8'));
  }, 60_000);
});

describe("the dashboard's words", () => {
  it('Korean for a browser that prefers Korean, English otherwise, a choice made here first', () => {
    expect(initialLang(null, ['ko-KR', 'en-US'])).toBe('ko');
    expect(initialLang(null, ['en-US', 'ko'])).toBe('ko');
    expect(initialLang(null, ['en-GB'])).toBe('en');
    expect(initialLang(null, [])).toBe('en');
    expect(initialLang('en', ['ko-KR'])).toBe('en');
    expect(initialLang('fr', ['ko-KR'])).toBe('ko');
    expect([t('ko', 'PAID'), t('en', 'PAID')]).toEqual(['입금 완료', 'Paid']);
  });
  it('amounts in won with thousands separators, times in KST', () => {
    expect(won('ko', 1_234_000)).toBe('1,234,000원');
    expect(won('en', 1_234_000)).toBe('₩1,234,000');
    expect(won('ko', 0)).toBe('0원');
    expect(kst('2026-11-26T15:04:59.999Z')).toBe('2026-11-27 00:04');
  });
});

describe('every word in both languages', () => {
  const tables: Record<string, Record<string, Record<string, unknown>>> = {
    common: WORDS,
    'invoices refusals': invoiceRefusals,
    deposits: deposits.words,
    developers: developers.words,
    home: home.words,
    invoices: invoices.words,
    receipts: receipts.words,
    reconciliation: reconciliation.words,
    settings: settings.words,
  };

  it('each screen folder has its words here', () => {
    const folders = readdirSync(join(ROOT, 'src/dashboard/screens')).filter((f) => existsSync(join(ROOT, 'src/dashboard/screens', f, 'words.ts')));
    expect(folders.sort()).toEqual(Object.keys(tables).filter((k) => !['common', 'invoices refusals'].includes(k)).sort());
  });

  it('no word lacks Korean or English, none is empty, none has a third language', () => {
    for (const [table, words] of Object.entries(tables)) {
      for (const [word, langs] of Object.entries(words)) {
        expect(Object.keys(langs).sort(), `${table}.${word}`).toEqual(['en', 'ko']);
        for (const lang of ['ko', 'en'] as const) {
          const text = langs[lang];
          expect(typeof text === 'string' && text.trim() !== '', `${table}.${word}.${lang}`).toBe(true);
        }
      }
    }
  });

  it("a screen's dictionary answers its words in the language asked", () => {
    const w = dictionary({ save: { ko: '저장', en: 'Save' } });
    expect([w('ko', 'save'), w('en', 'save')]).toEqual(['저장', 'Save']);
    expect(w.words).toEqual({ save: { ko: '저장', en: 'Save' } });
  });

  it('won and KST at the edges: negative and large amounts, the Korean midnight, a new year', () => {
    expect(won('ko', -5_000)).toBe('-5,000원');
    expect(won('en', 9_007_199_254_740_991)).toBe('₩9,007,199,254,740,991');
    expect(kst('2026-11-26T14:59:59Z')).toBe('2026-11-26 23:59');
    expect(kst('2026-11-26T15:00:00Z')).toBe('2026-11-27 00:00');
    expect(kst('2026-12-31T15:00:00+00:00')).toBe('2027-01-01 00:00');
    expect(kst('2026-11-27T00:00:00+09:00')).toBe('2026-11-27 00:00');
  });
});

describe('which screen an address shows', () => {
  const SCREENS = ['/dashboard', '/dashboard/invoices', '/dashboard/deposits', '/dashboard/receipts', '/dashboard/reconciliation', '/dashboard/developers', '/dashboard/settings'].map((path) => ({ path }));
  const shown = (path: string) => {
    const found = routeOf(SCREENS, path);
    return found && [found.screen.path, found.rest];
  };

  it('the path as the app reads it: trailing slashes dropped, the bare root the home screen', () => {
    expect(pathOf('/dashboard/')).toBe('/dashboard');
    expect(pathOf('/dashboard/invoices//')).toBe('/dashboard/invoices');
    expect(pathOf('/')).toBe('/dashboard');
    expect(pathOf('')).toBe('/dashboard');
  });

  it('the longest screen path it is or is below, and the path below it', () => {
    expect(shown('/dashboard')).toEqual(['/dashboard', '']);
    expect(shown('/dashboard/invoices')).toEqual(['/dashboard/invoices', '']);
    expect(shown('/dashboard/invoices/inv_123')).toEqual(['/dashboard/invoices', '/inv_123']);
    expect(shown('/dashboard/deposits/texts')).toEqual(['/dashboard/deposits', '/texts']);
    // Order of the list does not matter: the longest wins.
    expect(routeOf([...SCREENS].reverse(), '/dashboard/settings')?.screen.path).toBe('/dashboard/settings');
  });

  it('an unknown path is no screen, not the home screen; a prefix of a word is not the screen', () => {
    expect(shown('/dashboard/nope')).toBeNull();
    expect(shown('/dashboard/invoicesx')).toBeNull();
    expect(shown('/dashboardx')).toBeNull();
    expect(shown('/other')).toBeNull();
    expect(shown('')).toBeNull();
  });
});
