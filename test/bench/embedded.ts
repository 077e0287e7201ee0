/**
 * `npm run bench -- --only embedded`: the embedded default as a new user runs it — the real `npm start` (a child
 * process through npm, or with `--launch direct` the command of package.json's start script through `sh -c`) with a
 * fresh DATA_DIR and no DATABASE_URL — measured against the issue's goals:
 *
 *  - start-up: spawn → first `/healthz` 200, on the new directory and again (SIGTERM, restart) on the existing one;
 *  - memory of the whole process tree (the service and every process it starts, e.g. a PostgreSQL server and its
 *    backends; npm and the shell excluded): PSS summed (the goal's figure: each page counted once, a shared page
 *    divided among the processes sharing it) and VmRSS summed (which counts PostgreSQL's shared buffers once per
 *    backend that touched them, so it exceeds the memory used), idle after start and the peak while under load
 *    (sampled every 100 ms);
 *  - POST /v1/invoices and POST /bank-notifications (exact-name deposits for seeded pending invoices, lib/seed.ts),
 *    closed loop (lib/load.ts) at concurrency 8 and 32, side by side with a raw baseline (lib/raw-writes.ts) doing
 *    the same writes on the same embedded database, sides alternating in rounds.
 *
 * The raw baseline reaches the embedded database as lib/embedded-db.ts can: with PGlite (in the app's process) it is
 * a node:http server with its own PGlite on a copy of the app's data directory; with an embedded PostgreSQL server it
 * connects to that server (the URL from its postmaster.pid) while the app runs. Seeding and checks go through the
 * same access (PGlite: while the app is stopped).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { embeddedEngineOf, embeddedServerUrl, openPgliteOffline, type EmbeddedEngine } from './lib/embedded-db.ts';
import { runLoad, type LoadJob, type LoadResult } from './lib/load.ts';
import { cpuOf, memoryOf, processTree, sampleTreeMemory, type TreeMemory } from './lib/proc-tree.ts';
import { RAW_APPLICATION_NAME, startRawWrites, type RawWrites } from './lib/raw-writes.ts';
import { pickDeposits, seedInvoices, type DepositTarget } from './lib/seed.ts';
import { median, ms, num, table } from './lib/stats.ts';

export interface BenchContext {
  quick: boolean;
  option(name: string): string | undefined;
  log(s: string): void;
  step(s: string): void;
  cleanups: (() => Promise<void>)[];
  fail(message: string): void;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The issue's goals for the embedded default. */
export const EMBEDDED_GOALS = { startNewS: 3, startExistingS: 1, rssIdleMb: 250, rssLoadMb: 350, createsPerS: 600, depositsPerS: 600, p99Ms: 100, atConcurrency: 32 };

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function healthz(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/** Processes of a launch that are not the service: npm itself and the shell it runs the script through. */
const WRAPPERS = /^(npm|npm .*|sh|bash|dash)$/;

/** `npm start` (or the start script's command) as a child process in its own process group. */
export class Service {
  child!: ChildProcess;
  out = '';
  constructor(
    readonly env: Record<string, string>,
    readonly port: number,
    readonly launch: 'npm' | 'direct',
  ) {}

  /** Spawns it; resolves with the seconds from spawn to the first /healthz 200. */
  async start(timeoutMs = 120_000): Promise<number> {
    const inherited: Record<string, string | undefined> = { ...process.env };
    for (const k of ['DATABASE_URL', 'REDIS_URL', 'TEST_DATABASE_URL', 'NODE_OPTIONS', 'BENCH_CPU_PROF']) delete inherited[k];
    const env = { ...inherited, ...this.env, PORT: String(this.port) } as NodeJS.ProcessEnv;
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const t0 = performance.now();
    this.child =
      this.launch === 'npm'
        ? spawn('npm', ['start'], { cwd: ROOT, env, detached: true })
        : spawn('/bin/sh', ['-c', `exec ${script}`], { cwd: ROOT, env, detached: true });
    this.child.stdout!.on('data', (d) => (this.out = (this.out + d).slice(-20_000)));
    this.child.stderr!.on('data', (d) => (this.out = (this.out + d).slice(-20_000)));
    for (;;) {
      if (this.child.exitCode !== null) throw new Error(`npm start exited with ${this.child.exitCode}: ${this.out}`);
      if (await healthz(this.port)) return (performance.now() - t0) / 1000;
      if (performance.now() - t0 > timeoutMs) {
        this.kill('SIGKILL');
        throw new Error(`npm start did not answer /healthz within ${timeoutMs} ms: ${this.out}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The service's processes: the launched tree less npm and the shell. */
  pids(): number[] {
    if (!this.child?.pid) return [];
    return processTree(this.child.pid)
      .filter((p) => !WRAPPERS.test(p.comm))
      .map((p) => p.pid);
  }

  memory(): TreeMemory {
    return memoryOf(this.pids());
  }

  kill(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      /* gone */
    }
  }

  /**
   * SIGTERM to the process group; resolves with the seconds until every process of the launch has exited — those of
   * the group and every process of the tree when the signal was sent (a database server the app started in a session
   * of its own included).
   */
  async stop(): Promise<number> {
    if (!this.child || this.child.exitCode !== null) return 0;
    const root = this.child.pid!;
    const pids = processTree(root).map((p) => p.pid);
    const t0 = performance.now();
    this.kill('SIGTERM');
    for (;;) {
      const alive = pids.some((pid) => existsSync(`/proc/${pid}`)) || this.groupAlive(root);
      if (!alive) return (performance.now() - t0) / 1000;
      if (performance.now() - t0 > 30_000) {
        this.kill('SIGKILL');
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }
        throw new Error(`npm start did not stop within 30 s of SIGTERM: ${this.out.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Whether any process of the group is left (children re-parented when their parent exited first). */
  private groupAlive(pgid: number): boolean {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

async function idleMemory(svc: Service, settleMs: number): Promise<TreeMemory> {
  await new Promise((r) => setTimeout(r, settleMs));
  return svc.memory();
}

interface SideRun {
  r: LoadResult;
  cpuPerRequest: number;
}

export async function scenarioEmbedded(ctx: BenchContext): Promise<void> {
  const { quick, log, step } = ctx;
  const launch = (ctx.option('launch') ?? 'npm') as 'npm' | 'direct';
  const levels = (ctx.option('concurrencies') ?? '8,32').split(',').map(Number);
  const rounds = Number(ctx.option('rounds') ?? (quick ? 1 : 2));
  const C = quick ? { warmup: 100, requests: 400 } : { warmup: 200, requests: 1000 };
  const perSide = (C.warmup + C.requests) * rounds * levels.length;
  const G = EMBEDDED_GOALS;
  log(
    `\n[embedded] the real ${launch === 'npm' ? '`npm start`' : "start script (package.json's, through sh -c)"} on a fresh DATA_DIR, no DATABASE_URL: start-up, memory, and POST /v1/invoices and POST /bank-notifications at concurrency ${levels.join(' and ')} (closed loop, ${num(C.warmup)} warm-up + ${num(C.requests)} measured per side, ${rounds} round(s)), side by side with a raw baseline on the same embedded database`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'btp-embedded-'));
  ctx.cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  // As the other scenarios: the limiter runs but never refuses (one credential at full speed).
  const svc = new Service({ DATA_DIR: dataDir, HOST: '127.0.0.1', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '10000000' }, port, launch);
  ctx.cleanups.push(async () => void (await svc.stop().catch(() => svc.kill('SIGKILL'))));
  const url = `http://127.0.0.1:${port}`;

  // 1. First start on the empty directory.
  const startNew = await svc.start();
  const idleNew = await idleMemory(svc, 3000);
  step(`new data directory: /healthz 200 after ${startNew.toFixed(2)} s; idle ${idleNew.rssMb.toFixed(0)} MB RSS (${idleNew.pssMb.toFixed(0)} MB PSS: ${byCommand(idleNew.pssByCommandMb)}) over ${idleNew.processes} process(es)`);
  const b: Bootstrapped = await bootstrap(new ServiceClient(url));
  const engine: EmbeddedEngine = embeddedEngineOf(dataDir);
  step(`processes of the service: ${processTree(svc.child.pid!).map((p) => `${p.comm}${svc.pids().includes(p.pid) ? '' : ' (not counted)'}`).join(', ')}`);
  step(`engine: ${engine === 'pglite' ? 'PGlite in the app process' : 'a PostgreSQL server the app runs'}; workspace ${b.workspaceId}`);
  const stop1 = await svc.stop();
  step(`stopped (SIGTERM) in ${stop1.toFixed(2)} s`);

  // 2. Seed the pending invoices the deposits pay: PGlite only while the app is stopped; a server while it runs.
  const seedCount = Math.max(quick ? 5_000 : 20_000, perSide * 2 + 1000);
  const need = perSide * 2;
  let targets: DepositTarget[] = [];
  const seedAndPick = async (dbUrl: string) => {
    const seed = await seedInvoices(dbUrl, { workspaceId: b.workspaceId, ownerId: b.accountId, apiKeyId: b.apiKey.id, bankAccountId: b.bankAccount.id, count: seedCount, salt: 31 });
    targets = await pickDeposits(dbUrl, { workspaceId: b.workspaceId, bankAccountId: b.bankAccount.id, truncation: 0 }, 'exact', need, 31);
    if (targets.length < need) throw new Error(`only ${targets.length} of ${need} deposit targets`);
    step(`seeded ${num(seed.inserted)} pending invoices; ${num(need)} exact-name deposits picked (one invoice each)`);
  };
  let rawDataDir: string | null = null;
  if (engine === 'pglite') {
    const off = await openPgliteOffline(dataDir);
    try {
      await seedAndPick(off.url);
    } finally {
      await off.close();
    }
    // The raw side's own PGlite: a copy of the app's directory (same schema, workspace, key and invoices).
    rawDataDir = mkdtempSync(join(tmpdir(), 'btp-embedded-raw-'));
    ctx.cleanups.push(async () => rmSync(rawDataDir!, { recursive: true, force: true }));
    cpSync(join(dataDir, 'pglite'), rawDataDir, { recursive: true });
  }

  // 3. Start again on the existing directory.
  const startExisting = await svc.start();
  const idleExisting = await idleMemory(svc, 3000);
  step(`existing data directory: /healthz 200 after ${startExisting.toFixed(2)} s; idle ${idleExisting.rssMb.toFixed(0)} MB RSS (${idleExisting.pssMb.toFixed(0)} MB PSS) over ${idleExisting.processes} process(es)`);
  let serverUrl: string | null = null;
  if (engine === 'postgres') {
    serverUrl = (await embeddedServerUrl(dataDir, svc.pids())).url;
    step(`embedded PostgreSQL reached at ${serverUrl}`);
    await seedAndPick(serverUrl);
  }
  const raw: RawWrites = await startRawWrites(engine === 'pglite' ? { kind: 'pglite', dataDir: rawDataDir! } : { kind: 'pg', url: serverUrl!, poolSize: 10 }, 'embedded');
  ctx.cleanups.push(() => raw.stop());
  step(`raw baseline: ${engine === 'pglite' ? `node:http + its own PGlite on a copy of the data directory (${raw.url})` : `node:http + pg pool of 10 on the app's embedded server (${raw.url})`}`);

  // 4. Load, sides alternating per round; memory of the app's tree sampled throughout. The raw baseline's backends
  // are children of the app's server too: they are left out of its memory (looked up by their application_name), as
  // is this lookup's own.
  const rawBackends = new Set<number>();
  let stopWatchingRaw = async () => {};
  if (serverUrl) {
    const admin = new pg.Client({ connectionString: serverUrl });
    admin.on('error', () => {}); // the server stops with the service
    await admin.connect();
    const refresh = async () => {
      const { rows } = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 OR pid = pg_backend_pid()`, [RAW_APPLICATION_NAME]);
      for (const { pid } of rows) rawBackends.add(pid);
    };
    await refresh();
    const watchRaw = setInterval(() => void refresh().catch(() => {}), 500);
    stopWatchingRaw = async () => {
      clearInterval(watchRaw);
      await admin.end().catch(() => {});
    };
    ctx.cleanups.push(stopWatchingRaw);
  }
  const sampler = sampleTreeMemory(() => svc.pids().filter((pid) => !rawBackends.has(pid)));
  const appTreeCpu = () => cpuOf(svc.pids());
  const sides = [
    { key: 'app', url, label: 'app (npm start)' },
    { key: 'raw', url: raw.url, label: 'raw baseline' },
  ] as const;
  const creates: Record<string, Record<number, SideRun[]>> = { app: {}, raw: {} };
  const deposits: Record<string, Record<number, SideRun[]>> = { app: {}, raw: {} };
  // Targets: app and raw take disjoint halves (one database for both when the engine is a server).
  const half = targets.length / 2;
  const pool: Record<string, DepositTarget[]> = { app: targets.slice(0, half), raw: targets.slice(half) };
  const receivedAt = new Date().toISOString();
  const measure = async (side: (typeof sides)[number], job: LoadJob): Promise<SideRun> => {
    // Warm-up and measurement as two jobs, so the CPU below covers the measured requests only; generated create bodies
    // get another prefix in the warm-up (their counters both start at 0).
    const warm = await runLoad({ ...job, requests: job.warmup, warmup: 0, calls: job.calls?.slice(0, job.warmup), bodyTemplate: job.bodyTemplate.replace('"e', '"w') });
    if (warm.ok !== warm.requests) ctx.fail(`${side.key} warm-up: ${warm.requests - warm.ok} failed ${JSON.stringify(warm.statuses)} ${warm.firstError}`);
    // CPU of the app's tree (its database included) and of the raw process, over the measured requests.
    const cpu0 = appTreeCpu() + (await raw.cpuMs());
    const r = await runLoad({ ...job, warmup: 0, calls: job.calls?.slice(job.warmup) });
    const cpu1 = appTreeCpu() + (await raw.cpuMs());
    if (r.ok !== r.requests) ctx.fail(`${side.key}: ${r.requests - r.ok} of ${r.requests} failed ${JSON.stringify(r.statuses)} ${r.firstError}`);
    return { r, cpuPerRequest: (cpu1 - cpu0) / r.requests };
  };
  const line = (what: string, c: number, round: number, key: string, x: SideRun) =>
    step(
      `${what} c=${c} round ${round + 1} ${key.padEnd(3)} ${num(x.r.rps, 0).padStart(5)}/s  p50 ${ms(x.r.latency.p50)}  p99 ${ms(x.r.latency.p99)}  CPU ${ms(x.cpuPerRequest)}/request (app tree + raw)  (load avg ${loadavg()[0].toFixed(1)})`,
    );
  for (const c of levels) {
    for (let round = 0; round < rounds; round++) {
      for (const [i, side] of sides.entries()) {
        const job: LoadJob = {
          url: side.url,
          method: 'POST',
          path: '/v1/invoices',
          token: b.apiKey.secret,
          bodyTemplate: JSON.stringify({ bankAccountIds: [], customer: { name: `e${c}r${round}s${i}x__N__` }, amount: '__AMOUNT__' }),
          concurrency: c,
          warmup: C.warmup,
          requests: C.requests,
          expectStatus: 201,
        };
        const x = await measure(side, job);
        (creates[side.key][c] ??= []).push(x);
        line('create ', c, round, side.key, x);
      }
    }
  }
  for (const c of levels) {
    for (let round = 0; round < rounds; round++) {
      for (const side of sides) {
        const mine = pool[side.key].splice(0, C.warmup + C.requests);
        const tag = `emb-${side.key}-c${c}r${round}`;
        const calls = mine.map((t, k) => ({
          url: side.url,
          token: b.bankAccount.notificationToken,
          body: JSON.stringify({ notificationId: `${tag}-${k}`, depositorName: t.depositorName, amount: t.amount, receivedAt }),
        }));
        const x = await measure(side, { url: '', method: 'POST', path: '/bank-notifications', token: '', bodyTemplate: '', calls, concurrency: c, warmup: C.warmup, requests: C.requests, expectStatus: 201 });
        (deposits[side.key][c] ??= []).push(x);
        line('deposit', c, round, side.key, x);
      }
    }
  }
  const peak = sampler.stop();
  await stopWatchingRaw();
  await raw.stop();

  // 5. Every deposit paid the invoice it was sent for (PGlite: read after the app stopped; a server: now).
  const paidTargets = new Map(targets.map((t) => [t.invoiceId!, t]));
  const check = async (dbUrl: string) => {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    try {
      const [row] = (
        await c.query<{ matched: string; total: string; wrong: string }>(
          `SELECT count(*) FILTER (WHERE "matchedInvoiceId" IS NOT NULL) AS matched, count(*) AS total,
                  count(*) FILTER (WHERE "matchedInvoiceId" IS NOT NULL AND NOT ("matchedInvoiceId" = ANY($2::text[]))) AS wrong
             FROM "Transaction" WHERE "workspaceId" = $1 AND "notificationId" LIKE 'emb-app-%'`,
          [b.workspaceId, [...paidTargets.keys()]],
        )
      ).rows;
      return row;
    } finally {
      await c.end();
    }
  };
  let checked: { matched: string; total: string; wrong: string };
  let stopLast: number;
  if (engine === 'postgres') {
    checked = await check(serverUrl!);
    stopLast = await svc.stop();
  } else {
    stopLast = await svc.stop();
    const off = await openPgliteOffline(dataDir);
    try {
      checked = await check(off.url);
    } finally {
      await off.close();
    }
  }
  step(`app deposits stored ${checked.total}, matched ${checked.matched}, matched to another invoice ${checked.wrong}; stopped in ${stopLast.toFixed(2)} s`);
  if (Number(checked.matched) !== Number(checked.total) || Number(checked.wrong) > 0) ctx.fail('some app deposits did not pay the invoice they were sent for');
  // One more start on the (now larger) existing directory.
  const startAgain = await svc.start();
  const idleAgain = await idleMemory(svc, 3000);
  await svc.stop();
  step(`existing data directory after the load: /healthz 200 after ${startAgain.toFixed(2)} s; idle ${idleAgain.rssMb.toFixed(0)} MB RSS`);

  // Report.
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  const med = (xs: SideRun[], f: (x: SideRun) => number) => median(xs.map(f));
  log('');
  log(
    table(
      ['what', 'figure', 'goal', ''],
      [
        ['start-up, new data directory', `${startNew.toFixed(2)} s`, `<= ${G.startNewS} s`, verdict(startNew <= G.startNewS)],
        ['start-up, existing data directory', `${startExisting.toFixed(2)} s (after the load: ${startAgain.toFixed(2)} s)`, `<= ${G.startExistingS} s`, verdict(Math.max(startExisting, startAgain) <= G.startExistingS)],
        ['memory idle after start (PSS summed over the tree)', `${idleNew.pssMb.toFixed(0)} MB new, ${idleExisting.pssMb.toFixed(0)} MB existing (RSS summed ${idleNew.rssMb.toFixed(0)} / ${idleExisting.rssMb.toFixed(0)} MB; ${idleExisting.processes} process(es))`, `<= ${G.rssIdleMb} MB`, verdict(Math.max(idleNew.pssMb, idleExisting.pssMb) <= G.rssIdleMb)],
        ['memory under load, peak (PSS summed)', `${peak.peakPssMb.toFixed(0)} MB (${byCommand(peak.atPeakPssByCommandMb)}; RSS summed ${peak.peakRssMb.toFixed(0)} MB; ${peak.samples} samples)`, `<= ${G.rssLoadMb} MB`, verdict(peak.peakPssMb <= G.rssLoadMb)],
      ],
    ),
  );
  log('');
  const rows: (string | number)[][] = [];
  for (const [what, runs, goal] of [
    ['POST /v1/invoices', creates, G.createsPerS],
    ['POST /bank-notifications (exact name)', deposits, G.depositsPerS],
  ] as const) {
    for (const c of levels) {
      for (const side of sides) {
        const xs = runs[side.key][c];
        const rps = med(xs, (x) => x.r.rps);
        const p99 = med(xs, (x) => x.r.latency.p99);
        const goalText = side.key === 'app' && c === G.atConcurrency ? `>= ${goal}/s, p99 <= ${G.p99Ms} ms: ${verdict(rps >= goal && p99 <= G.p99Ms)}` : '';
        rows.push([`${what} c=${c}`, side.label, num(rps, 0), ms(med(xs, (x) => x.r.latency.p50)), ms(p99), ms(med(xs, (x) => x.cpuPerRequest)), xs.map((x) => num(x.r.rps, 0)).join(' / '), goalText]);
      }
      const a = med(runs.app[c], (x) => x.r.rps);
      const r = med(runs.raw[c], (x) => x.r.rps);
      rows.push(['', 'app / raw', `${((a / r) * 100).toFixed(0)}%`, '', '', '', '', '']);
    }
  }
  log(table(['requests', 'side', 'per s', 'p50', 'p99', 'CPU/request', 'per s per round', 'goal (app, c=32)'], rows));
  log(`\n  engine ${engine}; CPU/request = CPU of the app's process tree + the raw process during the side's measured requests (the idle side's share included); medians of ${rounds} round(s); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

/** "node 180, postgres 95 in 14" (MB of PSS per command, and how many processes when several). */
function byCommand(mb: Record<string, number>): string {
  return Object.entries(mb)
    .filter(([name]) => !name.endsWith(' processes'))
    .sort((a, b) => b[1] - a[1])
    .map(([name, v]) => `${name} ${v.toFixed(0)}${(mb[`${name} processes`] ?? 1) > 1 ? ` in ${mb[`${name} processes`]}` : ''}`)
    .join(', ');
}
