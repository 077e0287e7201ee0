/**
 * POST /bank-texts through the running service: a bank's deposit text forwarded by the merchant's phone becomes a
 * deposit that pays the invoice; the same deposit by SMS and push at the same moment is stored once; withdrawals,
 * unknown texts and other accounts' texts are stored, answered, and never deposits; hostile bodies never 5xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVerifiedBankAccount, bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { createApiKey } from '../helpers/credentials.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';

/** A Shinhan deposit SMS (the format) for `account`, at the current KST minute. */
function shinhanText(account: string, name: string, amount: number, balance: number, now = new Date(), kind = '입금') {
  const kst = new Date(now.getTime() + 9 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  const money = (n: number) => n.toLocaleString('en-US');
  return `[Web발신]\n신한${p(kst.getUTCMonth() + 1)}/${p(kst.getUTCDate())} ${p(kst.getUTCHours())}:${p(kst.getUTCMinutes())}\n${account}\n${kind} ${money(amount)}\n잔액 ${money(balance)}\n ${name}`;
}

describe(`forwarded bank texts on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  const post = (body: unknown, token = m.bankAccount.notificationToken) => t.client.request('POST', '/bank-texts', { token, body });
  const invoice = async (name: string, amount: number) => {
    const r = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name }, amount } });
    expect(r.status).toBe(201);
    return r.body.data.id as string;
  };
  const storedTexts = () => t.app.deps.prisma.bankText.findMany({ where: { bankAccountId: m.bankAccount.id }, orderBy: { createdAt: 'asc' } });

  beforeAll(async () => {
    t = await startTestApp();
    m = await bootstrap(t.client);
    expect(m.bankAccount.provider).toBe('SHINHAN');
  });
  afterAll(() => t?.stop());

  it("a deposit text of the account's bank and number pays the invoice", async () => {
    const id = await invoice('김텍스트', 31_000);
    const r = await post({ text: shinhanText(m.bankAccount.number, '김텍스트', 31_000, 1_031_000), receivedAt: new Date().toISOString(), channel: 'SMS', sender: '15778000' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ outcome: 'DEPOSIT', transactionId: expect.stringMatching(/^trx_/), kind: null, reason: null, bankTextId: expect.stringMatching(/^btx_/) });
    const inv = await t.client.request('GET', `/v1/invoices/${id}`, { token: m.apiKey.secret });
    expect(inv.body.data.paid).toBe(true);
  });

  it('the same deposit by SMS and by push at the same moment is one deposit', async () => {
    await invoice('이중알림', 32_000);
    const now = new Date();
    const sms = shinhanText(m.bankAccount.number, '이중알림', 32_000, 2_032_000, now);
    // The push reshapes the text (line breaks to spaces, no [Web발신]): the same deposit.
    const push = sms.replace('[Web발신]\n', '').replace(/\n/g, ' ');
    const [a, b] = await Promise.all([
      post({ text: sms, receivedAt: now.toISOString(), channel: 'SMS', sender: '15778000' }),
      post({ text: push, receivedAt: new Date(now.getTime() + 800).toISOString(), channel: 'PUSH', sender: 'com.shinhan.sbanking' }),
    ]);
    expect([a.body.outcome, b.body.outcome].sort()).toEqual(['DEPOSIT', 'DUPLICATE']);
    expect(a.body.transactionId).toBe(b.body.transactionId);
    const deposits = await t.app.deps.prisma.transaction.count({ where: { bankAccountId: m.bankAccount.id, amount: 32_000 } });
    expect(deposits).toBe(1);
    // A forwarder that retries gets the same deposit again.
    const retry = await post({ text: sms, receivedAt: now.toISOString(), channel: 'SMS' });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ outcome: 'DUPLICATE', transactionId: a.body.transactionId });
  });

  it('two deposits of one name and amount in one minute differ by their balance: both stored', async () => {
    const now = new Date();
    const first = await post({ text: shinhanText(m.bankAccount.number, '같은분', 5_000, 100_000, now), receivedAt: now.toISOString(), channel: 'SMS' });
    const second = await post({ text: shinhanText(m.bankAccount.number, '같은분', 5_000, 105_000, now), receivedAt: now.toISOString(), channel: 'SMS' });
    expect([first.body.outcome, second.body.outcome]).toEqual(['DEPOSIT', 'DEPOSIT']);
    expect(first.body.transactionId).not.toBe(second.body.transactionId);
  });

  it('a withdrawal, an unknown text and another account are stored and answered, and are no deposits', async () => {
    const before = await t.app.deps.prisma.transaction.count({ where: { bankAccountId: m.bankAccount.id } });
    const withdrawal = await post({ text: shinhanText(m.bankAccount.number, '출금처', 7_000, 1_000, new Date(), '출금'), receivedAt: new Date().toISOString(), channel: 'SMS' });
    expect(withdrawal.status).toBe(200);
    expect(withdrawal.body).toMatchObject({ outcome: 'NOT_A_DEPOSIT', kind: 'WITHDRAWAL', transactionId: null });
    const unknown = await post({ text: '오늘 저녁 7시에 만나요', receivedAt: new Date().toISOString(), channel: 'SMS' });
    expect(unknown.body).toMatchObject({ outcome: 'UNRECOGNIZED', transactionId: null, reason: expect.any(String) });
    const otherAccount = await post({ text: shinhanText('110496000000', '남의계좌', 8_000, 9_000), receivedAt: new Date().toISOString(), channel: 'SMS' });
    expect(otherAccount.body).toMatchObject({ outcome: 'REFUSED', kind: 'ACCOUNT_MISMATCH' });
    const otherBank = await post({ text: `[Web발신] [카카오뱅크] 홍*동(8205) 01/23 11:59 입금 450,000원 홍길동 잔액 9,851,574원`, receivedAt: new Date().toISOString(), channel: 'PUSH' });
    expect(otherBank.body).toMatchObject({ outcome: 'REFUSED', kind: 'BANK_MISMATCH' });
    expect(await t.app.deps.prisma.transaction.count({ where: { bankAccountId: m.bankAccount.id } })).toBe(before);
    const texts = await storedTexts();
    expect(texts.find((x) => x.id === unknown.body.bankTextId)).toMatchObject({ text: '오늘 저녁 7시에 만나요', outcome: 'UNRECOGNIZED', channel: 'SMS' });
    // The merchant sees them (GraphQL bankTexts), by outcome; a key limited to another account sees none of them.
    const seen = await t.client.gql(`{ bankTexts(outcomes: [UNRECOGNIZED, REFUSED]) { id outcome kind text bankAccountId } }`, {}, m.sessionToken);
    expect(seen.bankTexts.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining([unknown.body.bankTextId, otherAccount.body.bankTextId, otherBank.body.bankTextId]));
    expect(seen.bankTexts.every((x: { outcome: string }) => ['UNRECOGNIZED', 'REFUSED'].includes(x.outcome))).toBe(true);
    const other = await addVerifiedBankAccount(t.client, m.sessionToken, { alias: 'other' });
    const limited = await createApiKey(t.client, m.sessionToken, { name: 'limited-to-other', bankAccountIds: [other.id] });
    expect((await t.client.gql(`{ bankTexts { id } }`, {}, limited.secret)).bankTexts).toEqual([]);
  });

  it('refuses a bad token before reading the body, and a bad body in the bank envelope', async () => {
    const bad = await post({ text: 'x', receivedAt: new Date().toISOString(), channel: 'SMS' }, 'bnt_not-a-token');
    expect(bad.status).toBe(401);
    // Text that no database can store as text (NUL, a lone surrogate): refused as the other inputs are, never a 5xx.
    const nul = await post({ text: 'a\u0000b 입금 1,000원', receivedAt: new Date().toISOString(), channel: 'SMS' });
    expect(nul.status).toBe(422);
    expect(nul.body).toMatchObject({ code: 'VALIDATION_FAILED', field: 'text' });
    for (const body of [{}, { text: '', receivedAt: new Date().toISOString(), channel: 'SMS' }, { text: 'x', receivedAt: 'yesterday', channel: 'SMS' }, { text: 'x', receivedAt: new Date().toISOString(), channel: 'FAX' }, 'text']) {
      const r = await post(body);
      expect([400, 422], JSON.stringify(body)).toContain(r.status);
      expect(r.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
  });

  it('hostile texts never answer 5xx and are never deposits', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300, unit: 'binary' }), async (text) => {
        const r = await post({ text: text.length ? text : '.', receivedAt: new Date().toISOString(), channel: 'PUSH' });
        expect(r.status).toBeLessThan(500);
        // Stored and answered (never a new deposit, never 201), or refused as text no database stores (NUL, a lone surrogate).
        expect([200, 422]).toContain(r.status);
        if (r.status === 200) expect(['NOT_A_DEPOSIT', 'UNRECOGNIZED', 'REFUSED']).toContain(r.body.outcome);
        else expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', field: 'text' });
      }),
      { numRuns: 40, seed: 20261126 },
    );
  });
});
