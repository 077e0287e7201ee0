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
 * PostgreSQL at BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test): scratch databases are created
 * next to it and dropped at the end (also on Ctrl-C). The load generator runs in a child process (lib/load-worker.ts).
 *
 * Options: --quick (fewer requests; 1,000 vs 100,000 invoices), --concurrency N (default 16), --pool N (database pool
 * of the app and of the baseline, default 10 = the app's DATABASE_POOL_SIZE default), --only create|match,
 * --sizes 1000,1000000, --explain (EXPLAIN ANALYZE of the candidate queries at each size).
 */
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { startRawServer, type RawServer } from './lib/raw-server.ts';
import { createScratchDatabase, startApp, type RunningApp, type Scratch } from './lib/scratch.ts';
import { findBankProvider } from '../../src/domain/bank-accounts/bank-providers.ts';
import { removeBrackets } from '../../src/domain/deposits/name-matching.ts';
import { pickDeposits, seedInvoices, type DepositKind, type DepositTarget } from './lib/seed.ts';
import { median, ms, num, summarize, table, type LatencySummary } from './lib/stats.ts';

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
const SIZES = (option('sizes') ?? (quick ? '1000,100000' : '1000,1000000')).split(',').map(Number);
const CREATE = quick ? { warmup: 200, requests: 600, rounds: 1 } : { warmup: 200, requests: 800, rounds: 3 };
const MATCH = quick ? { warmup: 10, deposits: 60, other: 20 } : { warmup: 20, deposits: 200, other: 30 };

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
    { key: 'app', label: 'app (buildApp, v1 → GraphQL → Prisma)', url: app.url },
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
      const cpu0 = process.cpuUsage();
      const r = await runLoad({ ...job, bodyTemplate: template(`b${round}${i}x`), requests: CREATE.requests });
      const cpu = process.cpuUsage(cpu0);
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
      // The WHERE clauses candidateInvoices() sends (deposits.ts): by exact name, else the name-based fallback.
      const base = `SELECT * FROM "Invoice"
          WHERE "workspaceId" = $1 AND amount = $2 AND status = 'PENDING' AND ("expiresAt" IS NULL OR "expiresAt" > now())
            AND (cardinality("bankAccountIds") = 0 OR "bankAccountIds" @> ARRAY[$3]::text[])`;
      const esc = (v: string) => v.replace(/[\\%_]/g, (x) => '\\' + x);
      const name = target.depositorName;
      const params: unknown[] = [setup.b.workspaceId, target.amount, setup.b.bankAccount.id, name];
      let sql = `${base} AND "customerName" = $4 ORDER BY "createdAt" ASC LIMIT 200`;
      if (kind === 'none') {
        const bare = removeBrackets(name);
        const openers = ['(', '[', '{', '（', '【', ...Array.from({ length: 0x10000 }, (_, x) => String.fromCharCode(x)).filter((x) => /\s/.test(x))];
        params.push(openers.map((o) => `%${esc(o)}%`), [...new Set(bare)].map((ch) => `%${esc(ch)}%`));
        const prefix = [...name].length === setup.truncation ? ` OR "customerName" LIKE $7` : '';
        if (prefix) params.push(esc(name) + '%');
        sql = `${base} AND ("customerName" = $4 OR ("customerName" LIKE ANY($5::text[]) AND "customerName" LIKE ALL($6::text[]))${prefix}) ORDER BY "createdAt" ASC LIMIT 200`;
      }
      log(`\n  EXPLAIN ANALYZE at ${num(setup.size)}: ${kind === 'exact' ? 'the exact-name candidate query' : 'the fallback candidate query of a deposit no invoice matches'} (amount ${target.amount}, name ${name})`);
      const plan = await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
      for (const row of plan.rows) log(`    ${row['QUERY PLAN']}`);
      await c.end();
    }
  }
  return { p50r, p99r };
}

const started = performance.now();
try {
  log(`bench${quick ? ' (quick)' : ''} — PostgreSQL ${BASE.replace(/\/\/[^@]*@/, '//')}, node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  if (ONLY !== 'match') await scenarioCreate();
  if (ONLY !== 'create') await scenarioMatch();
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await cleanup();
  log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
process.exit(failed ? 1 : 0);
