/**
 * Account history through Popbill's EasyFinBank, end to end: the service configured with Linkhub credentials polls a
 * fake Popbill (test/helpers/fake-popbill.ts, which checks the signature as Popbill does) — a deposit the texts missed
 * pays its invoice; pages are all read and withdrawals left out; a Popbill that fails is retried with backoff and the
 * reason shown; a refusal only the merchant can fix stops the feed until it is resumed; a slow Popbill times out.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { FAKE_POPBILL_CODES, startFakePopbill, type FakePopbill } from '../helpers/fake-popbill.ts';

const SHINHAN = '0088';
const kstStamp = (t: number) => new Date(t + 9 * 3600_000).toISOString().replace(/\D/g, '').slice(0, 14);

describe(`account history through Popbill (a fake) on ${dbLabel}`, () => {
  let fake: FakePopbill;
  let t: TestApp;
  let m: Bootstrapped;
  let feedId: string;
  let CORP: string;
  let rowSeq = 0;
  let balance = 1_000_000;
  const gql = <T = any>(query: string, variables: Record<string, unknown> = {}, token = m.sessionToken) => t.client.gql<T>(query, variables, token);
  const feed = () => t.app.deps.prisma.historyFeed.findUniqueOrThrow({ where: { id: feedId } });
  /** A poll now (an earlier one's time set back a minute: on demand, a real aggregator's feed is polled once a minute at most). */
  const pollNow = async () => {
    await t.app.deps.sql.query(`UPDATE "HistoryFeed" SET "lastPolledAt" = "lastPolledAt" - interval '61 seconds' WHERE id = $1`, [feedId]);
    for (let i = 0; ; i++) {
      const r = (
        await gql(
          `mutation($f: ID!) { pollHistoryNow(feedId: $f) { __typename ... on HistoryPollPayload { rows created } ... on DomainError { code message data } } }`,
          { f: feedId },
        )
      ).pollHistoryNow;
      if (r.code !== 'CONFLICT' || i > 200) return r;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const invoice = async (name: string, amount: number) => {
    const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
    expect(r.status).toBe(201);
    return r.body.data.id as string;
  };
  const book = (rows: { name: string; amount: number; out?: number }[]) =>
    fake.addRows(
      CORP,
      SHINHAN,
      m.bankAccount.number,
      rows.map((r) => {
        balance += r.out ? -r.out : r.amount;
        return { tid: `tid-${++rowSeq}`, trdt: kstStamp(Date.now()), accIn: r.out ? 0 : r.amount.toLocaleString('en-US'), accOut: r.out ?? 0, balance: balance.toLocaleString('en-US'), remark1: r.name };
      }),
    );

  beforeAll(async () => {
    const secretKey = randomBytes(32).toString('base64');
    fake = await startFakePopbill({ linkId: 'BTPAY', secretKey });
    fake.pollsToFinish = 1;
    t = await startTestApp({
      env: { POPBILL_LINK_ID: 'BTPAY', POPBILL_SECRET_KEY: secretKey, POPBILL_TEST: 'true', POPBILL_API_URL: fake.url, POPBILL_AUTH_URL: fake.url, POPBILL_TIMEOUT_MS: '1500', HISTORY_POLL_INTERVAL_MS: '3600000' },
    });
    m = await bootstrap(t.client);
    CORP = m.businessInfo!.corpNum;
    fake.addMember(CORP);
    fake.addAccount(CORP, SHINHAN, m.bankAccount.number);
    // The business number is the workspace's own: another one is refused; left out, it is the registered one.
    const otherCorp = await gql(`mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { __typename ... on DomainError { code field } } }`, {
      i: { bankAccountId: m.bankAccount.id, aggregator: 'POPBILL', corpNum: CORP === '1208147521' ? '2208147521' : '1208147521' },
    });
    expect(otherCorp.connectHistoryFeed).toMatchObject({ code: 'VALIDATION_FAILED' });
    const r = await gql(`mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { ... on HistoryFeedPayload { feed { id aggregator corpNum state } } } }`, {
      i: { bankAccountId: m.bankAccount.id, aggregator: 'POPBILL' },
    });
    expect(r.connectHistoryFeed.feed).toMatchObject({ aggregator: 'POPBILL', corpNum: CORP, state: 'ACTIVE' });
    feedId = r.connectHistoryFeed.feed.id;
    // The first poll (at once, by the worker) has run; rows booked from here on are after the feed's connection.
    for (let i = 0; i < 400 && !(await feed()).lastPolledAt; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect((await feed()).lastPolledAt).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });

  it('a deposit the texts missed pays its invoice; the calls are signed as Linkhub wants; polling again doubles nothing', async () => {
    const id = await invoice('팝빌입금', 61_000);
    book([{ name: '팝빌입금', amount: 61_000 }]);
    expect(await pollNow()).toMatchObject({ __typename: 'HistoryPollPayload', created: 1 });
    const paid = await t.client.request('GET', `/v1/invoices/${id}`, { token: m.apiKey.secret });
    expect(paid.body.data.paid).toBe(true);
    expect(await pollNow()).toMatchObject({ created: 0 });
    expect(fake.violations).toEqual([]);
    expect(fake.requests.some((r) => r.path.endsWith('/Token'))).toBe(true);
    // The SecretKey and the session tokens never reach a row the merchant can read.
    const f = await feed();
    expect(JSON.stringify(f)).not.toContain(fake.issuedTokens[0]!);
  });

  it('every page is read and withdrawals are left out', async () => {
    fake.maxPerPage = 2;
    book([
      { name: '페이지하나', amount: 62_001 },
      { name: '출금', amount: 0, out: 5_000 },
      { name: '페이지둘', amount: 62_002 },
      { name: '페이지셋', amount: 62_003 },
      { name: '페이지넷', amount: 62_004 },
      { name: '페이지다섯', amount: 62_005 },
    ]);
    expect(await pollNow()).toMatchObject({ created: 5 });
    fake.maxPerPage = 1000;
    const stored = await t.app.deps.prisma.transaction.findMany({ where: { bankAccountId: m.bankAccount.id, source: 'HISTORY' } });
    expect(stored.map((d) => d.amount).sort()).toEqual([61_000, 62_001, 62_002, 62_003, 62_004, 62_005]);
    expect(stored.every((d) => d.historyRowId?.startsWith('tid-') && d.balanceAfter !== null)).toBe(true);
  });

  it('a Popbill that fails is retried with backoff, the reason shown; the next success clears it', async () => {
    fake.failNext(1, { status: 503, body: { code: FAKE_POPBILL_CODES.serverError, message: '일시적인 오류' } });
    const before = Date.now();
    const r = await pollNow();
    expect(r).toMatchObject({ code: 'AGGREGATOR_API_FAILED', data: { aggregator: { code: String(FAKE_POPBILL_CODES.serverError) } } });
    const f = await feed();
    expect(f).toMatchObject({ state: 'ACTIVE', failures: 1 });
    expect(f.lastError).toContain('일시적인 오류');
    expect(f.nextPollAt!.getTime()).toBeGreaterThanOrEqual(before + 3600_000);
    expect(await pollNow()).toMatchObject({ __typename: 'HistoryPollPayload' });
    expect(await feed()).toMatchObject({ failures: 0, lastError: null });
  });

  it('a slow Popbill times out and is retried later, never a 5xx', async () => {
    fake.failNext(1, { delayMs: 5_000 });
    const r = await pollNow();
    expect(r).toMatchObject({ code: 'AGGREGATOR_API_FAILED' });
    expect((await feed()).failures).toBe(1);
    expect(await pollNow()).toMatchObject({ __typename: 'HistoryPollPayload' });
  });

  it("the bank's credentials expired at Popbill: the feed stops (NEEDS_ATTENTION) until the merchant resumes it", async () => {
    fake.expireCredentials(CORP, SHINHAN, m.bankAccount.number);
    const r = await pollNow();
    expect(r.code).toBe('AGGREGATOR_API_FAILED');
    const f = await feed();
    expect(f).toMatchObject({ state: 'NEEDS_ATTENTION', nextPollAt: null });
    expect(f.lastError).toMatch(/\S/);
    expect(await pollNow()).toMatchObject({ code: 'HISTORY_FEED_NOT_ACTIVE' });
    // Fixed at Popbill (the bank credentials given again): resumed, polled at once, and the poll succeeds.
    fake.renewCredentials(CORP, SHINHAN, m.bankAccount.number);
    const stoppedAt = (await feed()).lastPolledAt!.getTime();
    const resumed = await gql(`mutation($id: ID!) { resumeHistoryFeed(id: $id) { ... on HistoryFeedPayload { feed { state } } } }`, { id: feedId });
    expect(resumed.resumeHistoryFeed.feed.state).toBe('ACTIVE');
    for (let i = 0; i < 400 && !((await feed()).lastPolledAt!.getTime() > stoppedAt); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await feed()).toMatchObject({ state: 'ACTIVE', lastError: null, failures: 0 });
    expect((await feed()).lastPolledAt!.getTime()).toBeGreaterThan(stoppedAt);
  });

  it("another workspace that registers this merchant's account and business numbers as its own cannot read the history", async () => {
    const thief = await bootstrap(t.client, { businessInfo: false });
    await t.client.gql(`mutation($input: RegisterBusinessInfoInput!) { registerBusinessInfo(input: $input) { workspace { id } } }`, { input: { corpNum: CORP, companyName: 'Thief', representativeName: 'T' } }, thief.sessionToken);
    const reg = await t.client.gql<{ registerBankAccount: { bankAccount: { id: string }; verificationCode: string; notificationToken: string } }>(
      `mutation($input: RegisterBankAccountInput!) { registerBankAccount(input: $input) { bankAccount { id } verificationCode notificationToken } }`,
      { input: { provider: 'SHINHAN', type: 'PERSONAL', number: m.bankAccount.number, alias: 'stolen' } },
      thief.sessionToken,
    );
    const connect = () =>
      t.client.gql(`mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { __typename ... on DomainError { code } } }`, { i: { bankAccountId: reg.registerBankAccount.bankAccount.id, aggregator: 'POPBILL' } }, thief.sessionToken);
    // Not verified: refused.
    expect((await connect()).connectHistoryFeed).toMatchObject({ code: 'BANK_ACCOUNT_NOT_VERIFIED' });
    // Verified by its own (self-posted) 1-won notification: still refused, the account's history is polled for its owner.
    await t.client.deposit(reg.registerBankAccount.notificationToken, { depositorName: reg.registerBankAccount.verificationCode, amount: 1 });
    expect((await connect()).connectHistoryFeed).toMatchObject({ code: 'HISTORY_FEED_CONNECTED_ELSEWHERE' });
    expect(await t.app.deps.prisma.historyFeed.count({ where: { workspaceId: thief.workspaceId } })).toBe(0);
  });

  it('a row whose name the database could not store (a NUL byte) is stored cleaned, and holds no later row back', async () => {
    fake.addRows(CORP, SHINHAN, m.bankAccount.number, [
      { tid: `tid-${++rowSeq}`, trdt: kstStamp(Date.now()), accIn: '63,001', balance: String((balance += 63_001)), remark1: 'bad\u0000name' },
      { tid: `tid-${++rowSeq}`, trdt: kstStamp(Date.now()), accIn: '63,002', balance: String((balance += 63_002)), remark1: '다음행' },
    ]);
    expect(await pollNow()).toMatchObject({ __typename: 'HistoryPollPayload', created: 2 });
    const stored = await t.app.deps.prisma.transaction.findMany({ where: { bankAccountId: m.bankAccount.id, amount: { in: [63_001, 63_002] } }, orderBy: { amount: 'asc' } });
    expect(stored.map((d) => d.description)).toEqual(['badname', '다음행']);
  });

  it("an aggregator's absurd Retry-After is held to the longest backoff; an on-demand poll within a minute of the last is refused", async () => {
    fake.failNext(1, { status: 429, headers: { 'retry-after': '99999999999999999999' }, body: { code: FAKE_POPBILL_CODES.rateLimited, message: 'slow down' } });
    const before = Date.now();
    expect(await pollNow()).toMatchObject({ code: 'AGGREGATOR_API_FAILED' });
    const f = await feed();
    expect(f).toMatchObject({ state: 'ACTIVE', failures: 1, pollLeaseUntil: null });
    expect(f.nextPollAt!.getTime()).toBeLessThanOrEqual(before + 3600_000 + 5_000);
    expect(await pollNow()).toMatchObject({ __typename: 'HistoryPollPayload' });
    const again = (await gql(`mutation($f: ID!) { pollHistoryNow(feedId: $f) { __typename ... on DomainError { code } } }`, { f: feedId })).pollHistoryNow;
    expect(again).toMatchObject({ code: 'RATE_LIMITED' });
  });
});
