/** The dashboard's logic outside the browser: its GraphQL types are the committed schema's; its words, won and KST. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialLang, kst, t, won } from '../../src/dashboard/i18n.ts';

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
