/**
 * Shop confirmations cut short by a SIGKILL are finished after the restart: the real service process (npm start)
 * against the fake Cafe24, two paid orders — the first one's payment update applied by Cafe24 but never answered (the
 * process is in that call), the second one's job committed with its payment but not started — the process killed,
 * restarted: both orders end CONFIRMED, each paid at Cafe24 by exactly one payment update (the restarted job reads the
 * order first: one already paid is not sent again).
 *
 * The killed process's claim on the jobs is a lease (JOB_LEASE_MS, 12 s here): the restarted process may not take them
 * before it runs out, since the killed process might still be alive. How long the restart takes is the machine's (a
 * loaded CI machine can take longer than the lease's last seconds), so after the kill the test holds that lease for an
 * hour in the database, checks the restarted process leaves the job alone while it holds, then ends the lease in the
 * database and waits for the takeover.
 */
import { completeInstallInBrowser } from '../helpers/shop-install.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient } from '../../src/cli/client.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';
import { startFakeCafe24, type FakeCafe24 } from '../helpers/fake-cafe24.ts';
import { freePort, startServerProcess } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';

const CLIENT_ID = 'btp-cafe24-crash';
const CLIENT_SECRET = 'cafe24-crash-secret-4Tg8Rw1Nc6Hy';
const REDIRECT_URI = 'https://pay.example.test/shops/cafe24/callback';
const MALL = 'crashmall';
const PAYMENTS = { method: 'PUT', path: '/api/v2/admin/payments' };

describe(`a shop confirmation cut by a SIGKILL on ${dbLabel}`, () => {
  let fake: FakeCafe24;
  let db: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  let child: ChildProcess | null = null;

  const killed = async (c: ChildProcess) => {
    c.kill('SIGKILL');
    if (c.exitCode === null && c.signalCode === null) await new Promise((r) => c.once('exit', r));
  };

  beforeAll(async () => {
    fake = await startFakeCafe24({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
    // The service process runs on a database of the run's server (embedded or TEST_DATABASE_URL): the test reads it too.
    db = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'shop-crash-'));
    env = {
      LOG_LEVEL: 'warn',
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      AGENCY_SIM_DELAY_MS: '0',
      SHOP_SYNC_INTERVAL_MS: '3600000',
      ...fake.serviceEnv(),
      // A dead process's job is taken over after 12 s (longer than one Cafe24 call's 10 s limit), not the default minute.
      JOB_LEASE_MS: '12000',
    };
  });
  afterAll(async () => {
    if (child) await killed(child);
    await fake?.close();
    await db?.database.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('both orders end CONFIRMED after the restart, each paid once at Cafe24', { timeout: 180_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    ({ child } = await startServerProcess(env, port));
    const client = new ServiceClient(url);
    const m = await bootstrap(client);
    const gql = (q: string, v: Record<string, unknown> = {}) => client.gql(q, v, m.sessionToken);

    // Two bank-transfer orders waiting in the mall; the install imports them.
    const first = fake.addOrder({ mallId: MALL, billingName: '크래시일', amount: 21_000 }).orderId;
    const second = fake.addOrder({ mallId: MALL, billingName: '크래시이', amount: 22_000 }).orderId;
    const started = await gql(`mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { ... on ShopInstallPayload { authorizeUrl connection { id } } } }`, {
      i: { platform: 'CAFE24', shopId: MALL },
    });
    const connectionId = started.startShopInstall.connection.id as string;
    const authorize = await fetch(started.startShopInstall.authorizeUrl, { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);
    const done = await completeInstallInBrowser(url, `${url}/shops/cafe24/callback${back.search}`, m);
    expect(done.state).toBe('CONNECTED');
    const ORDERS = `query($c: ID!) { shopConnection(id: $c) { lastSyncAt orders { id orderId state confirmAttempts invoice { id status } } } }`;
    const orders = async () => (await gql(ORDERS, { c: connectionId })).shopConnection.orders as any[];
    const linked = await until(orders, (os) => os.length === 2 && os.every((o) => o.state === 'LINKED'));
    expect(linked.map((o) => o.orderId).sort()).toEqual([first, second].sort());

    // The first order's payment update hangs at Cafe24 after Cafe24 applied it: the answer never comes.
    const [a, b] = [first, second].map((id) => linked.find((o) => o.orderId === id));
    fake.hangNext(1, { ...PAYMENTS, afterApply: true });
    const mark = fake.requests.length;
    const markPaid = async (invoiceId: string) => expect((await client.request('POST', `/v1/invoices/${invoiceId}/mark-as-paid`, { token: m.apiKey.secret })).status).toBe(200);
    await markPaid(a.invoice.id);
    const puts = () => fake.requests.slice(mark).filter((q) => q.method === 'PUT' && q.path === PAYMENTS.path);
    await until(puts, (qs) => qs.length === 1, 15_000);
    expect(puts()[0]!.status).toBeUndefined();
    expect(fake.order(first)).toMatchObject({ paid: 'T', confirmCalls: 1 });
    // The second is paid while the job runner is still in that call: its job is committed, not started.
    await markPaid(b.invoice.id);
    const jobs = await db.database.sql.query<{ shopOrderId: string; id: string; attempts: number; lockedUntil: Date | null }>(
      `SELECT j.payload->>'shopOrderId' AS "shopOrderId", j.id, j.attempts, j."lockedUntil" FROM "Job" j WHERE j.kind = 'shop.confirm' AND j.status = 'PENDING'`,
    );
    const jobOf = (o: { id: string }) => jobs.find((j) => j.shopOrderId === o.id)!;
    expect(jobs).toHaveLength(2);
    expect(jobOf(b)).toMatchObject({ attempts: 0, lockedUntil: null });
    expect(jobOf(a).attempts).toBe(1);
    expect((await orders()).map((o) => o.state)).toEqual(['CONFIRMING', 'CONFIRMING']);
    expect(fake.order(second)).toMatchObject({ paid: 'F', confirmCalls: 0 });

    const killedAt = Date.now();
    await killed(child!);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    // The dead process held the first order's job by a lease it renewed while it ran (to now + JOB_LEASE_MS)...
    const [dead] = await db.database.sql.query<{ lockedUntil: Date | null }>(`SELECT "lockedUntil" FROM "Job" WHERE id = $1`, [jobOf(a).id]);
    expect(new Date(dead!.lockedUntil!).getTime()).toBeGreaterThan(killedAt);
    // ...which may run out while the restart is still under way on a slow machine: it is made to last an hour (the
    // process that held it is dead, so nothing renews it or minds), and ended below once the checks are done.
    const held = await db.database.sql.query<{ id: string }>(
      `UPDATE "Job" SET "lockedUntil" = now() + interval '1 hour' WHERE id = $1 AND status = 'PENDING' AND attempts = 1 RETURNING id`,
      [jobOf(a).id],
    );
    expect(held).toHaveLength(1);
    ({ child } = await startServerProcess(env, port));

    // The second order's job, never started, runs at once.
    const secondDone = await until(orders, (os) => os.find((o) => o.orderId === second)?.state === 'CONFIRMED', 60_000, 100);
    expect(secondDone.find((o) => o.orderId === second)).toMatchObject({ confirmAttempts: 1, invoice: { status: 'PAID' } });
    expect(fake.order(second)).toMatchObject({ paid: 'T', confirmCalls: 1 });

    // The first one's job is still leased by the dead process: the restarted one, which ran the second order's job
    // meanwhile, left it alone (not claimed again, not run).
    const [leased] = await db.database.sql.query<{ attempts: number; lockedUntil: Date; status: string }>(`SELECT status, attempts, "lockedUntil" FROM "Job" WHERE id = $1`, [jobOf(a).id]);
    expect(leased).toMatchObject({ status: 'PENDING', attempts: 1 });
    expect(new Date(leased!.lockedUntil).getTime()).toBeGreaterThan(Date.now());
    expect((await orders()).find((o) => o.orderId === first).state).toBe('CONFIRMING');
    expect(fake.order(first)).toMatchObject({ paid: 'T', confirmCalls: 1 });
    expect(puts().map((q) => q.status)).toEqual([undefined, 200]);

    // Then the lease runs out and the restarted process takes the job over by itself.
    await db.database.sql.query(`UPDATE "Job" SET "lockedUntil" = now() - interval '1 second' WHERE id = $1`, [jobOf(a).id]);
    const confirmed = await until(orders, (os) => os.every((o) => o.state === 'CONFIRMED'), 60_000, 100);
    expect(confirmed.find((o) => o.orderId === first)).toMatchObject({ state: 'CONFIRMED', confirmAttempts: 2, invoice: { status: 'PAID' } });
    // Cafe24 has each order paid by one payment update: the restarted job read the first back as paid and sent nothing.
    for (const id of [first, second]) expect(fake.order(id)).toMatchObject({ paid: 'T', orderStatus: 'N10', confirmCalls: 1 });
    expect(puts().map((q) => q.status)).toEqual([undefined, 200]);
    const after = await until(
      () => db.database.sql.query<{ id: string; status: string; attempts: number }>(`SELECT id, status, attempts FROM "Job" WHERE id = ANY($1::text[])`, [jobs.map((j) => j.id)]),
      (js) => js.every((j) => j.status !== 'PENDING'),
    );
    expect(Object.fromEntries(after.map((j) => [j.id, [j.status, j.attempts]]))).toEqual({ [jobOf(a).id]: ['DONE', 2], [jobOf(b).id]: ['DONE', 1] });
    expect(fake.violations).toEqual([]);
  });
});
