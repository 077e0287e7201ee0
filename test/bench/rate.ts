/**
 * `npm run bench -- --only rate [--rates 600,900,1200,1500,1800] [--rate-seconds 10]`: how many deposits per second
 * one app instance on PostgreSQL sustains with p99 <= 100 ms, and what each costs in CPU against a raw baseline.
 *
 * One app instance (lib/app-process.ts: a child process, its default workers, on a scratch database next to
 * BENCH_DATABASE_URL) and the raw baseline (lib/raw-writes.ts: node:http + pg, one statement that pays the invoice and
 * inserts the deposit) on the same database, each sent exact-name deposits for seeded pending invoices (lib/seed.ts,
 * one invoice each, disjoint between the sides) in an OPEN loop (deposit i leaves at start + i/rate whatever the
 * earlier ones are doing: lib/events.ts pacedDeposits, no subscriber), each rate for both sides in turn. Latency is
 * the HTTP latency (request sent → 201: the deposit committed). A side keeps up at a rate when it answered >= 95 % of
 * it and shed nothing (a deposit is shed once half a second's worth wait for an answer). CPU per deposit: the side's
 * node process (user + system) and the PostgreSQL backends of the scratch database (read from /proc), from the first
 * request until 1 s after the last answer (the app's outbox dispatcher finishing its share). The knee: the highest
 * rate at which the app keeps up with p99 <= 100 ms. Goals: knee >= 1,500/s; app CPU per deposit <= 1.3x raw.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import pg from 'pg';
import { bootstrap, ServiceClient } from '../../src/cli/client.ts';
import type { BenchContext } from './embedded.ts';
import { startAppProcess } from './lib/app-process.ts';
import { pacedDeposits, type PacedResult } from './lib/events.ts';
import { startRawWrites } from './lib/raw-writes.ts';
import { createScratchDatabase } from './lib/scratch.ts';
import { pickDeposits, seedInvoices, type DepositTarget } from './lib/seed.ts';
import { ms, num, table } from './lib/stats.ts';

export const RATE_GOALS = { depositsPerS: 1500, p99Ms: 100, cpuRatio: 1.3 };

function procCpuMs(pid: number): number | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ 100
  } catch {
    return null;
  }
}

/**
 * CPU of the PostgreSQL backends connected to one database (autovacuum included) over a window: polled every 200 ms so
 * a backend that ends inside the window keeps its last reading; one that starts inside it counts from zero.
 */
class BackendCpu {
  private first = new Map<number, number>();
  private last = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private constructor(private readonly c: pg.Client) {}

  static async open(url: string): Promise<BackendCpu> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    return new BackendCpu(c);
  }

  private async poll(starting: boolean) {
    const rows = (await this.c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows;
    for (const { pid } of rows) {
      const v = procCpuMs(pid);
      if (v === null) continue;
      if (!this.first.has(pid)) this.first.set(pid, starting ? v : 0);
      this.last.set(pid, v);
    }
  }

  async start() {
    this.first.clear();
    this.last.clear();
    await this.poll(true);
    this.timer = setInterval(() => void this.poll(false).catch(() => {}), 200);
  }

  /** CPU ms of the backends since start(). */
  async stop(): Promise<number> {
    clearInterval(this.timer!);
    await this.poll(false);
    let sum = 0;
    for (const [pid, v] of this.last) sum += v - (this.first.get(pid) ?? 0);
    return sum;
  }

  close() {
    return this.c.end();
  }
}

interface RateRun {
  r: PacedResult;
  nodeCpu: number;
  pgCpu: number;
  paid: number;
}

export async function scenarioRate(ctx: BenchContext, o: { baseUrl: string; poolSize: number }): Promise<void> {
  const { quick, log, step } = ctx;
  const rates = (ctx.option('rates') ?? '600,900,1200,1500,1800').split(',').map(Number);
  const seconds = Number(ctx.option('rate-seconds') ?? (quick ? 5 : 10));
  const prewarmS = Number(ctx.option('prewarm') ?? (quick ? 3 : 10));
  const sideKeys = (ctx.option('sides') ?? 'raw,app').split(',') as ('raw' | 'app')[];
  const G = RATE_GOALS;
  log(
    `\n[rate] deposits/s one app instance sustains on PostgreSQL (open loop, HTTP latency, ${seconds} s per rate and side after ${prewarmS} s of unmeasured pre-warm at ${rates[0]}/s), rates ${rates.join(', ')}/s, sides ${sideKeys.join(', ')}; pool ${o.poolSize}`,
  );
  const db = await createScratchDatabase(o.baseUrl, 'rate');
  ctx.cleanups.push(() => db.drop());
  const app = await startAppProcess(db.url, o.poolSize);
  ctx.cleanups.push(() => app.stop());
  const b = await bootstrap(new ServiceClient(app.url));
  const perSide = rates.reduce((a, r) => a + r * seconds, 0) + rates[0] * prewarmS;
  const need = perSide * sideKeys.length;
  const seed = await seedInvoices(db.url, { workspaceId: b.workspaceId, ownerId: b.accountId, apiKeyId: b.apiKey.id, bankAccountId: b.bankAccount.id, count: Math.max(10_000, Math.ceil(need * 1.2)), salt: 41 });
  const targets = await pickDeposits(db.url, { workspaceId: b.workspaceId, bankAccountId: b.bankAccount.id, truncation: 0 }, 'exact', need, 41);
  if (targets.length < need) throw new Error(`only ${targets.length} of ${need} deposit targets`);
  step(`${db.name}: seeded ${num(seed.inserted)} pending invoices; ${num(need)} exact-name deposits picked`);
  const raw = await startRawWrites({ kind: 'pg', url: db.url, poolSize: o.poolSize });
  ctx.cleanups.push(() => raw.stop());
  const backends = await BackendCpu.open(db.url);
  ctx.cleanups.push(() => backends.close());
  const check = new pg.Client({ connectionString: db.url });
  await check.connect();
  ctx.cleanups.push(() => check.end());

  const sides = { app: { url: app.url, cpu: () => app.cpuMs(), pool: targets.slice(0, perSide) }, raw: { url: raw.url, cpu: () => raw.cpuMs(), pool: targets.slice(perSide, 2 * perSide) } };
  const noSubscriber = { handler: () => {}, close: async () => {} };
  const run = async (key: 'app' | 'raw', rate: number, secs: number, tag: string): Promise<RateRun> => {
    const side = sides[key];
    const mine = side.pool.splice(0, Math.round(rate * secs));
    const n0 = await side.cpu();
    await backends.start();
    const r = await pacedDeposits({ url: side.url, token: b.bankAccount.notificationToken, targets: mine, rate, tag, sub: noSubscriber, expectStatus: 201, settleMs: 0 });
    await new Promise((res) => setTimeout(res, 1000));
    const pgCpu = await backends.stop();
    const nodeCpu = (await side.cpu()) - n0;
    const want = new Map(mine.map((t, i) => [`${tag}-${i}`, t.invoiceId]));
    const rows = (await check.query<{ k: string; m: string | null }>(`SELECT "notificationId" AS k, "matchedInvoiceId" AS m FROM "Transaction" WHERE "notificationId" LIKE $1`, [`${tag}-%`])).rows;
    const paid = rows.filter((x) => x.m !== null && want.get(x.k) === x.m).length;
    if (paid !== r.sent || r.statuses['201'] !== r.sent) ctx.fail(`${tag}: ${paid} of ${r.sent} sent paid their invoice; statuses ${JSON.stringify(r.statuses)} ${r.firstError ?? ''}`);
    return { r, nodeCpu: nodeCpu / r.sent, pgCpu: pgCpu / r.sent, paid };
  };
  for (const key of sideKeys) {
    if (prewarmS > 0) await run(key, rates[0], prewarmS, `rate-${key}-warm`);
  }
  step(`pre-warmed: ${prewarmS} s at ${rates[0]}/s per side`);

  const keepsUp = (x: RateRun, rate: number) => x.r.shed === 0 && x.r.answeredRate >= rate * 0.95;
  const meets = (x: RateRun, rate: number) => keepsUp(x, rate) && x.r.http.p99 <= G.p99Ms;
  const results = new Map<string, RateRun>();
  const misses = { app: 0, raw: 0 };
  for (const rate of rates) {
    for (const key of sideKeys) {
      // A side that missed two rates in a row is not sent more (its latency is its queue; the run stays short).
      if (misses[key] >= 2) continue;
      const x = await run(key, rate, seconds, `rate-${key}-${rate}`);
      results.set(`${key}/${rate}`, x);
      misses[key] = meets(x, rate) ? 0 : misses[key] + 1;
      step(
        `${String(rate).padStart(5)}/s ${key}  answered ${num(x.r.answeredRate, 0)}/s  p50 ${ms(x.r.http.p50)}  p99 ${ms(x.r.http.p99)}  max ${ms(x.r.http.max)}  shed ${x.r.shed}  node CPU ${ms(x.nodeCpu)}/deposit, PostgreSQL ${ms(x.pgCpu)}/deposit  send lag p99 ${ms(x.r.sendLagP99)}  ${meets(x, rate) ? 'keeps up' : keepsUp(x, rate) ? 'p99 over' : 'FALLS BEHIND'}  (load avg ${loadavg()[0].toFixed(1)})`,
      );
    }
  }

  log('');
  const rows: string[][] = [];
  for (const rate of rates) {
    for (const key of sideKeys) {
      const x = results.get(`${key}/${rate}`);
      if (!x) {
        rows.push([`${num(rate)}/s`, key, '-', '-', '-', '-', '-', '-', '-', '-', '-', 'not run (missed the two rates below)']);
        continue;
      }
      rows.push([
        `${num(rate)}/s`,
        key,
        num(x.r.answeredRate, 0),
        ms(x.r.http.p50),
        ms(x.r.http.p90),
        ms(x.r.http.p99),
        ms(x.r.http.max),
        String(x.r.shed),
        ms(x.nodeCpu),
        ms(x.pgCpu),
        ms(x.nodeCpu + x.pgCpu),
        meets(x, rate) ? 'yes' : keepsUp(x, rate) ? `no (p99 > ${G.p99Ms} ms)` : 'no (falls behind)',
      ]);
    }
    const a = results.get(`app/${rate}`);
    const r = results.get(`raw/${rate}`);
    if (a && r) rows.push(['', 'app / raw', '', `${(a.r.http.p50 / r.r.http.p50).toFixed(2)}x`, '', `${(a.r.http.p99 / r.r.http.p99).toFixed(2)}x`, '', '', `${(a.nodeCpu / r.nodeCpu).toFixed(2)}x`, `${(a.pgCpu / r.pgCpu).toFixed(2)}x`, `${((a.nodeCpu + a.pgCpu) / (r.nodeCpu + r.pgCpu)).toFixed(2)}x`, '']);
  }
  log(table(['rate', 'side', 'answered/s', 'p50', 'p90', 'p99', 'max', 'shed', 'node CPU/dep', 'PG CPU/dep', 'total CPU/dep', `keeps up, p99 <= ${G.p99Ms} ms`], rows));
  const appMet = rates.filter((rate) => {
    const x = results.get(`app/${rate}`);
    return x && meets(x, rate);
  });
  const rawMet = rates.filter((rate) => {
    const x = results.get(`raw/${rate}`);
    return x && meets(x, rate);
  });
  const knee = appMet.length ? Math.max(...appMet) : 0;
  log('');
  log(`  knee (app): ${knee ? `${num(knee)}/s` : `below ${num(rates[0])}/s`} — the highest rate swept at which it kept up with p99 <= ${G.p99Ms} ms   (goal >= ${num(G.depositsPerS)}/s: ${knee >= G.depositsPerS ? 'MET' : 'MISSED'})${rawMet.length ? `; raw: ${num(Math.max(...rawMet))}/s` : ''}`);
  // CPU per deposit compared at the rates both sides kept up with (below the knee, where neither is queueing).
  const both = rates.filter((rate) => appMet.includes(rate) && rawMet.includes(rate));
  if (both.length) {
    const ratios = both.map((rate) => results.get(`app/${rate}`)!.nodeCpu / results.get(`raw/${rate}`)!.nodeCpu);
    const worst = Math.max(...ratios);
    log(`  app / raw node CPU per deposit at ${both.map((x) => `${num(x)}/s`).join(', ')}: ${ratios.map((x) => `${x.toFixed(2)}x`).join(', ')}   (goal <= ${G.cpuRatio}x: ${worst <= G.cpuRatio ? 'MET' : 'MISSED'})`);
  }
  log(`  load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}
