/**
 * Account-history polling through the running service, with the simulated aggregator: a deposit whose text was lost
 * is found and pays its invoice; a deposit announced by text and listed by the history is one deposit, whichever comes
 * first, also when both arrive at the same moment; re-polling doubles nothing; rows booked before the feed was connected
 * are left alone; texts the service could not read are entered by hand or dismissed; the reconciliation counts it all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { connectSimulatedHistory, simulateHistoryDeposit } from '../../src/cli/history.ts';
import { storeAnnouncedDeposit } from '../../src/domain/deposits/announced-deposits.ts';
import { kstDate } from '../../src/domain/dates.ts';
import { createApiKey } from '../helpers/credentials.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

/** A Shinhan deposit SMS for `account` at `at`'s KST minute. */
function shinhanText(account: string, name: string, amount: number, balance: number, at: Date) {
  const kst = new Date(at.getTime() + 9 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  const money = (n: number) => n.toLocaleString('en-US');
  return `[Web발신]\n신한${p(kst.getUTCMonth() + 1)}/${p(kst.getUTCDate())} ${p(kst.getUTCHours())}:${p(kst.getUTCMinutes())}\n${account}\n입금 ${money(amount)}\n잔액 ${money(balance)}\n ${name}`;
}

describe(`account-history polling on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  let feedId: string;
  const gql = <T = any>(query: string, variables: Record<string, unknown> = {}, token = m.sessionToken) => t.client.gql<T>(query, variables, token);
  const invoice = async (name: string, amount: number) => {
    const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
    expect(r.status).toBe(201);
    return r.body.data.id as string;
  };
  const paid = async (id: string) => (await t.client.request('GET', `/v1/invoices/${id}`, { token: m.apiKey.secret })).body.data.paid as boolean;
  const deposits = (amount: number) => t.app.deps.prisma.transaction.findMany({ where: { bankAccountId: m.bankAccount.id, amount } });
  const pollOnce = () =>
    gql(`mutation($f: ID!) { pollHistoryNow(feedId: $f) { __typename ... on HistoryPollPayload { rows created skipped feed { state lastError } } ... on DomainError { code message } } }`, { f: feedId }).then(
      (r) => r.pollHistoryNow,
    );
  /** A poll now; while the worker (woken by a booking) polls the feed, CONFLICT, so it is asked again. */
  const pollNow = async () => {
    for (let i = 0; ; i++) {
      const r = await pollOnce();
      if (r.code !== 'CONFLICT' || i > 100) return r;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** Waits until the poll a booking made due has run (the feed not leased, its next poll scheduled ahead). */
  const settled = async () => {
    for (let i = 0; i < 200; i++) {
      const f = await t.app.deps.prisma.historyFeed.findUniqueOrThrow({ where: { id: feedId } });
      if (!f.pollLeaseUntil && f.nextPollAt && f.nextPollAt.getTime() > Date.now()) return f;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the due poll did not run');
  };
  const book = (depositorName: string, amount: number, extra: { balanceAfter?: number; occurredAt?: string } = {}) =>
    gql(`mutation($i: SimulateHistoryDepositInput!) { simulateHistoryDeposit(input: $i) { __typename ... on SimulatedHistoryRowPayload { row { rowId occurredAt balanceAfter } } ... on DomainError { code message } } }`, {
      i: { feedId, depositorName, amount, ...extra },
    }).then((r) => r.simulateHistoryDeposit);
  const text = (body: string, at = new Date()) =>
    t.client.request('POST', '/bank-texts', { token: m.bankAccount.notificationToken, body: { text: body, receivedAt: at.toISOString(), channel: 'SMS' } });

  beforeAll(async () => {
    // Polls run on demand here: the schedule would race the assertions.
    t = await startTestApp({ env: { HISTORY_POLL_INTERVAL_MS: '3600000' } });
    m = await bootstrap(t.client);
    const feed = await connectSimulatedHistory(t.client, m.sessionToken, m.bankAccount.id);
    expect(feed).toMatchObject({ aggregator: 'SIMULATED', state: 'ACTIVE', bankAccountId: m.bankAccount.id });
    feedId = feed.id as string;
  });
  afterAll(() => t?.stop());

  it('a deposit whose text was lost is found by polling and pays its invoice (the CLI waits for it)', async () => {
    const id = await invoice('문자분실', 41_000);
    const out = await simulateHistoryDeposit(t.client, m.sessionToken, { feedId, depositorName: '문자분실', amount: 41_000 });
    expect(out.deposit).toMatchObject({ source: 'HISTORY', textAnnouncedAt: null, matchedInvoiceId: id, matchMethod: 'EXACT' });
    expect(await paid(id)).toBe(true);
    const again = await pollNow();
    expect(again).toMatchObject({ __typename: 'HistoryPollPayload', created: 0, feed: { state: 'ACTIVE', lastError: null } });
    expect(await deposits(41_000)).toHaveLength(1);
  });

  it('a text, then its history row: one deposit, seen by both', async () => {
    const at = new Date();
    const r = await text(shinhanText(m.bankAccount.number, '문자먼저', 42_000, 5_042_000, at), at);
    expect(r.body.outcome).toBe('DEPOSIT');
    expect((await book('문자먼저', 42_000, { balanceAfter: 5_042_000, occurredAt: at.toISOString() })).__typename).toBe('SimulatedHistoryRowPayload');
    await settled();
    expect((await pollNow()).created).toBe(0);
    const [one, ...more] = await deposits(42_000);
    expect(more).toHaveLength(0);
    expect(one).toMatchObject({ id: r.body.transactionId, source: 'TEXT', balanceAfter: 5_042_000 });
    expect(one!.textAnnouncedAt).not.toBeNull();
    expect(one!.historySeenAt).not.toBeNull();
    expect(one!.historyRowId).toMatch(/^sim-/);
  });

  it('a history row, then its late text: the text is a DUPLICATE of the deposit polling found', async () => {
    const at = new Date();
    await book('문자늦음', 43_000, { balanceAfter: 6_043_000, occurredAt: at.toISOString() });
    expect((await settled()).lastNew).toBe(1);
    const r = await text(shinhanText(m.bankAccount.number, '문자늦음', 43_000, 6_043_000, at), at);
    expect(r.body.outcome).toBe('DUPLICATE');
    const all = await deposits(43_000);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ id: r.body.transactionId, source: 'HISTORY' });
    expect(all[0]!.textAnnouncedAt).not.toBeNull();
  });

  it('a text without a balance and its row a minute later, the name spelt alike: one deposit', async () => {
    const account = await t.app.deps.prisma.bankAccount.findUniqueOrThrow({ where: { id: m.bankAccount.id } });
    // The text's minute may fall before the row's (its clock, or the bank's text): 50 s apart.
    const at = new Date(Date.now() - 50_000);
    const byText = await storeAnnouncedDeposit(t.app.deps, account, { amount: 44_000, depositorName: '잔액없음', occurredAt: at, balanceAfter: null }, { source: 'TEXT', balanceAfter: null, channel: 'SMS' });
    expect(byText.created).toBe(true);
    await book('잔액없음', 44_000, { occurredAt: new Date(at.getTime() + 50_000).toISOString() });
    expect((await settled()).lastNew).toBe(0);
    const all = await deposits(44_000);
    expect(all).toHaveLength(1);
    expect(all[0]!.balanceAfter).not.toBeNull();
    expect(all[0]!.historySeenAt).not.toBeNull();
  });

  it('two genuine deposits of one name and amount in one minute, from the history: both stored, and re-polling adds none', async () => {
    const at = new Date().toISOString();
    await book('두번입금', 45_000, { occurredAt: at });
    await book('두번입금', 45_000, { occurredAt: at });
    await settled();
    expect(await deposits(45_000)).toHaveLength(2);
    expect((await pollNow()).created).toBe(0);
    expect(await deposits(45_000)).toHaveLength(2);
  });

  it('a text and its history row at the same moment, and two polls at once: one deposit', async () => {
    const at = new Date();
    await book('동시도착', 46_000, { balanceAfter: 7_046_000, occurredAt: at.toISOString() });
    const [byText, pollA, pollB] = await Promise.all([text(shinhanText(m.bankAccount.number, '동시도착', 46_000, 7_046_000, at), at), pollNow(), pollNow()]);
    expect(['DEPOSIT', 'DUPLICATE']).toContain(byText.body.outcome);
    // Of two polls at once one may find the other running (CONFLICT): never both storing.
    for (const p of [pollA, pollB]) expect(p.__typename === 'HistoryPollPayload' || p.code === 'CONFLICT').toBe(true);
    expect(await deposits(46_000)).toHaveLength(1);
  });

  it('an SMS with the balance and a push without it, or a push timed a minute later by the phone: one deposit; two SMS of two deposits stay two', async () => {
    const account = await t.app.deps.prisma.bankAccount.findUniqueOrThrow({ where: { id: m.bankAccount.id } });
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000);
    const announce = (d: { name: string; amount: number; at: Date; balance: number | null }, channel: 'SMS' | 'PUSH') =>
      storeAnnouncedDeposit(t.app.deps, account, { amount: d.amount, depositorName: d.name, occurredAt: d.at, balanceAfter: d.balance }, { source: 'TEXT', balanceAfter: d.balance, channel });
    const sms = await announce({ name: '채널둘', amount: 46_100, at, balance: 4_046_100 }, 'SMS');
    const push = await announce({ name: '채널둘', amount: 46_100, at, balance: null }, 'PUSH');
    expect([sms.created, push.created]).toEqual([true, false]);
    expect(push.transaction.id).toBe(sms.transaction.id);
    expect(push.transaction.textChannels.sort()).toEqual(['PUSH', 'SMS']);
    // A push stamped with when the phone received it, the next minute, the same balance.
    const late = await announce({ name: '채널둘', amount: 46_100, at: new Date(at.getTime() + 65_000), balance: 4_046_100 }, 'PUSH');
    expect(late).toMatchObject({ created: false, transaction: { id: sms.transaction.id } });
    // Two deposits of one name and amount a minute apart, no balance shown, each by its SMS: two.
    const one = await announce({ name: '두문자', amount: 46_200, at, balance: null }, 'SMS');
    const two = await announce({ name: '두문자', amount: 46_200, at: new Date(at.getTime() + 60_000), balance: null }, 'SMS');
    expect([one.created, two.created]).toEqual([true, true]);
  });

  it('a text that cut the name short and its history row with the whole name: one deposit', async () => {
    const account = await t.app.deps.prisma.bankAccount.findUniqueOrThrow({ where: { id: m.bankAccount.id } });
    // The text's time a few seconds before the row's (booked now: after the feed was connected).
    const at = new Date(Date.now() - 5_000);
    const byText = await storeAnnouncedDeposit(t.app.deps, account, { amount: 12_340, depositorName: '홍길동(테스트상', occurredAt: at, balanceAfter: null }, { source: 'TEXT', balanceAfter: null, channel: 'SMS' });
    await book('홍길동(테스트상점)', 12_340);
    await settled();
    const all = await deposits(12_340);
    expect(all.map((d) => d.id)).toEqual([byText.transaction.id]);
    expect(all[0]!.historySeenAt).not.toBeNull();
  });

  it('two history rows of one identity (the same amount and balance in a minute) are two deposits, each polled once', async () => {
    const at = new Date().toISOString();
    await book('같은잔액', 3_000, { balanceAfter: 777_000, occurredAt: at });
    await book('같은잔액', 3_000, { balanceAfter: 777_000, occurredAt: at });
    await settled();
    const all = await deposits(3_000);
    expect(all).toHaveLength(2);
    expect(new Set(all.map((d) => d.historyRowId)).size).toBe(2);
    expect((await pollNow()).created).toBe(0);
  });

  it("a phone whose clock runs ahead does not date a deposit in the future; a deposit entered by hand is not dated long before its text", async () => {
    const ahead = new Date(Date.now() + 400 * 86_400_000);
    const r = await text(shinhanText(m.bankAccount.number, '미래시계', 49_500, 9_949_500, ahead), ahead);
    expect(r.body.outcome).toBe('DEPOSIT');
    const d = await t.app.deps.prisma.transaction.findUniqueOrThrow({ where: { id: r.body.transactionId } });
    // Read against the service's clock: the text's day in the latest year not after now.
    expect(d.receivedAt.getTime()).toBeLessThanOrEqual(Date.now() + 10 * 60_000);
    const open = await text('입금 알림 형식을 모르는 문자 49600원');
    const old = await gql(
      `mutation($i: EnterBankTextDepositInput!) { enterBankTextDeposit(input: $i) { __typename ... on DomainError { code field } } }`,
      { i: { bankTextId: open.body.bankTextId, amount: 49_600, depositorName: '오래된', receivedAt: '2020-01-01T00:00:00Z' } },
    );
    expect(old.enterBankTextDeposit).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('rows booked before the feed was connected are left alone', async () => {
    const feed = await t.app.deps.prisma.historyFeed.findUniqueOrThrow({ where: { id: feedId } });
    await book('연결전', 47_000, { occurredAt: new Date(feed.createdAt.getTime() - 3600_000).toISOString() });
    await settled();
    const r = await pollNow();
    // Skipped, and skipped again at every later poll.
    expect(r).toMatchObject({ __typename: 'HistoryPollPayload', created: 0 });
    expect(r.skipped).toBeGreaterThanOrEqual(1);
    expect(await deposits(47_000)).toHaveLength(0);
  });

  it('a text no parser reads is entered by hand (and found, not doubled, by a later poll); another is dismissed; neither twice', async () => {
    const id = await invoice('손입력', 48_000);
    const r = await text('입금알림 손입력님 48000원 들어왔어요');
    expect(r.body.outcome).toBe('UNRECOGNIZED');
    const enter = (bankTextId: string) =>
      gql(
        `mutation($i: EnterBankTextDepositInput!) { enterBankTextDeposit(input: $i) { __typename ... on BankTextDepositPayload { bankText { resolution resolvedBy transactionId } transaction { id source matchedInvoiceId } } ... on DomainError { code } } }`,
        { i: { bankTextId, amount: 48_000, depositorName: '손입력', balanceAfter: 8_048_000 } },
      ).then((x) => x.enterBankTextDeposit);
    const entered = await enter(r.body.bankTextId);
    expect(entered).toMatchObject({ __typename: 'BankTextDepositPayload', bankText: { resolution: 'ENTERED' }, transaction: { source: 'TEXT', matchedInvoiceId: id } });
    expect(entered.bankText.transactionId).toBe(entered.transaction.id);
    expect(await enter(r.body.bankTextId)).toMatchObject({ code: 'BANK_TEXT_NOT_OPEN' });
    const stored = await t.app.deps.prisma.transaction.findUniqueOrThrow({ where: { id: entered.transaction.id } });
    await book('손입력', 48_000, { balanceAfter: 8_048_000, occurredAt: stored.receivedAt.toISOString() });
    expect((await settled()).lastNew).toBe(0);
    expect(await deposits(48_000)).toHaveLength(1);

    const other = await text('광고) 이번 달 특별 금리 안내');
    expect(other.body.outcome).toBe('UNRECOGNIZED');
    const dismiss = (bankTextId: string, token = m.sessionToken) =>
      gql(`mutation($id: ID!) { dismissBankText(id: $id) { __typename ... on BankTextPayload { bankText { resolution } } ... on DomainError { code } } }`, { id: bankTextId }, token).then(
        (x) => x.dismissBankText,
      );
    expect(await dismiss(other.body.bankTextId)).toMatchObject({ bankText: { resolution: 'DISMISSED' } });
    expect(await dismiss(other.body.bankTextId)).toMatchObject({ code: 'BANK_TEXT_NOT_OPEN' });
    // A text the service took (a withdrawal: NOT_A_DEPOSIT) is not the merchant's to dismiss.
    const withdrawal = await text(shinhanText(m.bankAccount.number, '출금상대', 48_500, 9_000_000, new Date()).replace('입금', '출금'));
    expect(withdrawal.body.outcome).toBe('NOT_A_DEPOSIT');
    expect(await dismiss(withdrawal.body.bankTextId)).toMatchObject({ code: 'BANK_TEXT_NOT_OPEN' });
    // A deposit text the service took is not open either.
    expect(await dismiss((await text(shinhanText(m.bankAccount.number, '열림아님', 49_000, 9_049_000, new Date()))).body.bankTextId)).toMatchObject({ code: 'BANK_TEXT_NOT_OPEN' });
  });

  it('an API key cannot connect, pause or enter (dashboard operations); a key limited to another account sees no feed and no figures', async () => {
    const byKey = async (query: string, variables: Record<string, unknown>) => (await t.client.graphql(query, variables, m.apiKey.secret)).errors?.[0]?.extensions?.code;
    expect(await byKey(`mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { __typename } }`, { i: { bankAccountId: m.bankAccount.id, aggregator: 'SIMULATED' } })).toBe('DASHBOARD_ONLY');
    expect(await byKey(`mutation($id: ID!) { pauseHistoryFeed(id: $id) { __typename } }`, { id: feedId })).toBe('DASHBOARD_ONLY');
    const unread = await text('키로는 입력할 수 없는 문자');
    expect(await byKey(`mutation($i: EnterBankTextDepositInput!) { enterBankTextDeposit(input: $i) { __typename } }`, { i: { bankTextId: unread.body.bankTextId, amount: 1000, depositorName: '키' } })).toBe('DASHBOARD_ONLY');
    expect((await t.app.deps.prisma.historyFeed.findUniqueOrThrow({ where: { id: feedId } })).state).toBe('ACTIVE');
    // Popbill is offered only when configured (it is not here).
    const popbill = await gql(`mutation($i: ConnectHistoryFeedInput!) { connectHistoryFeed(input: $i) { __typename ... on DomainError { code } } }`, {
      i: { bankAccountId: m.bankAccount.id, aggregator: 'POPBILL', corpNum: '1208147521' },
    });
    expect(popbill.connectHistoryFeed).toEqual({ __typename: 'DomainError', code: 'AGGREGATOR_NOT_CONFIGURED' });
    const other = await t.client.gql<{ registerBankAccount: { bankAccount: { id: string } } }>(
      `mutation($input: RegisterBankAccountInput!) { registerBankAccount(input: $input) { bankAccount { id } } }`,
      { input: { provider: 'KB_KOOKMIN', type: 'PERSONAL', number: '9' + String(Date.now()).slice(-11), alias: 'other' } },
      m.sessionToken,
    );
    const limited = await createApiKey(t.client, m.sessionToken, { name: 'limited', bankAccountIds: [other.registerBankAccount.bankAccount.id] });
    const seen = await t.client.gql<{ historyFeeds: unknown[]; depositReconciliation: unknown[] }>(
      `query($a: String!, $b: String!) { historyFeeds { id } depositReconciliation(dateAfter: $a, dateBefore: $b) { date } }`,
      { a: kstDate(new Date(Date.now() - 86_400_000)), b: kstDate(new Date()) },
      limited.secret,
    );
    expect(seen).toEqual({ historyFeeds: [], depositReconciliation: [] });
  });

  it('the reconciliation counts how deposits arrived and what became of them', async () => {
    const today = kstDate(new Date());
    const r = await gql<{ depositReconciliation: any[] }>(
      `query($a: String!, $b: String!, $acc: ID) { depositReconciliation(dateAfter: $a, dateBefore: $b, bankAccountId: $acc) {
         date bankAccountId deposits { count amount } notified { count } announcedByText { count } foundByPolling { count } polledOnly { count amount }
         matchedAutomatically { count } matchedByHand { count } unmatched { count } } }`,
      { a: kstDate(new Date(Date.now() - 86_400_000)), b: today, acc: m.bankAccount.id },
    );
    // The deposits of the days asked for (a text read with a year-old date, above, is not among them).
    const all = (await t.app.deps.prisma.transaction.findMany({ where: { bankAccountId: m.bankAccount.id, verification: false } })).filter((d) => kstDate(d.receivedAt) >= kstDate(new Date(Date.now() - 86_400_000)));
    const rows = r.depositReconciliation;
    const sum = (f: (d: any) => number) => rows.reduce((n, d) => n + f(d), 0);
    expect(sum((d) => d.deposits.count)).toBe(all.length);
    expect(sum((d) => d.deposits.amount)).toBe(all.reduce((n, d) => n + d.amount, 0));
    expect(sum((d) => d.polledOnly.count)).toBe(all.filter((d) => d.source === 'HISTORY' && !d.textAnnouncedAt).length);
    expect(sum((d) => d.polledOnly.count)).toBeGreaterThanOrEqual(3);
    expect(sum((d) => d.foundByPolling.count)).toBe(all.filter((d) => d.historySeenAt).length);
    expect(sum((d) => d.announcedByText.count)).toBe(all.filter((d) => d.textAnnouncedAt).length);
    expect(sum((d) => d.matchedAutomatically.count + d.matchedByHand.count + d.unmatched.count)).toBe(all.length);
    expect(sum((d) => d.unmatched.count)).toBe(all.filter((d) => !d.matchedInvoiceId).length);
    const bad = await t.client.graphql(`query { depositReconciliation(dateAfter: "2026-02-30", dateBefore: "2026-03-01") { date } }`, {}, m.sessionToken);
    expect(bad.errors?.[0]?.extensions?.code).toBe('INVALID_DATE_RANGE_FORMAT');
    const long = await t.client.graphql(`query { depositReconciliation(dateAfter: "2026-01-01", dateBefore: "2026-12-31") { date } }`, {}, m.sessionToken);
    expect(long.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });
});
