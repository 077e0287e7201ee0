/**
 * E-mail: the buyer's paid e-mail on a deposit match when the workspace enabled it (never on mark-as-paid), kept in the
 * local outbox by default; the SMTP adapter against a real SMTP server in-process.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { smtpEmail } from '../../src/events/email/adapters.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

const SETTINGS = `mutation($i: WorkspaceSettingsInput!) { updateWorkspaceSettings(input: $i) { ... on WorkspacePayload { workspace { paidEmailEnabled } } } }`;
const EMAILS = `{ emails { kind to subject text status invoiceId } }`;

describe(`paid e-mail through the local outbox on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  beforeAll(async () => {
    t = await startTestApp();
    m = await bootstrap(t.client);
  });
  afterAll(() => t?.stop());

  it('is off by default: a deposit match sends nothing', async () => {
    await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '메일없음', email: 'a@example.com' }, amount: 100 } });
    await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '메일없음', amount: 100 });
    await t.app.workers.dispatcher.loop.drain();
    expect((await t.client.gql(EMAILS, {}, m.sessionToken)).emails).toEqual([]);
  });

  it('when enabled, a deposit match e-mails the buyer; mark-as-paid never does', async () => {
    const s = await t.client.gql(SETTINGS, { i: { paidEmailEnabled: true } }, m.sessionToken);
    expect(s.updateWorkspaceSettings.workspace.paidEmailEnabled).toBe(true);
    const paidByDeposit = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '메일받음', email: 'buyer@example.com' }, amount: 12_345 } });
    const markedPaid = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '수동결제', email: 'manual@example.com' }, amount: 200 } });
    const noEmail = await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '주소없음' }, amount: 300 } });
    await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '메일받음', amount: 12_345 });
    await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '주소없음', amount: 300 });
    await t.client.request('POST', `/v1/invoices/${markedPaid.body.data.id}/mark-as-paid`, { token: m.apiKey.secret });
    const r = await until(() => t.client.gql(EMAILS, {}, m.sessionToken), (v) => v.emails.some((e: { status: string }) => e.status === 'SENT'));
    expect(r.emails).toHaveLength(1);
    expect(r.emails[0]).toMatchObject({ kind: 'invoice_paid', to: 'buyer@example.com', status: 'SENT', invoiceId: paidByDeposit.body.data.id });
    expect(r.emails[0].subject).toContain('12,345원');
    expect(r.emails[0].text).toContain('메일받음');
    expect(noEmail.status).toBe(201);
  });

  it('e-mail settings and the outbox are dashboard-only', async () => {
    const r = await t.client.graphql(EMAILS, {}, m.apiKey.secret);
    expect(r.errors?.[0].extensions?.code).toBe('DASHBOARD_ONLY');
  });
});

describe('the SMTP adapter', () => {
  const received: { to: string; raw: string }[] = [];
  let server: SMTPServer;
  let port: number;
  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, cb) {
        let raw = '';
        stream.on('data', (d) => (raw += d));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw });
          cb();
        });
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('hands the message to the SMTP server', async () => {
    const port2 = smtpEmail(`smtp://127.0.0.1:${port}`, 'shop@example.com');
    await port2.send({ id: 'eml_test', to: 'buyer@example.com', subject: 'Paid', text: '입금 확인' });
    port2.close();
    expect(received).toHaveLength(1);
    expect(received[0].to).toBe('buyer@example.com');
    expect(received[0].raw).toContain('Subject: Paid');
    expect(received[0].raw).toContain('From: shop@example.com');
  });

  it('the service sends the paid e-mail through SMTP when SMTP_URL is set', async () => {
    const t = await startTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'pay@example.com' } });
    try {
      const m = await bootstrap(t.client);
      await t.client.gql(SETTINGS, { i: { paidEmailEnabled: true } }, m.sessionToken);
      await t.client.request('POST', '/v1/invoices', { token: m.apiKey.secret, body: { bankAccountIds: [], customer: { name: '에스엠티피', email: 'smtp-buyer@example.com' }, amount: 999 } });
      await t.client.deposit(m.bankAccount.notificationToken, { depositorName: '에스엠티피', amount: 999 });
      const r = await until(() => t.client.gql(EMAILS, {}, m.sessionToken), (v) => v.emails[0]?.status === 'SENT');
      expect(r.emails[0]).toMatchObject({ to: 'smtp-buyer@example.com', status: 'SENT' });
      expect(received.some((x) => x.to === 'smtp-buyer@example.com' && x.raw.includes('From: pay@example.com'))).toBe(true);
    } finally {
      await t.stop();
    }
  });
});
