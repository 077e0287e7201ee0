/**
 * Fault injection: the server process is SIGKILLed at random moments (≥ 5 times, seeded by FAULT_SEED) during a mixed
 * load — creates, deposits that pay them, unmatched deposits, v1 DELETE, v2 cancel, PATCH, mark-as-paid, direct cash
 * receipts and partial receipt cancels, with the simulated agency slow enough (AGENCY_SIM_DELAY_MS) that receipts are
 * pending when it dies — and restarted each time on the same data (the embedded cluster under DATA_DIR, or the PostgreSQL database of
 * TEST_DATABASE_URL). After the last restart:
 *  - nothing acknowledged is lost: every 201/200 the client saw is in the database, and every invoice and receipt the
 *    client never lost track of is exactly in the state its acknowledged requests put it in;
 *  - test/helpers/invariants.ts finds no violation;
 *  - every committed event a V1 (and a V2) webhook receives was delivered at least once;
 *  - every PENDING receipt settles.
 *
 *   npx vitest run --config vitest.stress.config.ts test/stress/faults.test.ts        (FAULT_SEED=n FAULT_KILLS=n)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { webhookEventType } from '../../src/domain/webhooks/routing.ts';
import { dbLabel, freshDatabase, onPostgres } from '../helpers/app.ts';
import { checkInvariants, openServerDatabase } from '../helpers/invariants.ts';
import { freePort, startServerProcess } from '../helpers/process.ts';
import { Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

const SEED = Number(process.env.FAULT_SEED ?? 1);
const KILLS = Math.max(5, Number(process.env.FAULT_KILLS ?? 5));
const WORKERS = 6;
/**
 * When the next kill lands: uniform in this range after the restarted server acknowledged its first request (so kills
 * do not all land in its warm-up) — or, one time in five, within 300 ms of the restart, while it is still catching up
 * with what the previous kill interrupted.
 */
const LOAD_MS: [number, number] = [500, 4000];

/** mulberry32: small, seedable, good enough to pick operations and delays. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type InvoiceStatus = 'PENDING' | 'PAID' | 'CANCELED';

/** What the client knows of an invoice from its acknowledged requests. */
interface ModelInvoice {
  id: string;
  name: string;
  amount: number;
  email: string | null;
  status: InvoiceStatus;
  trigger: 'DEPOSIT' | 'API_CALL' | null;
  transactionId: string | null;
  /** A request on it got no answer (the kill): it may or may not have happened; the invoice is left alone after. */
  uncertain: { op: string; to: Partial<Pick<ModelInvoice, 'status' | 'amount' | 'email'>> } | null;
}

interface ModelReceipt {
  id: string;
  /** The worker that issued it (and alone cancels it). */
  worker: number;
  amount: number;
  canceled: number;
  cancellationIds: string[];
  createdAt: number;
  uncertain: boolean;
}

describe(`SIGKILL at random points under load on ${dbLabel}`, () => {
  const v1 = new Receiver();
  const v2 = new Receiver();
  let env: Record<string, string>;
  let drop = async () => {};
  let child: ChildProcess | null = null;
  let output: () => string = () => '';

  beforeAll(async () => {
    await Promise.all([v1.start(), v2.start()]);
    env = {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
      // Small but non-zero: receipts are still PENDING at the tax authority when the process dies.
      AGENCY_SIM_DELAY_MS: '300',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '100,200,400,800,1600,3200',
      // A delivery cut short by the kill is retried when its lease (timeout + 5 s) runs out.
      WEBHOOK_TIMEOUT_MS: '2000',
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'faults-')),
      DATABASE_URL: '',
    };
    if (onPostgres) {
      const fresh = await freshDatabase();
      await fresh.database.close();
      env.DATABASE_URL = fresh.url!;
      drop = fresh.drop;
    }
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await Promise.all([v1.stop(), v2.stop()]);
    await drop();
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it(`survives ${KILLS} SIGKILLs without losing an acknowledged write or an event`, { timeout: 600_000 }, async () => {
    const t0 = Date.now();
    // One stream for the kill schedule, one per worker for its operations (so a seed replays the same choices as far
    // as the timing of the run lets it).
    const rand = prng(SEED);
    const log = (msg: string) => console.log(`[faults ${dbLabel} seed=${SEED} +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
    log(`FAULT_SEED=${SEED} (set FAULT_SEED to replay), ${KILLS} kills, ${WORKERS} workers`);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const start = async () => {
      ({ child, output } = await startServerProcess(env, port, 120_000));
    };
    await start();
    // Every request has a deadline: a hung server fails the test instead of hanging it.
    const client = new ServiceClient(url, (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(30_000) }));
    const m: Bootstrapped = await bootstrap(client);
    for (const [rx, version] of [[v1, 'V1'], [v2, 'V2']] as const) {
      await client.gql(`mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { webhook { id } } }`, { i: { url: rx.url, version } }, m.sessionToken);
    }
    const key = m.apiKey.secret;

    // ── The client's record of what was acknowledged ──
    const invoices: ModelInvoice[] = [];
    const receipts: ModelReceipt[] = [];
    const deposits: string[] = [];
    const acked: Record<string, number> = {};
    const ack = (op: string) => (acked[op] = (acked[op] ?? 0) + 1);
    let unanswered = 0;
    const unexpected: string[] = [];
    let names = 0;

    // Workers wait at the gate while the server is down.
    let gate: Promise<void> = Promise.resolve();
    let openGate = () => {};
    let stopping = false;

    type Answer = { status: number; body: any } | null;
    /** A request; null when it got no answer (connection refused or cut by the kill, or timed out). */
    const send = async (method: string, path: string, body?: unknown, token = key): Promise<Answer> => {
      try {
        return await client.request(method, path, { token, body });
      } catch {
        unanswered++;
        return null;
      }
    };
    const deposit = async (depositorName: string, amount: number): Promise<Answer> => {
      try {
        return await client.deposit(m.bankAccount.notificationToken, { depositorName, amount, notificationId: `f-${SEED}-${randomBytes(6).toString('hex')}` });
      } catch {
        unanswered++;
        return null;
      }
    };
    /** Anything but a plain refusal the model explains is worth reporting. */
    const surprise = (op: string, r: Answer & object) => unexpected.push(`${op} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);

    const worker = async (w: number) => {
      const rand = prng(SEED * 7919 + w + 1);
      const pick = <T,>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
      while (!stopping) {
        await gate;
        if (stopping) break;
        const mine = invoices.filter((i) => i.name.startsWith(`F${w}_`) && i.status === 'PENDING' && !i.uncertain);
        const myReceipts = receipts.filter((r) => r.worker === w && !r.uncertain && r.amount - r.canceled > 0 && Date.now() - r.createdAt > 800);
        const ops = ['create', 'create', 'receipt', 'receipt', 'strayDeposit'];
        if (mine.length) ops.push('deposit', 'deposit', 'markPaid', 'delete', 'cancel', 'patch', 'patch');
        if (myReceipts.length) ops.push('receiptCancel', 'receiptCancel');
        const op = pick(ops);
        if (op === 'create') {
          const name = `F${w}_${names++}`;
          const amount = 1000 + Math.floor(rand() * 90_000);
          const cashReceipt = rand() < 0.3 ? { type: 'PERSONAL', identifier: '01077778888' } : undefined;
          const r = await send('POST', '/v1/invoices', { bankAccountIds: [], customer: { name }, amount, cashReceipt });
          if (r?.status === 201) {
            ack(op);
            invoices.push({ id: r.body.data.id, name, amount, email: null, status: 'PENDING', trigger: null, transactionId: null, uncertain: null });
          } else if (r) surprise(op, r);
        } else if (op === 'strayDeposit') {
          // A deposit no invoice matches: it must still be stored.
          const r = await deposit(`무명${randomBytes(3).toString('hex')}`, 1 + Math.floor(rand() * 999));
          if (r?.status === 201) (ack('deposit'), deposits.push(r.body.transactionId));
          else if (r) surprise(op, r);
        } else if (op === 'receipt') {
          const amount = 1000 + Math.floor(rand() * 50_000);
          const identifier = '0105' + String(Math.floor(rand() * 1e7)).padStart(7, '0');
          const createdAt = Date.now();
          const r = await send('POST', '/v1/cash-receipts', { type: 'PERSONAL', identifier, amount });
          if (r?.status === 201) (ack(op), receipts.push({ id: r.body.data.id, worker: w, amount, canceled: 0, cancellationIds: [], createdAt, uncertain: false }));
          else if (r) surprise(op, r);
        } else if (op === 'receiptCancel') {
          const rc = pick(myReceipts);
          const remaining = rc.amount - rc.canceled;
          const full = remaining < 2000 || rand() < 0.25;
          const amount = full ? remaining : 1 + Math.floor(rand() * (remaining / 2));
          const r = await send('POST', `/v2/cash-receipts/${rc.id}/cancel`, full ? { reason: '전액' } : { reason: '부분', amount });
          if (r === null) rc.uncertain = true;
          else if (r.status === 200) (ack(op), (rc.canceled += amount), rc.cancellationIds.push(r.body.data.id));
          // Not settled at the tax authority yet (the kill can delay its settlement): fine, try again later.
          else if (!(r.status === 409 && r.body?.data?.reason === 'NTS_PENDING')) surprise(op, r);
        } else {
          const inv = pick(mine);
          const r =
            op === 'deposit'
              ? await deposit(inv.name, inv.amount)
              : op === 'markPaid'
                ? await send('POST', `/v1/invoices/${inv.id}/mark-as-paid`)
                : op === 'delete'
                  ? await send('DELETE', `/v1/invoices/${inv.id}`)
                  : op === 'cancel'
                    ? await send('POST', `/v2/invoices/${inv.id}/cancel`, { reason: 'fault' })
                    : null;
          if (op === 'patch') {
            const change = rand() < 0.5 ? { amount: inv.amount + 1 + Math.floor(rand() * 100) } : { email: `f${names++}@example.com` };
            const p = await send('PATCH', `/v2/invoices/${inv.id}`, 'amount' in change ? { amount: change.amount } : { customer: { email: change.email } });
            if (p === null) inv.uncertain = { op, to: change };
            else if (p.status === 200) (ack(op), Object.assign(inv, change));
            else surprise(`${op} ${inv.id}`, p);
            continue;
          }
          const to: ModelInvoice['uncertain'] = {
            op,
            to: { status: op === 'deposit' || op === 'markPaid' ? 'PAID' : 'CANCELED' },
          };
          if (r === null) inv.uncertain = to;
          else if (r.status === (op === 'deposit' ? 201 : 200)) {
            ack(op);
            inv.status = to.to.status!;
            if (op === 'deposit') {
              deposits.push(r.body.transactionId);
              inv.trigger = 'DEPOSIT';
              inv.transactionId = r.body.transactionId;
            } else if (op === 'markPaid') inv.trigger = 'API_CALL';
          } else surprise(`${op} ${inv.id}`, r);
        }
      }
    };

    // ── Load, kill, restart ──
    const load = Array.from({ length: WORKERS }, (_, w) => worker(w));
    let kills = 0;
    let pendingAtKills = 0;
    try {
      for (; kills < KILLS; ) {
        const early = kills > 0 && rand() < 0.2;
        if (!early) {
          const ackedNow = () => Object.values(acked).reduce((a, b) => a + b, 0);
          const before = ackedNow();
          await until(ackedNow, (n) => n !== before, 30_000, 20);
        }
        await new Promise((r) => setTimeout(r, early ? rand() * 300 : LOAD_MS[0] + rand() * (LOAD_MS[1] - LOAD_MS[0])));
        // How many receipts the kill catches PENDING (a quick look just before it).
        const pendingNow = await client.request('GET', '/v1/cash-receipts?offset=0&limit=1&status=PENDING', { token: key }).then((r) => r.body?.totalItems ?? '?', () => '?');
        gate = new Promise((r) => (openGate = r));
        child!.kill('SIGKILL');
        if (child!.exitCode === null && child!.signalCode === null) await new Promise((r) => child!.once('exit', r));
        kills++;
        log(`kill ${kills}${early ? ' (early)' : ''}: ${Object.values(acked).reduce((a, b) => a + b, 0)} acknowledged so far, ${unanswered} unanswered, ${pendingNow} receipts PENDING at the kill`);
        pendingAtKills += typeof pendingNow === 'number' ? pendingNow : 0;
        await start();
        openGate();
      }
      // A last stretch of load on the restarted server, then the workers stop.
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      stopping = true;
      openGate();
      await Promise.all(load);
    }
    const totalAcked = Object.values(acked).reduce((a, b) => a + b, 0);
    log(`load done: ${totalAcked} acknowledged ${JSON.stringify(acked)}, ${unanswered} unanswered`);

    // ── Every PENDING receipt settles (a receipt whose job the kill held waits out its 60 s lease) ──
    const pending = await until(async () => (await client.request('GET', '/v1/cash-receipts?offset=0&limit=1&status=PENDING', { token: key })).body.totalItems as number, (n) => n === 0, 150_000, 500);
    log(`receipts settled (${pending} still PENDING)`);

    // ── Every committed event a V1/V2 webhook receives was delivered at least once ──
    const expected = { V1: [] as string[], V2: [] as string[] };
    let since: string | null = null;
    for (;;) {
      const page: any = await client.gql(`query($s: String) { events(sinceSequence: $s, first: 100) { id type sequence } }`, { s: since }, m.sessionToken);
      if (page.events.length === 0) break;
      for (const e of page.events) for (const v of ['V1', 'V2'] as const) if (webhookEventType(v, e.type)) expected[v].push(e.id);
      since = page.events.at(-1).sequence;
    }
    const missing = (rx: Receiver, ids: string[]) => {
      const got = new Set(rx.received.map((r) => r.headers['webhook-id']));
      return ids.filter((id) => !got.has(id));
    };
    await Promise.all([
      v1.waitFor(() => missing(v1, expected.V1).length === 0, 90_000).catch(() => {}),
      v2.waitFor(() => missing(v2, expected.V2).length === 0, 90_000).catch(() => {}),
    ]);
    const lost = { V1: missing(v1, expected.V1), V2: missing(v2, expected.V2) };
    const deliveries = { V1: v1.received.length, V2: v2.received.length };
    log(`events: V1 ${expected.V1.length - lost.V1.length}/${expected.V1.length} delivered (${deliveries.V1} deliveries), V2 ${expected.V2.length - lost.V2.length}/${expected.V2.length} (${deliveries.V2}); lost ${lost.V1.length + lost.V2.length}`);

    // ── Stop the server, then read its database (one embedded server per cluster) ──
    child!.kill('SIGTERM');
    if (child!.exitCode === null && child!.signalCode === null) await new Promise((r) => child!.once('exit', r));
    child = null;
    const db = await openServerDatabase(env);
    let violations: string[];
    const lostWrites: string[] = [];
    try {
      violations = await checkInvariants(db.sql);
      const q = db.sql.query.bind(db.sql);
      const invRows = new Map(
        (await q<{ id: string; status: InvoiceStatus; amount: number; customerEmail: string | null; paidTrigger: string | null }>(
          `SELECT id, status::text AS status, amount, "customerEmail", "paidTrigger"::text AS "paidTrigger" FROM "Invoice" WHERE "workspaceId" = $1`,
          [m.workspaceId],
        )).map((r) => [r.id, r]),
      );
      const trxRows = new Map(
        (await q<{ id: string; matchedInvoiceId: string | null }>(`SELECT id, "matchedInvoiceId" FROM "Transaction" WHERE "workspaceId" = $1`, [m.workspaceId])).map((r) => [r.id, r]),
      );
      const rcRows = new Map(
        (await q<{ id: string; status: string; canceledAmount: number; remainingAmount: number }>(
          `SELECT id, status::text AS status, "canceledAmount", "remainingAmount" FROM "CashReceipt" WHERE "workspaceId" = $1`,
          [m.workspaceId],
        )).map((r) => [r.id, r]),
      );
      for (const i of invoices) {
        const row = invRows.get(i.id);
        if (!row) {
          lostWrites.push(`invoice ${i.id} (created, acknowledged) is missing`);
          continue;
        }
        const want = { status: i.status, amount: i.amount, email: i.email };
        const got = { status: row.status, amount: row.amount, email: row.customerEmail };
        const same = (a: typeof want) => a.status === got.status && a.amount === got.amount && a.email === got.email;
        // With an unanswered request on it, either outcome of that request is right.
        if (!same(want) && !(i.uncertain && same({ ...want, ...i.uncertain.to }))) {
          lostWrites.push(`invoice ${i.id}: acknowledged ${JSON.stringify(want)}${i.uncertain ? ` (or after the unanswered ${i.uncertain.op}: ${JSON.stringify(i.uncertain.to)})` : ''}, stored ${JSON.stringify(got)}`);
        }
        if (i.trigger && row.paidTrigger !== i.trigger) lostWrites.push(`invoice ${i.id}: acknowledged paid by ${i.trigger}, stored ${row.paidTrigger}`);
        if (i.transactionId && trxRows.get(i.transactionId)?.matchedInvoiceId !== i.id) {
          lostWrites.push(`invoice ${i.id}: paid by the acknowledged deposit ${i.transactionId}, which is matched to ${trxRows.get(i.transactionId)?.matchedInvoiceId}`);
        }
      }
      for (const id of deposits) if (!trxRows.has(id)) lostWrites.push(`deposit ${id} (acknowledged) is missing`);
      for (const rc of receipts) {
        const row = rcRows.get(rc.id);
        if (!row) {
          lostWrites.push(`receipt ${rc.id} (acknowledged) is missing`);
          continue;
        }
        for (const c of rc.cancellationIds) if (!rcRows.has(c)) lostWrites.push(`cancellation ${c} of ${rc.id} (acknowledged) is missing`);
        if (!rc.uncertain && row.canceledAmount !== rc.canceled) lostWrites.push(`receipt ${rc.id}: acknowledged cancels of ${rc.canceled}, stored canceledAmount ${row.canceledAmount}`);
        if (rc.uncertain && row.canceledAmount < rc.canceled) lostWrites.push(`receipt ${rc.id}: acknowledged cancels of at least ${rc.canceled}, stored canceledAmount ${row.canceledAmount}`);
      }
    } finally {
      await db.close();
    }

    const eventsDelivered = expected.V1.length + expected.V2.length - lost.V1.length - lost.V2.length;
    log(
      `RESULT: kills survived ${kills}; requests acknowledged ${totalAcked} ${JSON.stringify(acked)}; unanswered ${unanswered}; ` +
        `events delivered ${eventsDelivered} (V1 ${expected.V1.length - lost.V1.length}, V2 ${expected.V2.length - lost.V2.length}), lost ${lost.V1.length + lost.V2.length}; ` +
        `receipts ${receipts.length} (PENDING at the kills, summed over kills: ${pendingAtKills}), still PENDING ${pending}; lost writes ${lostWrites.length}; invariant violations ${violations.length}; unexpected answers ${unexpected.length}; ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
    for (const line of [...lostWrites, ...violations, ...unexpected].slice(0, 40)) log(`  ${line}`);
    if (lostWrites.length + violations.length + unexpected.length > 0) log(`last server output:\n${output().slice(-3000)}`);

    expect(kills).toBeGreaterThanOrEqual(5);
    expect(totalAcked).toBeGreaterThan(KILLS * 3);
    expect(lostWrites).toEqual([]);
    expect(violations).toEqual([]);
    expect(lost).toEqual({ V1: [], V2: [] });
    expect(pending).toBe(0);
    expect(unexpected).toEqual([]);
  });
});
