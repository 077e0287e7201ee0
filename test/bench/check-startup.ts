/**
 * `npx tsx test/bench/check-startup.ts [--runs N] [--pg]`: start-up of the service's node side, the TypeScript
 * through tsx (`node <flags> --import tsx src/main.ts`, the former `npm start`) beside the bundle (package.json's
 * `npm start`: scripts/start.mjs → dist/main.js), in alternating runs (default 5 each):
 *
 * - module load: a new node process imports src/http/app.ts (the whole service's module graph; nothing starts) through
 *   tsx, or the same entry bundled with scripts/build.mjs's options (source maps on, as scripts/start.mjs runs it):
 *   wall ms from the process' start and CPU ms (user + system) when the import has resolved, and RSS then;
 * - start: spawn → first /healthz 200 on an existing, already migrated database (the embedded one, under a DATA_DIR a
 *   first start made; `--pg`: a scratch PostgreSQL database on BENCH_DATABASE_URL), wall ms and CPU ms of the node
 *   process at that moment, then its RSS after 5 s idle (the node process alone, not a database server it runs).
 *
 * Also times the bundle's staleness check (scripts/build.mjs isStale(), in this process). Builds dist/ first if stale.
 * CPU ms are the steadier figure on a shared machine: wall time there is mostly waiting for a core.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, ROOT } from '../helpers/process.ts';
import { startNodeFlags } from './lib/node-flags.ts';
import { build, bundleOptions, isStale, ownSourcesOnly } from '../../scripts/build.mjs';

const argv = process.argv.slice(2);
const RUNS = Number(argv[argv.indexOf('--runs') + 1] || 0) || 5;
const onPg = argv.includes('--pg');
const FLAGS = startNodeFlags(onPg ? 'postgres' : 'embedded');
const TSX_START = [...FLAGS, '--import', 'tsx', 'src/main.ts'];
// What scripts/start.sh execs (`npm start`).
const BUNDLE_START = [...FLAGS, 'scripts/start.mjs'];

if (isStale()) await build();

// ── module load ──
const loadDir = join(ROOT, 'tmp', `check-startup-${process.pid}`);
rmSync(loadDir, { recursive: true, force: true });
const esbuild = await import('esbuild');
const r = await esbuild.build({ ...bundleOptions(), entryPoints: { app: 'src/http/app.ts' }, outdir: loadDir });
mkdirSync(loadDir, { recursive: true });
for (const f of r.outputFiles) writeFileSync(f.path, f.path.endsWith('.map') ? JSON.stringify(ownSourcesOnly(JSON.parse(f.text))) : f.contents);

const REPORT = `const u = process.cpuUsage(); console.log(JSON.stringify({ wall: performance.now(), cpu: (u.user + u.system) / 1000, rss: process.memoryUsage().rss / 1048576 }))`;
const LOADERS = {
  tsx: [...FLAGS, '--import', 'tsx', '--input-type=module', '-e', `await import('./src/http/app.ts'); ${REPORT}`],
  bundle: [...FLAGS, '--input-type=module', '-e', `process.setSourceMapsEnabled(true); await import('./tmp/${loadDir.split('/').pop()}/app.js'); ${REPORT}`],
};

type Figures = { wall: number; cpu: number; rss: number };
function loadOnce(args: string[]): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

// ── start to /healthz ──
const CLK_TCK = 100;
function procCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime, stime
}
function procRssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

async function startOnce(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<Figures> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${out}`);
      if (performance.now() - t0 > timeoutMs) throw new Error(`server not healthy in ${timeoutMs / 1000} s: ${out}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5000) }).then((res) => res.status === 200, () => false);
      if (ok) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    const wall = performance.now() - t0;
    const cpu = procCpuMs(child.pid!);
    await new Promise((res) => setTimeout(res, 5000));
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited while idle: ${out}`);
    return { wall, cpu, rss: procRssMb(child.pid!) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((res) => child.once('exit', res));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

const env: Record<string, string> = { DATA_DIR: mkdtempSync(join(tmpdir(), 'btp-startup-')), DATABASE_URL: '' };
let dropDb = async () => {};
if (onPg) {
  const base = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  const name = `startup_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.href;
  env.ENCRYPTION_KEY = '0'.repeat(64);
  dropDb = async () => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  };
}

const results: Record<string, Figures[]> = { 'load tsx': [], 'load bundle': [], 'start tsx': [], 'start bundle': [] };
try {
  // The first start creates and migrates the database; not measured.
  const first = await startOnce(BUNDLE_START, env, 600_000);
  console.log(`first start (new ${onPg ? 'PostgreSQL database' : 'data directory'}, migrations applied; bundle): ${first.wall.toFixed(0)} ms`);
  for (let i = 0; i < RUNS; i++) {
    results['load tsx'].push(await loadOnce(LOADERS.tsx));
    results['load bundle'].push(await loadOnce(LOADERS.bundle));
    results['start tsx'].push(await startOnce(TSX_START, env));
    results['start bundle'].push(await startOnce(BUNDLE_START, env));
    console.log(`run ${i + 1}/${RUNS}: ${Object.entries(results).map(([k, v]) => `${k} ${v[i].wall.toFixed(0)} ms (CPU ${v[i].cpu.toFixed(0)})`).join(', ')}`);
  }
} finally {
  await dropDb();
  rmSync(env.DATA_DIR, { recursive: true, force: true });
  rmSync(loadDir, { recursive: true, force: true });
}

const stale: number[] = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  isStale();
  stale.push(performance.now() - t);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs: number[]) => `${median(xs).toFixed(0).padStart(6)} (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;
console.log(`\n${onPg ? 'PostgreSQL' : 'embedded database'}, ${RUNS} runs each, median (min-max); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log(`${'what'.padEnd(14)} ${'wall ms'.padEnd(20)} ${'CPU ms'.padEnd(20)} RSS MB`);
for (const [what, xs] of Object.entries(results)) {
  console.log(`${what.padEnd(14)} ${fmt(xs.map((x) => x.wall)).padEnd(20)} ${fmt(xs.map((x) => x.cpu)).padEnd(20)} ${fmt(xs.map((x) => x.rss))}`);
}
console.log(`staleness check (isStale, ${Object.keys(JSON.parse(readFileSync(join(ROOT, 'dist/manifest.json'), 'utf8')).inputs).length} files): median ${median(stale).toFixed(1)} ms`);
