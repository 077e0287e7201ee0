/**
 * scripts/build.mjs, what `npm start` relies on to run the code as it is now: the staleness check (an edited source
 * rebuilds, an untouched or rewritten-but-equal one does not) and the source map kept to our own sources.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build as esbuild } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprint, isStale, ownSourcesOnly } from '../../scripts/build.mjs';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'btp-build-'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'dist'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('isStale: dist/ against the files it was built from', () => {
  const manifest = () => JSON.parse(readFileSync(join(root, 'dist/manifest.json'), 'utf8'));
  const built = (files: Record<string, string>) => {
    for (const [f, text] of Object.entries(files)) writeFileSync(join(root, f), text);
    writeFileSync(join(root, 'dist/manifest.json'), JSON.stringify({ inputs: fingerprint(Object.keys(files), root) }));
  };
  const later = (f: string) => utimesSync(join(root, f), new Date(), new Date(Date.now() + 5000));

  it('fresh when nothing changed', () => {
    built({ 'src/a.ts': 'export const a = 1;', 'src/b.ts': 'export const b = 2;' });
    expect(isStale(root)).toBe(false);
  });

  it('stale without a manifest (never built)', () => {
    writeFileSync(join(root, 'src/a.ts'), 'x');
    expect(isStale(root)).toBe(true);
  });

  it('stale when a source is edited, also to the same size and whatever its mtime', () => {
    built({ 'src/a.ts': 'export const a = 1;', 'src/b.ts': 'export const b = 2;' });
    writeFileSync(join(root, 'src/b.ts'), 'export const b = 3;');
    later('src/b.ts');
    expect(isStale(root)).toBe(true);
  });

  it('stale when a source grows, even with its old mtime', () => {
    built({ 'src/a.ts': 'export const a = 1;' });
    const mtime = new Date(manifest().inputs['src/a.ts'][1]);
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 10;');
    utimesSync(join(root, 'src/a.ts'), mtime, mtime);
    expect(isStale(root)).toBe(true);
  });

  it('stale when a source is gone, or was recorded as changed during the build', () => {
    built({ 'src/a.ts': 'export const a = 1;', 'src/b.ts': 'export const b = 2;' });
    rmSync(join(root, 'src/b.ts'));
    expect(isStale(root)).toBe(true);
    built({ 'src/a.ts': 'export const a = 1;' });
    writeFileSync(join(root, 'dist/manifest.json'), JSON.stringify({ inputs: { 'src/a.ts': null } }));
    expect(isStale(root)).toBe(true);
  });

  it('fresh when a file is rewritten with the same text (prisma generate, a checkout), and its settled mtime is recorded', () => {
    built({ 'src/a.ts': 'export const a = 1;' });
    const before = manifest().inputs['src/a.ts'];
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 1;');
    const settled = new Date(Math.floor(before[1] / 1000) * 1000 - 60_000);
    utimesSync(join(root, 'src/a.ts'), settled, settled);
    expect(isStale(root)).toBe(false);
    const after = manifest().inputs['src/a.ts'];
    expect(Math.round(after[1])).toBe(settled.getTime());
    expect([after[0], after[2]]).toEqual([before[0], before[2]]);
    // And the edit after that is still seen.
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 2;');
    later('src/a.ts');
    expect(isStale(root)).toBe(true);
  });

  it('a same-text rewrite within the last seconds is not recorded: a same-size edit in the same mtime tick is still seen', () => {
    built({ 'src/a.ts': 'export const a = 1;' });
    const before = manifest().inputs['src/a.ts'];
    const tick = new Date(Date.now() + 5000);
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 1;');
    utimesSync(join(root, 'src/a.ts'), tick, tick);
    expect(isStale(root)).toBe(false);
    expect(manifest().inputs['src/a.ts']).toEqual(before);
    writeFileSync(join(root, 'src/a.ts'), 'export const a = 2;');
    utimesSync(join(root, 'src/a.ts'), tick, tick);
    expect(isStale(root)).toBe(true);
  });
});

describe('ownSourcesOnly: the bundle source map keeps our own sources, and packages code is unmapped', () => {
  it('maps every position in our code as the full map does, and no position in a package', async () => {
    mkdirSync(join(root, 'node_modules/pkg'), { recursive: true });
    writeFileSync(join(root, 'node_modules/pkg/index.js'), 'export function helper(x) {\n  const y = x * 2;\n  return y + 1;\n}\nexport const big = [1, 2, 3].map((n) => n * 3);\n');
    writeFileSync(join(root, 'src/a.ts'), "import { helper } from 'pkg';\nexport function own(n: number): number {\n  const m: number = helper(n);\n  return m - 1;\n}\nconsole.log(own(1));\n");
    writeFileSync(join(root, 'src/b.ts'), "import { big } from 'pkg';\nimport { own } from './a.ts';\nexport const total = big.reduce((s, n) => s + own(n), 0);\n");
    const r = await esbuild({ absWorkingDir: root, entryPoints: ['src/b.ts'], bundle: true, format: 'esm', sourcemap: 'external', outdir: 'out', write: false });
    const js = r.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
    const full = JSON.parse(r.outputFiles.find((f) => f.path.endsWith('.map'))!.text);
    const kept = ownSourcesOnly(full);
    expect([...kept.sources].sort()).toEqual(['../src/a.ts', '../src/b.ts']);
    const [a, b] = [new SourceMap(full), new SourceMap(kept as unknown as SourceMapPayload)];
    let own = 0;
    let pkg = 0;
    js.split('\n').forEach((line, l) => {
      for (let c = 0; c < line.length; c++) {
        const want = a.findEntry(l, c) as { originalSource?: string; originalLine?: number; originalColumn?: number };
        const got = b.findEntry(l, c) as typeof want;
        if (want.originalSource?.includes('/src/')) {
          own++;
          expect([got.originalSource, got.originalLine, got.originalColumn]).toEqual([want.originalSource, want.originalLine, want.originalColumn]);
        } else if (want.originalSource) {
          pkg++;
          expect(got.originalSource).toBeUndefined();
        }
      }
    });
    expect(own).toBeGreaterThan(50);
    expect(pkg).toBeGreaterThan(50);
  });
});
