/**
 * `npm run bench [-- --quick]`: performance figures of the service, all measured in this run (not part of `npm test`).
 *
 *  1. v1 create-invoice throughput: the real app (buildApp, port 0, its default background workers) under a closed-loop
 *     load of POST /v1/invoices (distinct depositor names, so no conflicts) against a raw `node:http` + `pg` baseline
 *     doing the essential work of a create on the same scratch database (test/bench/lib/raw-server.ts), and a second
 *     raw variant that also writes the history line and the outbox event (the same writes as the app). Sides alternate
 *     in rounds so a busy machine hits all of them alike; medians are reported, with the CPU this process (the server
 *     side) spent per request. Goal: app >= 60% of raw requests/s.
 *  2. Deposit matching latency: POST /bank-notifications with 1,000 and with 1,000,000 pending invoices seeded in SQL
 *     into one workspace (one scratch database and app per size), one deposit at a time, alternating between the sizes.
 *     The goal figure is deposits naming an invoice exactly (p50 and p99 at 1,000,000 <= 1.5x those at 1,000); deposits
 *     the bank truncated, with a bracketed note dropped, and with no matching invoice are measured too. Every deposit
 *     is checked afterwards: it must have paid the invoice it was made for (or none).
 *
 *  3. Events. (a) Deposit → `invoicePaid` latency: deposit notifications at a steady rate (default 200/s, OPEN loop:
 *     each is sent on schedule whatever the earlier ones are doing) for seeded pending invoices, one invoice each;
 *     latency = the graphql-ws message naming the invoice − the moment its HTTP request left. One app instance (the
 *     in-process bus), and two instances over one database and Redis (deposits to A, the subscriber on B); every app
 *     instance is a child process of its own (lib/app-process.ts). Raw baselines in the same rounds, also child
 *     processes (lib/raw-events.ts): node:http → one pg UPDATE that pays the invoice → `ws` push, in one process, and
 *     across two processes joined by Redis PUBLISH → SUBSCRIBE. Goals: p99 <= 25 ms (one instance), <= 50 ms (two),
 *     the p99 of every measured deposit of every round (each side pre-warmed first).
 *     (b) Webhook throughput: N invoice.paid events committed to the outbox at once, delivered by one app instance to a
 *     local node:http receiver (answers 200), deliveries/s from the commit until the receiver has them all (each
 *     signature checked, each event once); raw baseline: N signed POSTs from a plain node loop with the worker's
 *     concurrency (lib/webhook-sender.ts). Goal >= 1,000/s.
 *
 *  4. `--only embedded` (embedded.ts) and 5. `--only rate` (rate.ts), run only when named: the real `npm start` on a fresh
 *     DATA_DIR (start-up, memory, creates and deposits beside a raw baseline on the same embedded database), and the
 *     deposit rate one app instance on PostgreSQL sustains (open-loop sweep, CPU per deposit against raw).
 *  6. `--only dashboard` (dashboard.ts), run only when named: the dashboard's invoice list in Chromium with 1,000,000
 *     invoices (`--db embedded|postgres|both`, `--invoices N`, `--runs N`, `--keep`), beside its list query by fetch and
 *     a static page.
 *
 * PostgreSQL at BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test): scratch databases are created
 * next to it and dropped after each scenario (also on Ctrl-C); Redis at BENCH_REDIS_URL (default
 * redis://127.0.0.1:6379). The load generator runs in a child process (lib/load-worker.ts).
 *
 * Options: --quick (fewer requests; 1,000 vs 100,000 invoices; 4 s per events side, 2,000 webhooks), --concurrency N
 * (default 16), --pool N (database pool of the apps and of the baselines, default 10 = the app's DATABASE_POOL_SIZE
 * default), --only create|match|events|lists (lists: see lists.ts; only when named; --keep, --requests N, --cases <label part>), --sizes 1000,1000000, --explain (EXPLAIN ANALYZE of the candidate queries at
 * each size), --rate N (events: deposits/s, default 200), --rounds N (events: latency rounds, default 3), --prewarm S (events: unmeasured seconds per side first, default 10), --sides raw1,app1,raw2,app2 (events: which latency sides),
 * --webhooks N (events: webhook events per round, 0 = skip). BENCH_CPU_PROF=<dir>: V8 CPU profiles of the app
 * processes of the events scenario, and of this process while the create scenario measures its (in-process) app side
 * (summarize with lib/cpuprofile.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { startRawServer, type RawServer } from './lib/raw-server.ts';
import { createScratchDatabase, startApp, type RunningApp, type Scratch } from './lib/scratch.ts';
import { findBankProvider } from '../../src/domain/bank-accounts/bank-providers.ts';
import { bareName, normalizeName } from '../../src/domain/deposits/depositor-name.ts';
import { pickDeposits, seedInvoices, type DepositKind, type DepositTarget } from './lib/seed.ts';
import { median, ms, num, summarize, table, type LatencySummary } from './lib/stats.ts';
import { startAppProcess, type AppProcess } from './lib/app-process.ts';
import { pacedDeposits, sendSignedPosts, subscribeApp, subscribeRaw, WebhookSink, type PacedResult, type Subscriber } from './lib/events.ts';
import { startRawEvents } from './lib/raw-events.ts';
import { scenarioLists } from './lists.ts';
import { sign } from '../../src/domain/webhooks/signing.ts';
import { scenarioEmbedded, type BenchContext } from './embedded.ts';
import { scenarioRate } from './rate.ts';
import { scenarioDashboard } from './dashboard.ts';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = flag('quick');
const BASE = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const CONCURRENCY = Number(option('concurrency') ?? 16);
const POOL = Number(option('pool') ?? 10);
const ONLY = option('only');
const SCENARIOS = ['create', 'match', 'events'];
/** Run only when asked for (`--only lists|embedded|rate|dashboard`): each takes minutes (lists seeds 2.2 million rows, dashboard 1 million) and measures something else. */
const OPT_IN = ['lists', 'embedded', 'rate', 'dashboard'];
if (ONLY && !SCENARIOS.includes(ONLY) && !OPT_IN.includes(ONLY)) throw new Error(`--only takes one of ${[...SCENARIOS, ...OPT_IN].join(', ')}`);
const runs = (name: string) => (OPT_IN.includes(name) ? ONLY === name : !ONLY || ONLY === name);
const SIZES = (option('sizes') ?? (quick ? '1000,100000' : '1000,1000000')).split(',').map(Number);
const CREATE = quick ? { warmup: 200, requests: 600, rounds: 1 } : { warmup: 200, requests: 800, rounds: 3 };
const MATCH = quick ? { warmup: 10, deposits: 60, other: 20 } : { warmup: 20, deposits: 200, other: 30 };
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const EVENTS = {
  rate: Number(option('rate') ?? 200),
  warmupSeconds: 1,
  /**
   * `--prewarm S`: once per side before the rounds, S seconds of deposits at the rate, not measured (JIT, pools,
   * prepared statements and PostgreSQL backends warmed): the figures are of a running service, not of its first
   * thousands of requests. Default 10 s (quick: 3 s): the app's first 2,000 deposits after start cost 2.8-3.2 ms of
   * CPU each against 1.5-2.0 ms later (JIT), and a first round measured cold went to 44-72 ms p99 when the next ones
   * were at 10-19 ms; with 10 s of pre-warm the first round is like the others (test/bench/README.md).
   */
  prewarmSeconds: Number(option('prewarm') ?? (quick ? 3 : 10)),
  seconds: quick ? 4 : 10,
  rounds: Number(option('rounds') ?? (quick ? 1 : 3)),
  webhooks: Number(option('webhooks') ?? (quick ? 2000 : 5000)),
  webhookRounds: quick ? 1 : 2,
  /** Latency sides to run (all by default): raw1, app1, raw2, app2. */
  sides: (option('sides') ?? 'raw1,app1,raw2,app2').split(','),
};
/** The app's webhook worker concurrency (src/http/app.ts), which the raw webhook baseline uses too. */
const WEBHOOK_CONCURRENCY = 32;

/** BENCH_CPU_PROF=<dir>: V8 CPU profiles (create: of this process while the app side is measured; events: of each app process). */
const PROF_DIR = process.env.BENCH_CPU_PROF;

/** Profiles this process (the create scenario's app runs in it) until `stop(file)`, which writes the profile there. */
async function startCpuProfile(): Promise<{ stop(file: string): Promise<string> }> {
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

const log = (s: string) => console.log(s);
const step = (s: string) => console.log(`  · ${s}`);
const cleanups: (() => Promise<void>)[] = [];
let failed = false;

async function cleanup() {
  while (cleanups.length) await cleanups.pop()!().catch((e) => console.error('cleanup failed:', e));
}
process.on('SIGINT', () => {
  cleanup().finally(() => process.exit(130));
});

function checkLoad(label: string, r: LoadResult) {
  if (r.ok !== r.requests) {
    failed = true;
    console.error(`  ! ${label}: ${r.requests - r.ok} of ${r.requests} requests failed: ${JSON.stringify(r.statuses)} first: ${r.firstError}`);
  }
}

// ───────────────────────────── 1. create-invoice throughput ─────────────────────────────

async function scenarioCreate() {
  log(`\n[1] POST /v1/invoices throughput — ${CONCURRENCY} connections, ${num(CREATE.warmup)} warm-up + ${num(CREATE.requests)} measured requests per side, ${CREATE.rounds} round(s), pool ${POOL}`);
  const db: Scratch = await createScratchDatabase(BASE, 'create');
  cleanups.push(() => db.drop());
  const app: RunningApp = await startApp(db.url, POOL);
  cleanups.push(() => app.stop());
  const b = await bootstrap(new ServiceClient(app.url));
  const raw: RawServer = await startRawServer(db.url, { poolSize: POOL, full: false });
  cleanups.push(() => raw.close());
  const rawFull: RawServer = await startRawServer(db.url, { poolSize: POOL, full: true });
  cleanups.push(() => rawFull.close());
  step(`scratch database ${db.name}, workspace ${b.workspaceId}`);

  const sides = [
    { key: 'app', label: 'app (buildApp, v1 → GraphQL → domain)', url: app.url },
    { key: 'raw', label: 'raw baseline (node:http + pg, essential work)', url: raw.url },
    { key: 'rawFull', label: 'raw + history + event (same writes as app)', url: rawFull.url },
  ] as const;
  const results: Record<string, LoadResult[]> = { app: [], raw: [], rawFull: [] };
  const cpuPerRequest: Record<string, number[]> = { app: [], raw: [], rawFull: [] };
  for (let round = 0; round < CREATE.rounds; round++) {
    for (const [i, side] of sides.entries()) {
      const job = {
        url: side.url,
        method: 'POST',
        path: '/v1/invoices',
        token: b.apiKey.secret,
        bodyTemplate: '',
        concurrency: CONCURRENCY,
        warmup: 0,
        requests: CREATE.warmup,
        expectStatus: 201,
      };
      // Warm-up and measurement as two jobs, so the server CPU below covers the measured requests only.
      const template = (tag: string) => JSON.stringify({ bankAccountIds: [], customer: { name: `${tag}__N__` }, amount: '__AMOUNT__' });
      checkLoad(`${side.key} warm-up`, await runLoad({ ...job, bodyTemplate: template(`w${round}${i}x`) }));
      const profiling = side.key === 'app' && PROF_DIR ? await startCpuProfile() : null;
      const cpu0 = process.cpuUsage();
      const r = await runLoad({ ...job, bodyTemplate: template(`b${round}${i}x`), requests: CREATE.requests });
      const cpu = process.cpuUsage(cpu0);
      if (profiling) step(`CPU profile of the app side (this process; profiling slows it): ${await profiling.stop(join(PROF_DIR!, `create-app-round${round + 1}.cpuprofile`))}`);
      checkLoad(side.key, r);
      results[side.key].push(r);
      cpuPerRequest[side.key].push((cpu.user + cpu.system) / 1000 / CREATE.requests);
      step(
        `round ${round + 1} ${side.key.padEnd(7)} ${num(r.rps, 0).padStart(6)} req/s  p50 ${ms(r.latency.p50)}  p99 ${ms(r.latency.p99)}  server CPU ${ms(cpuPerRequest[side.key].at(-1)!)}/request  (load avg ${loadavg()[0].toFixed(1)})`,
      );
    }
  }

  // Every created invoice is there, numbered without gaps.
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const [check] = (
    await c.query<{ n: string; maxnum: number; seq: number }>(
      `SELECT count(*) AS n, max(number) AS maxnum, (SELECT "invoiceSeq" FROM "Workspace" WHERE id = $1) AS seq FROM "Invoice" WHERE "workspaceId" = $1`,
      [b.workspaceId],
    )
  ).rows;
  await c.end();
  const expected = CREATE.rounds * sides.length * (CREATE.warmup + CREATE.requests);
  step(`invoices stored: ${num(Number(check.n))} of ${num(expected)} sent; max number ${check.maxnum}, invoiceSeq ${check.seq}`);
  if (Number(check.n) !== expected) failed = true;

  const rows = sides.map((s) => {
    const rs = results[s.key];
    const rps = median(rs.map((r) => r.rps));
    return [
      s.label,
      num(rps, 0),
      ms(median(rs.map((r) => r.latency.p50))),
      ms(median(rs.map((r) => r.latency.p90))),
      ms(median(rs.map((r) => r.latency.p99))),
      ms(median(cpuPerRequest[s.key])),
      rs.map((r) => num(r.rps, 0)).join(' / '),
    ];
  });
  log('');
  log(table(['side', 'req/s', 'p50', 'p90', 'p99', 'node CPU/req', 'req/s per round'], rows));
  const appRps = median(results.app.map((r) => r.rps));
  const rawRps = median(results.raw.map((r) => r.rps));
  const fullRps = median(results.rawFull.map((r) => r.rps));
  const ratio = appRps / rawRps;
  log('');
  log(`  app / raw          = ${(ratio * 100).toFixed(1)}%   (goal >= 60%: ${ratio >= 0.6 ? 'MET' : 'MISSED'})`);
  log(`  app / raw+writes   = ${((appRps / fullRps) * 100).toFixed(1)}%   (framework + ORM share, same statements)`);
  log(`  raw+writes / raw   = ${((fullRps / rawRps) * 100).toFixed(1)}%   (cost of the history + event writes alone)`);
  return { appRps, rawRps, ratio };
}

// ───────────────────────────── 2. matching latency vs table size ─────────────────────────────

interface SizeSetup {
  size: number;
  databaseUrl: string;
  appUrl: string;
  b: Bootstrapped;
  truncation: number;
}

interface DepositRun {
  latency: LatencySummary;
  /** Deposits that paid exactly the invoice they were meant for (or, for `none`, stayed unmatched). */
  intended: number;
  count: number;
  outcome: string;
}

/** What each deposit did: paid its intended invoice (or, meant for none, stayed unmatched), and a tally of outcomes. */
async function checkDeposits(setup: SizeSetup, tag: string, targets: DepositTarget[]): Promise<{ intended: number; outcome: string }> {
  const c = new pg.Client({ connectionString: setup.databaseUrl });
  await c.connect();
  try {
    const rows = (
      await c.query<{ k: string; method: string | null; reason: string | null; matched: string | null }>(
        `SELECT "notificationId" AS k, "matchMethod" AS method, "matchNote"->>'reason' AS reason, "matchedInvoiceId" AS matched
           FROM "Transaction" WHERE "workspaceId" = $1 AND "notificationId" LIKE $2`,
        [setup.b.workspaceId, `${tag}-%`],
      )
    ).rows;
    const byKey = new Map(rows.map((x) => [x.k, x]));
    const counts = new Map<string, number>();
    let intended = 0;
    targets.forEach((t, k) => {
      const x = byKey.get(`${tag}-${k}`);
      const what = !x ? 'missing' : x.matched ? (x.matched === t.invoiceId ? x.method! : `${x.method} of another invoice`) : (x.reason ?? 'unmatched');
      if (x && (x.matched ?? null) === t.invoiceId) intended++;
      counts.set(what, (counts.get(what) ?? 0) + 1);
    });
    return { intended, outcome: [...counts].map(([w, n]) => `${w} ${n}`).join(', ') };
  } finally {
    await c.end();
  }
}

async function scenarioMatch() {
  log(
    `\n[2] POST /bank-notifications matching one invoice — ${SIZES.map((s) => num(s)).join(' vs ')} pending invoices in one workspace (one database and app each), deposits one at a time, alternating between the sizes`,
  );
  const setups: SizeSetup[] = [];
  for (const [i, size] of SIZES.entries()) {
    const db = await createScratchDatabase(BASE, `match${i}`);
    cleanups.push(() => db.drop());
    const app = await startApp(db.url, POOL);
    cleanups.push(() => app.stop());
    const b = await bootstrap(new ServiceClient(app.url));
    const seed = await seedInvoices(db.url, { workspaceId: b.workspaceId, ownerId: b.accountId, apiKeyId: b.apiKey.id, bankAccountId: b.bankAccount.id, count: size, salt: i + 1 });
    const s = seed.seconds;
    step(
      `${db.name}: seeded ${num(seed.inserted)} invoices (numbers ${seed.firstNumber}..${seed.lastNumber}) in ${(s.generate + s.insert + s.indexes + s.vacuumAnalyze).toFixed(1)} s (generate ${s.generate.toFixed(1)}, insert ${s.insert.toFixed(1)}, indexes ${s.indexes.toFixed(1)}, vacuum analyze ${s.vacuumAnalyze.toFixed(1)})`,
    );
    setups.push({ size, databaseUrl: db.url, appUrl: app.url, b, truncation: findBankProvider(b.bankAccount.provider)!.depositorNameLength });
  }

  const kinds: { kind: DepositKind; label: string; count: number; warmup: number }[] = [
    { kind: 'exact', label: 'exact name (EXACT)', count: MATCH.deposits, warmup: MATCH.warmup },
    { kind: 'prefix', label: 'truncated by the bank (NAME_PREFIX)', count: MATCH.other, warmup: 3 },
    { kind: 'bracket', label: 'bracketed note dropped (BRACKET_REMOVAL)', count: MATCH.other, warmup: 3 },
    { kind: 'none', label: 'no such invoice (stays unmatched)', count: MATCH.other, warmup: 3 },
  ];
  const out = new Map<string, DepositRun>();
  const explainTargets: { kind: DepositKind; setup: SizeSetup; target: DepositTarget }[] = [];
  for (const k of kinds) {
    const per = await Promise.all(
      setups.map(async (st, i) => {
        // Paid invoices are no longer pending, so each kind picks invoices the earlier kinds did not pay.
        return pickDeposits(st.databaseUrl, { workspaceId: st.b.workspaceId, bankAccountId: st.b.bankAccount.id, truncation: st.truncation }, k.kind, k.warmup + k.count, i + 1);
      }),
    );
    // As many deposits for every size as the smallest sample allows (a 1,000-invoice workspace has few long or bracketed names).
    const available = Math.min(...per.map((p) => p.length));
    if (available < k.warmup + 5) throw new Error(`only ${available} ${k.kind} targets`);
    for (const p of per) p.length = available;
    const measuredCount = available - k.warmup;
    // Interleaved: deposit j goes to size j % n, so both sizes see the same machine at the same time.
    const receivedAt = new Date().toISOString();
    const calls = per[0].flatMap((_, j) =>
      setups.map((st, i) => ({
        url: st.appUrl,
        token: st.b.bankAccount.notificationToken,
        body: JSON.stringify({ notificationId: `${k.kind}-${j}`, depositorName: per[i][j].depositorName, amount: per[i][j].amount, receivedAt }),
      })),
    );
    const n = setups.length;
    const r = await runLoad({ url: '', method: 'POST', path: '/bank-notifications', token: '', bodyTemplate: '', calls, concurrency: 1, warmup: k.warmup * n, requests: measuredCount * n, expectStatus: 201 });
    checkLoad(`${k.kind} deposits`, r);
    for (const [i, st] of setups.entries()) {
      const samples = r.samples.filter((_, j) => j % n === i);
      const check = await checkDeposits(st, k.kind, per[i]);
      // The warm-up deposits are checked too: they are as much a part of the outcome.
      const run = { latency: summarize(samples.filter((x) => !Number.isNaN(x))), intended: check.intended, count: per[i].length, outcome: check.outcome };
      out.set(`${k.kind}/${st.size}`, run);
      step(`${num(st.size).padStart(9)} ${k.kind.padEnd(7)} p50 ${ms(run.latency.p50)}  p99 ${ms(run.latency.p99)}  as intended ${run.intended}/${run.count}  (${run.outcome})`);
      if (k.kind === 'exact' && run.intended !== run.count) console.error(`  ! ${run.count - run.intended} exact-name deposits did not pay their invoice`);
      if (k.kind === 'exact' || k.kind === 'none') explainTargets.push({ kind: k.kind, setup: st, target: per[i].find((t) => t.amount === 10000) ?? per[i][0] });
    }
  }

  const small = SIZES[0];
  const large = SIZES[SIZES.length - 1];
  log('');
  log(
    table(
      ['deposit', ...SIZES.flatMap((n) => [`p50 @${num(n)}`, `p99 @${num(n)}`]), 'p50 ratio', 'p99 ratio', ...SIZES.map((n) => `as intended @${num(n)}`)],
      kinds.map((k) => {
        const runs = SIZES.map((n) => out.get(`${k.kind}/${n}`)!);
        const a = out.get(`${k.kind}/${small}`)!.latency;
        const z = out.get(`${k.kind}/${large}`)!.latency;
        return [k.label, ...runs.flatMap((r) => [ms(r.latency.p50), ms(r.latency.p99)]), `${(z.p50 / a.p50).toFixed(2)}x`, `${(z.p99 / a.p99).toFixed(2)}x`, ...runs.map((r) => `${r.intended}/${r.count}`)];
      }),
    ),
  );
  const e0 = out.get(`exact/${small}`)!;
  const e1 = out.get(`exact/${large}`)!;
  const p50r = e1.latency.p50 / e0.latency.p50;
  const p99r = e1.latency.p99 / e0.latency.p99;
  log('');
  log(
    `  exact-name deposits: p50 ${ms(e0.latency.p50)} → ${ms(e1.latency.p50)} (${p50r.toFixed(2)}x), p99 ${ms(e0.latency.p99)} → ${ms(e1.latency.p99)} (${p99r.toFixed(2)}x)   (goal <= 1.5x: ${p50r <= 1.5 && p99r <= 1.5 ? 'MET' : 'MISSED'})`,
  );
  if (e0.intended !== e0.count || e1.intended !== e1.count) log(`  correctness: some exact-name deposits did not pay their invoice (see above)`);

  if (flag('explain')) {
    for (const { kind, setup, target } of explainTargets) {
      const c = new pg.Client({ connectionString: setup.databaseUrl });
      await c.connect();
      // The WHERE clauses matchCandidates() sends (candidates.ts): by normalised name, else the bracket-free name or prefix.
      const base = `SELECT * FROM "Invoice"
          WHERE "workspaceId" = $1 AND amount = $2 AND status = 'PENDING' AND ("expiresAt" IS NULL OR "expiresAt" > now())
            AND (cardinality("bankAccountIds") = 0 OR $3 = ANY("bankAccountIds"))`;
      const esc = (v: string) => v.replace(/[\\%_]/g, (x) => '\\' + x);
      const name = normalizeName(target.depositorName);
      const params: unknown[] = [setup.b.workspaceId, target.amount, setup.b.bankAccount.id, name];
      let sql = `${base} AND "customerNameKey" = $4 ORDER BY "createdAt" LIMIT 51`;
      if (kind === 'none') {
        params[3] = bareName(name);
        params.push([...name].length === setup.truncation ? esc(name) + '%' : null);
        sql = `${base} AND (("customerNameBare" = $4 AND $4 <> '') OR ($5::text IS NOT NULL AND "customerNameKey" LIKE $5)) ORDER BY "createdAt" LIMIT 51`;
      }
      log(`\n  EXPLAIN ANALYZE at ${num(setup.size)}: ${kind === 'exact' ? 'the exact-name candidate query' : 'the fallback candidate query of a deposit no invoice matches'} (amount ${target.amount}, name ${name})`);
      const plan = await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
      for (const row of plan.rows) log(`    ${row['QUERY PLAN']}`);
      await c.end();
    }
  }
  return { p50r, p99r };
}

// ───────────────────────────── 3. events: live notification latency and webhook throughput ─────────────────────────────

interface LatencySide {
  key: 'raw1' | 'app1' | 'raw2' | 'app2';
  label: string;
  /** Where deposits are sent. */
  url: string;
  token: string;
  sub: Subscriber;
  targets: DepositTarget[];
  /** App processes whose CPU is counted per deposit. */
  procs: AppProcess[];
  expectStatus: number;
}

/** Deposits of `tag` in the app's database: how many of those sent paid exactly the invoice they were sent for. */
async function paidAsIntended(databaseUrl: string, workspaceId: string, tag: string, targets: DepositTarget[], sent: boolean[]): Promise<number> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const rows = (
      await c.query<{ k: string; matched: string | null }>(
        `SELECT "notificationId" AS k, "matchedInvoiceId" AS matched FROM "Transaction" WHERE "workspaceId" = $1 AND "notificationId" LIKE $2`,
        [workspaceId, `${tag}-%`],
      )
    ).rows;
    const byKey = new Map(rows.map((x) => [x.k, x.matched]));
    return targets.filter((t, i) => sent[i] && byKey.get(`${tag}-${i}`) === t.invoiceId).length;
  } finally {
    await c.end();
  }
}

async function scenarioEvents() {
  const perSide = EVENTS.rate * (EVENTS.warmupSeconds + EVENTS.seconds);
  log(
    `\n[3] deposit → invoicePaid at a graphql-ws subscriber — ${EVENTS.rate} deposits/s open loop, ${EVENTS.prewarmSeconds ? `${EVENTS.prewarmSeconds} s pre-warm per side once, then ` : ''}${EVENTS.warmupSeconds} s warm-up + ${EVENTS.seconds} s measured per side, ${EVENTS.rounds} round(s); one instance, and two instances over Redis (${REDIS_URL}) with deposits to A and the subscriber on B; every process separate, pool ${POOL}`,
  );
  const encryptionKey = randomBytes(32).toString('hex');
  const db1 = await createScratchDatabase(BASE, 'events1');
  cleanups.push(() => db1.drop());
  const db2 = await createScratchDatabase(BASE, 'events2');
  cleanups.push(() => db2.drop());
  const start = async (db: Scratch, env: Record<string, string>) => {
    const p = await startAppProcess(db.url, POOL, { ENCRYPTION_KEY: encryptionKey, ...env });
    cleanups.push(() => p.stop());
    return p;
  };
  // One instance: the in-process bus (no REDIS_URL), as a single instance is configured. It also serves the webhook part.
  const app1 = await start(db1, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  // Two instances over one database and Redis, both running the workers (the dispatcher claims with SKIP LOCKED).
  const app2a = await start(db2, { REDIS_URL });
  const app2b = await start(db2, { REDIS_URL });
  const b1 = await bootstrap(new ServiceClient(app1.url));
  const b2 = await bootstrap(new ServiceClient(app2a.url));
  const prewarm = EVENTS.rate * EVENTS.prewarmSeconds;
  const need = (EVENTS.rounds * perSide + prewarm) * 2;
  const seeded: DepositTarget[][] = [];
  for (const [i, [db, b]] of ([[db1, b1], [db2, b2]] as const).entries()) {
    const seed = await seedInvoices(db.url, { workspaceId: b.workspaceId, ownerId: b.accountId, apiKeyId: b.apiKey.id, bankAccountId: b.bankAccount.id, count: Math.max(10_000, need * 2), salt: 11 + i });
    const targets = await pickDeposits(db.url, { workspaceId: b.workspaceId, bankAccountId: b.bankAccount.id, truncation: 0 }, 'exact', need, 11 + i);
    if (targets.length < need) throw new Error(`only ${targets.length} of ${need} deposit targets`);
    seeded.push(targets);
    step(`${db.name}: seeded ${num(seed.inserted)} pending invoices; ${num(need)} exact-name deposits picked (one invoice each)`);
  }
  const raw1 = await startRawEvents({ databaseUrl: db1.url, workspaceId: b1.workspaceId, ingest: true, push: true, poolSize: POOL });
  cleanups.push(() => raw1.stop());
  const raw2in = await startRawEvents({ databaseUrl: db2.url, workspaceId: b2.workspaceId, ingest: true, push: false, redisUrl: REDIS_URL, poolSize: POOL });
  cleanups.push(() => raw2in.stop());
  const raw2out = await startRawEvents({ databaseUrl: db2.url, workspaceId: b2.workspaceId, ingest: false, push: true, redisUrl: REDIS_URL, poolSize: POOL });
  cleanups.push(() => raw2out.stop());
  const subs = {
    raw1: await subscribeRaw(raw1.url),
    app1: await subscribeApp(app1.url, b1.apiKey.secret),
    raw2: await subscribeRaw(raw2out.url),
    app2: await subscribeApp(app2b.url, b2.apiKey.secret),
  };
  cleanups.push(async () => {
    for (const s of Object.values(subs)) await s.close();
  });
  // Each database's targets: the first half for the raw side, the second for the app; taken in order, never reused.
  const half = EVENTS.rounds * perSide + prewarm;
  const sides: LatencySide[] = [
    { key: 'raw1', label: 'raw, one process (http → pg → ws)', url: raw1.url, token: 'raw', sub: subs.raw1, targets: seeded[0].slice(0, half), procs: [], expectStatus: 201 },
    { key: 'app1', label: 'app, one instance', url: app1.url, token: b1.bankAccount.notificationToken, sub: subs.app1, targets: seeded[0].slice(half), procs: [app1], expectStatus: 201 },
    { key: 'raw2', label: 'raw, two processes (http → pg → Redis → ws)', url: raw2in.url, token: 'raw', sub: subs.raw2, targets: seeded[1].slice(0, half), procs: [], expectStatus: 201 },
    { key: 'app2', label: 'app, two instances (A → Redis → B)', url: app2a.url, token: b2.bankAccount.notificationToken, sub: subs.app2, targets: seeded[1].slice(half), procs: [app2a, app2b], expectStatus: 201 },
  ];
  const results: Record<string, { r: PacedResult; cpuPerDeposit: number; intended: number | null }[]> = { raw1: [], app1: [], raw2: [], app2: [] };
  const warm = EVENTS.rate * EVENTS.warmupSeconds;
  const measured = EVENTS.rate * EVENTS.seconds;
  if (prewarm > 0) {
    for (const side of sides.filter((x) => EVENTS.sides.includes(x.key))) {
      const w = await pacedDeposits({ url: side.url, token: side.token, targets: side.targets.slice(0, prewarm), rate: EVENTS.rate, tag: `${side.key}p`, sub: side.sub, expectStatus: side.expectStatus });
      step(`pre-warm ${side.key}: ${EVENTS.prewarmSeconds} s at ${EVENTS.rate}/s (not measured): p99 ${ms(w.latency.p99)}`);
    }
  }
  for (let round = 0; round < EVENTS.rounds; round++) {
    for (const side of sides.filter((x) => EVENTS.sides.includes(x.key))) {
      const offset = prewarm + round * perSide;
      const run = (tag: string, targets: DepositTarget[]) => pacedDeposits({ url: side.url, token: side.token, targets, rate: EVENTS.rate, tag, sub: side.sub, expectStatus: side.expectStatus });
      const w = await run(`${side.key}w${round}`, side.targets.slice(offset, offset + warm));
      if (w.missing > 0 || w.statuses[String(side.expectStatus)] !== w.sent) {
        failed = true;
        console.error(`  ! ${side.key} warm-up: ${w.missing} of ${w.sent} messages missing, statuses ${JSON.stringify(w.statuses)} first error: ${w.firstError} ${JSON.stringify((side.sub as { errors?: unknown[] }).errors ?? [])}`);
      }
      // CPU of the app processes from the first measured request until the last message arrived.
      const cpu0 = await Promise.all(side.procs.map((p) => p.cpuMs()));
      const tag = `${side.key}m${round}`;
      const targets = side.targets.slice(offset + warm, offset + warm + measured);
      const r = await run(tag, targets);
      const cpu1 = await Promise.all(side.procs.map((p) => p.cpuMs()));
      const cpuPerDeposit = side.procs.length ? (cpu1.reduce((a, b) => a + b, 0) - cpu0.reduce((a, b) => a + b, 0)) / r.sent : NaN;
      const db = side.key.endsWith('1') ? db1 : db2;
      const b = side.key.endsWith('1') ? b1 : b2;
      const intended = side.key.startsWith('app') ? await paidAsIntended(db.url, b.workspaceId, tag, targets, r.sentMask) : null;
      results[side.key].push({ r, cpuPerDeposit, intended });
      if (r.missing > 0 || r.statuses[String(side.expectStatus)] !== r.sent || (intended !== null && intended !== r.sent)) {
        failed = true;
        console.error(`  ! ${side.key}: ${r.missing} of ${r.sent} messages missing, statuses ${JSON.stringify(r.statuses)}, paid as intended ${intended ?? '-'}; first error: ${r.firstError}`);
      }
      step(
        `round ${round + 1} ${side.key}  p50 ${ms(r.latency.p50)}  p99 ${ms(r.latency.p99)}  max ${ms(r.latency.max)}  (HTTP p50 ${ms(r.http.p50)} p99 ${ms(r.http.p99)}; after the answer p50 ${ms(r.afterAnswer.p50)} p99 ${ms(r.afterAnswer.p99)})  ${r.received}/${r.sent} received${r.shed ? `, ${r.shed} shed (half a second's deposits were waiting for an answer)` : ''}, sent at ${num(r.rate, 0)}/s, answered at ${num(r.answeredRate, 0)}/s, send lag p99 ${ms(r.sendLagP99)}${Number.isNaN(cpuPerDeposit) ? '' : `, app CPU ${ms(cpuPerDeposit)}/deposit`}  (load avg ${loadavg()[0].toFixed(1)})`,
      );
    }
  }
  const med = (key: string, f: (x: { r: PacedResult; cpuPerDeposit: number }) => number) => median(results[key].map(f));
  // Latency percentiles over every measured deposit of every round (pooled); the other columns are medians of rounds.
  const pooled = (k: string) => summarize(results[k].flatMap((x) => x.r.latencies));
  const p99 = (k: string) => pooled(k).p99;
  const p50 = (k: string) => pooled(k).p50;
  const ran = sides.filter((s) => results[s.key].length);
  if (ran.length) {
    log('');
    log(
      table(
        ['side', 'p50', 'p90', 'p99', 'max', 'HTTP p50', 'HTTP p99', 'after answer p50', 'p99', 'answered/s', 'received/sent', 'shed', 'app CPU/deposit', 'p99 per round'],
        ran.map((s) => [
          s.label,
          ms(pooled(s.key).p50),
          ms(pooled(s.key).p90),
          ms(pooled(s.key).p99),
          ms(pooled(s.key).max),
          ms(med(s.key, (x) => x.r.http.p50)),
          ms(med(s.key, (x) => x.r.http.p99)),
          ms(med(s.key, (x) => x.r.afterAnswer.p50)),
          ms(med(s.key, (x) => x.r.afterAnswer.p99)),
          num(med(s.key, (x) => x.r.answeredRate), 0),
          `${results[s.key].reduce((a, x) => a + x.r.received, 0)}/${results[s.key].reduce((a, x) => a + x.r.sent, 0)}`,
          String(results[s.key].reduce((a, x) => a + x.r.shed, 0)),
          s.procs.length ? ms(med(s.key, (x) => x.cpuPerDeposit)) : '-',
          results[s.key].map((x) => ms(x.r.latency.p99)).join(' / '),
        ]),
      ),
    );
    log('');
    const verdict = (key: 'app1' | 'app2', raw: 'raw1' | 'raw2', label: string, goal: number) => {
      if (!results[key].length) return;
      const ratios = results[raw].length ? `   app / raw: p50 ${(p50(key) / p50(raw)).toFixed(2)}x, p99 ${(p99(key) / p99(raw)).toFixed(2)}x` : '';
      const answered = med(key, (x) => x.r.answeredRate);
      // An open loop the server cannot keep up with measures its queue, not its latency: say so.
      const shed = results[key].reduce((a, x) => a + x.r.shed, 0);
      const saturated = answered < EVENTS.rate * 0.95 || shed > 0 ? `   SATURATED: deposits answered at ${num(answered, 0)}/s < ${EVENTS.rate}/s offered, ${shed} shed (app CPU ${ms(med(key, (x) => x.cpuPerDeposit))}/deposit)` : '';
      log(`  ${label} p50 ${ms(p50(key))}, p99 ${ms(p99(key))}   (goal p99 <= ${goal} ms: ${p99(key) <= goal ? 'MET' : 'MISSED'})${ratios}${saturated}`);
    };
    verdict('app1', 'raw1', 'one instance: ', 25);
    verdict('app2', 'raw2', 'two instances:', 50);
  }

  // The two-instance side and the raw processes are done: stop them so the webhook part has the machine.
  await Promise.all([app2a.stop(), app2b.stop(), raw1.stop(), raw2in.stop(), raw2out.stop()]);
  for (const s of Object.values(subs)) await s.close();
  if (EVENTS.webhooks > 0) await webhookThroughput(app1, db1);
  return { p99One: p99('app1'), p99Two: p99('app2') };
}

async function webhookThroughput(app: AppProcess, db: Scratch) {
  const N = EVENTS.webhooks;
  log(
    `\n[3b] webhook deliveries to a local receiver (node:http, answers 200) — ${num(N)} invoice.paid events committed to the outbox at once, delivered by one app instance (webhook worker concurrency ${WEBHOOK_CONCURRENCY}); raw baseline: ${num(N)} signed POSTs from a plain node loop, ${WEBHOOK_CONCURRENCY} at a time; ${EVENTS.webhookRounds} round(s)`,
  );
  const sink = await new WebhookSink().start();
  cleanups.push(() => sink.stop());
  const client = new ServiceClient(app.url);
  const b = await bootstrap(client);
  const hook = await client.gql<{ createWebhook: { webhook: { id: string }; signingSecret: string } }>(
    `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } signingSecret } }`,
    { input: { url: sink.url, version: 'V1' } },
    b.sessionToken,
  );
  const secret = hook.createWebhook.signingSecret;
  // One real paid invoice through the API: its invoice.paid event is the template of the seeded ones.
  const inv = await client.request('POST', '/v1/invoices', { token: b.apiKey.secret, body: { bankAccountIds: [], customer: { name: '웹훅벤치', email: 'buyer@example.com' }, amount: 12_300 } });
  const dep = await client.deposit(b.bankAccount.notificationToken, { depositorName: '웹훅벤치', amount: 12_300, notificationId: 'webhook-bench-template' });
  if (inv.status !== 201 || dep.status !== 201) throw new Error(`template invoice: ${inv.status} ${JSON.stringify(inv.body)} / deposit ${dep.status}`);
  if (!(await sink.waitFor(2, 15_000))) throw new Error(`the template's webhooks did not arrive (${sink.requests.length})`);
  const templateBody = sink.requests.find((r) => JSON.parse(r.body).type !== 'invoice.created')?.body ?? sink.requests[0].body;
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  cleanups.push(() => c.end());
  const [template] = (await c.query<{ id: string }>(`SELECT id FROM "Event" WHERE "workspaceId" = $1 AND type = 'invoice.paid'`, [b.workspaceId])).rows;

  // The app's delivery path warmed up (JIT) like the other scenarios' warm-up requests: a fifth of N, not measured.
  const seedEvents = async (count: number, salt: string) => {
    await c.query('BEGIN');
    const [{ eventSeq }] = (await c.query<{ eventSeq: string }>(`UPDATE "Workspace" SET "eventSeq" = "eventSeq" + $2 WHERE id = $1 RETURNING "eventSeq"`, [b.workspaceId, count])).rows;
    await c.query(
      `INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", data, "createdAt")
       SELECT 'evt_' || substr(md5($4 || ':' || g::text), 1, 24), t."workspaceId", $3::bigint - $2 + g, t.type, t."invoiceId", NULL, t."bankAccountIds", t.data, now()
         FROM generate_series(1, $2::int) g, (SELECT * FROM "Event" WHERE id = $1) t`,
      [template.id, count, eventSeq, `${randomBytes(6).toString('hex')}${salt}`],
    );
  };
  const warmup = Math.ceil(N / 5);
  sink.reset();
  await seedEvents(warmup, 'w');
  await c.query('COMMIT');
  app.wake();
  if (!(await sink.waitFor(warmup, 120_000))) throw new Error(`webhook warm-up: ${sink.requests.length} of ${warmup} received`);
  step(`warm-up: ${num(warmup)} deliveries`);

  const verify = (reqs: typeof sink.requests) => {
    const ids = new Set(reqs.map((r) => r.headers['webhook-id']));
    const bad = reqs.filter((r) => !String(r.headers['webhook-signature']).split(' ').includes(sign(secret, String(r.headers['webhook-id']), Number(r.headers['webhook-timestamp']), r.body))).length;
    return { distinct: ids.size, badSignatures: bad };
  };
  type Run = { rate: number; steady: number; seconds: number; cpuPerDelivery: number; distinct: number; badSignatures: number; received: number };
  const results: Record<'raw' | 'app', Run[]> = { raw: [], app: [] };
  const fanouts: number[] = [];
  for (let round = 0; round < EVENTS.webhookRounds; round++) {
    // Raw: the same number of signed POSTs straight at the receiver.
    sink.reset();
    let t0 = 0;
    const sent = await sendSignedPosts({ url: sink.url, count: N, concurrency: WEBHOOK_CONCURRENCY, secret, bodyTemplate: templateBody }, () => (t0 = performance.now()));
    await sink.waitFor(N, 60_000);
    const rawReqs = sink.requests;
    const rawRun = summarizeDelivery(t0, rawReqs, N, sent.cpuMs / N, verify(rawReqs));
    results.raw.push(rawRun);
    if (sent.statuses['200'] !== N) {
      failed = true;
      console.error(`  ! raw webhook sender: ${JSON.stringify(sent.statuses)}`);
    }

    // App: N undispatched invoice.paid events committed at once (copies of the template's, fresh ids and sequences),
    // then the dispatcher woken as after any commit that writes events; until the receiver has them all.
    sink.reset();
    await seedEvents(N, String(round));
    const cpu0 = await app.cpuMs();
    t0 = performance.now();
    await c.query('COMMIT');
    app.wake();
    const [{ committedAt }] = (await c.query<{ committedAt: Date }>(`SELECT clock_timestamp() AS "committedAt"`)).rows;
    const complete = await sink.waitFor(N, 300_000);
    const cpu1 = await app.cpuMs();
    await new Promise((r) => setTimeout(r, 300)); // anything delivered twice would arrive now
    const appReqs = sink.requests;
    const appRun = summarizeDelivery(t0, appReqs.slice(0, N), N, (cpu1 - cpu0) / N, verify(appReqs));
    results.app.push(appRun);
    // Every dispatch recorded as SUCCEEDED (the last outcomes are written just after their POSTs: allow a moment).
    let state = { pending: '?', succeeded: '?', failed: '?' };
    for (const until = performance.now() + 10_000; performance.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      [state] = (
        await c.query<{ pending: string; succeeded: string; failed: string }>(
          `SELECT count(*) FILTER (WHERE status = 'PENDING') AS pending, count(*) FILTER (WHERE status = 'SUCCEEDED') AS succeeded, count(*) FILTER (WHERE status = 'FAILED') AS failed
             FROM "WebhookDispatch" WHERE "webhookId" = $1`,
          [hook.createWebhook.webhook.id],
        )
      ).rows;
      if (Number(state.pending) === 0) break;
    }
    if (!complete || appReqs.length !== N || appRun.distinct !== N || appRun.badSignatures > 0 || Number(state.pending) > 0 || Number(state.failed) > 0) {
      failed = true;
      console.error(`  ! app webhooks: received ${appReqs.length} of ${N} (distinct ${appRun.distinct}, bad signatures ${appRun.badSignatures}); dispatches ${JSON.stringify(state)}`);
    }
    // How long the outbox fan-out (dispatcher: events → webhook dispatches) took of it: when the last batch started
    // (its dispatches' createdAt, the app's clock) after the commit (the database's clock; one machine).
    const [{ fanout }] = (
      await c.query<{ fanout: number }>(`SELECT extract(epoch FROM max("createdAt") - $2::timestamptz) AS fanout FROM "WebhookDispatch" WHERE "webhookId" = $1 AND "createdAt" >= $2::timestamptz`, [
        hook.createWebhook.webhook.id,
        committedAt,
      ])
    ).rows;
    fanouts.push(Number(fanout));
    for (const [key, x] of [['raw', rawRun], ['app', appRun]] as const) {
      step(
        `round ${round + 1} ${key}  ${num(x.rate, 0).padStart(6)} deliveries/s end to end (${x.seconds.toFixed(2)} s), ${num(x.steady, 0)}/s first → last, ${x.received} received, ${x.distinct} distinct, ${x.badSignatures} bad signatures, ${key === 'app' ? `app CPU ${ms(x.cpuPerDelivery)}/delivery, outbox fan-out done after ${Number(fanout).toFixed(2)} s` : `sender CPU ${ms(x.cpuPerDelivery)}/delivery`}  (load avg ${loadavg()[0].toFixed(1)})`,
      );
    }
  }
  const appRate = median(results.app.map((x) => x.rate));
  const rawRate = median(results.raw.map((x) => x.rate));
  log('');
  log(
    table(
      ['side', 'deliveries/s', 'first → last /s', 'seconds', 'CPU/delivery', 'deliveries/s per round'],
      (['raw', 'app'] as const).map((k) => [
        k === 'raw' ? `raw (node loop, ${WEBHOOK_CONCURRENCY} at a time, signed)` : 'app (outbox → dispatcher → webhook worker)',
        num(median(results[k].map((x) => x.rate)), 0),
        num(median(results[k].map((x) => x.steady)), 0),
        median(results[k].map((x) => x.seconds)).toFixed(2),
        ms(median(results[k].map((x) => x.cpuPerDelivery))),
        results[k].map((x) => num(x.rate, 0)).join(' / '),
      ]),
    ),
  );
  log('');
  log(`  webhook deliveries: ${num(appRate, 0)}/s   (goal >= 1,000/s: ${appRate >= 1000 ? 'MET' : 'MISSED'})   app / raw = ${((appRate / rawRate) * 100).toFixed(1)}%`);
  return { appRate, rawRate };
}

function summarizeDelivery(t0: number, reqs: { at: number }[], n: number, cpuPerDelivery: number, v: { distinct: number; badSignatures: number }) {
  const last = reqs[Math.min(n, reqs.length) - 1]?.at ?? NaN;
  const first = reqs[0]?.at ?? NaN;
  const seconds = (last - t0) / 1000;
  return { rate: reqs.length / seconds, steady: (reqs.length - 1) / ((last - first) / 1000), seconds, cpuPerDelivery, received: reqs.length, ...v };
}

const started = performance.now();
try {
  log(`bench${quick ? ' (quick)' : ''} — PostgreSQL ${BASE.replace(/\/\/[^@]*@/, '//')}, node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  // Each scenario frees its databases, apps and processes before the next one starts.
  if (runs('create')) await scenarioCreate().finally(cleanup);
  if (runs('match')) await scenarioMatch().finally(cleanup);
  if (runs('events')) await scenarioEvents().finally(cleanup);
  if (runs('lists'))
    await scenarioLists({ base: BASE, quick, explain: flag('explain'), keep: flag('keep'), pool: POOL, requests: option('requests') ? Number(option('requests')) : undefined, filter: option('cases'), log, cleanups }).finally(cleanup);
  const ctx: BenchContext = { quick, option, log, step, cleanups, fail: (m) => ((failed = true), console.error(`  ! ${m}`)) };
  if (runs('embedded')) await scenarioEmbedded(ctx).finally(cleanup);
  if (runs('rate')) await scenarioRate(ctx, { baseUrl: BASE, poolSize: POOL }).finally(cleanup);
  if (runs('dashboard')) await scenarioDashboard(ctx, { base: BASE }).finally(cleanup);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await cleanup();
  log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
process.exit(failed ? 1 : 0);
