/**
 * Two instances over one PostgreSQL database: the same deposit announced at the same moment by SMS on one instance,
 * by push on the other, and found in the account's history by both instances' polls, is one deposit — round after
 * round — and its invoice is paid once. PostgreSQL only (the embedded database is one process's).
 */
import pino from 'pino';
import { mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { storeAnnouncedDeposit } from '../../src/domain/deposits/announced-deposits.ts';
import { freshDatabase, onPostgres } from '../helpers/app.ts';

/** A Shinhan deposit SMS for `account` at `at`'s KST minute. */
function shinhanText(account: string, name: string, amount: number, balance: number, at: Date) {
  const kst = new Date(at.getTime() + 9 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  const money = (n: number) => n.toLocaleString('en-US');
  return `[Web발신]\n신한${p(kst.getUTCMonth() + 1)}/${p(kst.getUTCDate())} ${p(kst.getUTCHours())}:${p(kst.getUTCMinutes())}\n${account}\n입금 ${money(amount)}\n잔액 ${money(balance)}\n ${name}`;
}

describe.runIf(onPostgres)('deposit capture on two instances over PostgreSQL', () => {
  const apps: App[] = [];
  const clients: ServiceClient[] = [];
  let drop: () => Promise<void>;
  let m: Bootstrapped;
  let feedId: string;

  beforeAll(async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    await fresh.database.close();
    const key = randomBytes(32).toString('hex');
    for (let i = 0; i < 2; i++) {
      const config = loadConfig({
        PORT: '0', HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'dc-')), LOG_LEVEL: 'silent', DATABASE_URL: fresh.url!,
        ENCRYPTION_KEY: key, HISTORY_POLL_INTERVAL_MS: '1000',
      });
      const app = await buildApp(config, { database: await openDatabase({ databaseUrl: fresh.url!, poolSize: 10 }), logger: pino({ level: 'silent' }) });
      apps.push(app);
      clients.push(new ServiceClient((await app.start()).url));
    }
    m = await bootstrap(clients[0]!);
    const r = await clients[0]!.gql<{ connectHistoryFeed: { feed: { id: string } } }>(
      `mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { ... on HistoryFeedPayload { feed { id } } } }`,
      { i: { bankAccountId: m.bankAccount.id, aggregator: 'SIMULATED' } },
      m.sessionToken,
    );
    feedId = r.connectHistoryFeed.feed.id;
  });
  afterAll(async () => {
    for (const a of apps) await a.stop();
    await drop?.();
  });

  it('SMS on A, push on B, and both instances polling the history at once: one deposit, its invoice paid once, every round', async () => {
    const [a, b] = clients as [ServiceClient, ServiceClient];
    const poll = (c: ServiceClient) =>
      c.gql(`mutation($f: ID!) { pollHistoryNow(feedId: $f) { __typename ... on DomainError { code } } }`, { f: feedId }, m.apiKey.secret).then((r) => r.pollHistoryNow);
    for (let round = 0; round < 6; round++) {
      const amount = 50_000 + round;
      const name = `동시${round}`;
      const balance = 2_000_000 + round * 100_000;
      const inv = await a.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
      expect(inv.status).toBe(201);
      const at = new Date();
      const sms = shinhanText(m.bankAccount.number, name, amount, balance, at);
      const push = sms.replace('[Web발신]\n', '').replace(/\n/g, ' ');
      const booked = await a.gql(
        `mutation($i: SimulateHistoryDepositInput!) { simulateHistoryDeposit(input: $i) { __typename } }`,
        { i: { feedId, depositorName: name, amount, balanceAfter: balance, occurredAt: at.toISOString() } },
        m.apiKey.secret,
      );
      expect(booked.simulateHistoryDeposit.__typename).toBe('SimulatedHistoryRowPayload');
      const [viaA, viaB, pollA, pollB] = await Promise.all([
        a.request('POST', '/bank-texts', { token: m.bankAccount.notificationToken, body: { text: sms, receivedAt: at.toISOString(), channel: 'SMS' } }),
        b.request('POST', '/bank-texts', { token: m.bankAccount.notificationToken, body: { text: push, receivedAt: new Date(at.getTime() + 500).toISOString(), channel: 'PUSH' } }),
        poll(a),
        poll(b),
      ]);
      for (const p of [pollA, pollB]) expect(p.__typename === 'HistoryPollPayload' || p.code === 'CONFLICT', JSON.stringify(p)).toBe(true);
      expect(viaA.body.transactionId).toBe(viaB.body.transactionId);
      const deposits = await apps[0]!.deps.prisma.transaction.findMany({ where: { bankAccountId: m.bankAccount.id, amount } });
      expect(deposits).toHaveLength(1);
      // The history's poll (the scheduled one, if both polls here found the feed leased) sees the same deposit.
      await expect.poll(async () => (await apps[0]!.deps.prisma.transaction.findUniqueOrThrow({ where: { id: deposits[0]!.id } })).historySeenAt, { timeout: 10_000 }).not.toBeNull();
      const paid = await a.request('GET', `/v1/invoices/${inv.body.data.id}`, { token: m.apiKey.secret });
      expect(paid.body.data.paid).toBe(true);
      expect(await apps[0]!.deps.prisma.transaction.count({ where: { matchedInvoiceId: inv.body.data.id } })).toBe(1);
    }
  });

  it('a text without a balance on A and its history row on B, stored at the same moment, round after round: one deposit each (the account lock)', async () => {
    const account = await apps[0]!.deps.prisma.bankAccount.findUniqueOrThrow({ where: { id: m.bankAccount.id } });
    for (let round = 0; round < 20; round++) {
      const amount = 60_000 + round;
      const at = new Date(Date.now() - 30_000);
      // The text's minute and the row's second differ (the identity cannot see they are one): the look-up must.
      const [byText, byRow] = await Promise.all([
        storeAnnouncedDeposit(apps[0]!.deps, account, { amount, depositorName: '잔액없는문자', occurredAt: at, balanceAfter: null }, { source: 'TEXT', balanceAfter: null, channel: 'SMS' }),
        storeAnnouncedDeposit(
          apps[1]!.deps,
          account,
          { amount, depositorName: '잔액없는문자', occurredAt: new Date(at.getTime() + 61_000), balanceAfter: 3_000_000 + round },
          { source: 'HISTORY', historyRowId: `race-${round}`, balanceAfter: 3_000_000 + round },
        ),
      ]);
      expect(byText.transaction.id).toBe(byRow.transaction.id);
      expect([byText.created, byRow.created].sort()).toEqual([false, true]);
    }
    expect(await apps[0]!.deps.prisma.transaction.count({ where: { bankAccountId: m.bankAccount.id, description: '잔액없는문자' } })).toBe(20);
  });
});
