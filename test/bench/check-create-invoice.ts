/**
 * `npx tsx test/bench/check-create-invoice.ts`: createInvoice's single-statement raw insert (invoice + `created`
 * history line, src/domain/invoices/invoices.ts) returns exactly what Prisma reads back for the row (same fields, types
 * and prototype as `tx.invoice.create` returned), and stores the history line addHistory() stored, on PostgreSQL
 * (scratch database on BENCH_DATABASE_URL) and on the embedded PostgreSQL. Exits 1 on any difference.
 */
import { isDeepStrictEqual } from 'node:util';
import pino from 'pino';
import type { Principal } from '../../src/domain/auth/principal.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { createInvoice } from '../../src/domain/invoices/invoices.ts';
import { onEachDatabase } from './lib/scratch.ts';

let bad = 0;
await onEachDatabase(['PostgreSQL', 'embedded'], async (kind, db) => {
  await db.sql.exec(
    `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_1', 'a@example.com', 'a', 'x');
     INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('wsp_1', 'w', 'acc_1');
     INSERT INTO "BankAccount" (id, "workspaceId", "ownerId", provider, type, number, alias, "verificationCode", "verifiedAt", "notificationTokenHash")
       VALUES ('bac_1', 'wsp_1', 'acc_1', 'SHINHAN', 'PERSONAL', '1', 'a', 'x', now(), 'h')`,
  );
  const deps = { prisma: db.prisma, sql: db.sql, clock: systemClock, log: pino({ level: 'silent' }), onEventsCommitted() {}, onJobsQueued() {} } as unknown as Deps;
  const p: Principal = {
    kind: 'API_KEY',
    workspaceId: 'wsp_1',
    workspaceOwnerId: 'acc_1',
    accountId: null,
    apiKeyId: 'apk_1',
    oauthAppId: null,
    credentialId: 'apk_1',
    name: 'key',
    readOnly: false,
    bankAccountIds: null,
  };
  const inputs = [
    { bankAccountIds: [], customer: { name: '홍길동' }, amount: 10000 },
    {
      bankAccountIds: ['bac_1'],
      customer: { name: "O'Neil\\%_", email: 'a-b@example.com', phoneNumber: '01012345678' },
      amount: 1,
      cashReceipt: { type: 'PERSONAL', identifier: '01012345678' },
      expireAfter: '1d 2h',
      metadata: { a: 'x"y', k: '한' },
    },
    { bankAccountIds: [], customer: { name: 'x' }, amount: 2147483647, cashReceipt: { type: 'CORPORATE', identifier: '1234567890' }, metadata: {} },
  ];
  for (const input of inputs) {
    const created = await createInvoice(deps, p, JSON.parse(JSON.stringify(input)));
    const read = await db.prisma.invoice.findUniqueOrThrow({ where: { id: created.id } });
    const history = await db.prisma.invoiceHistoryEntry.findMany({ where: { invoiceId: created.id } });
    const same = isDeepStrictEqual({ ...created }, { ...read }) && Object.getPrototypeOf(created) === Object.prototype;
    const historyOk =
      history.length === 1 &&
      history[0].type === 'created' &&
      history[0].data === null &&
      isDeepStrictEqual(history[0].actor, { type: 'SECRET_API_KEY', accountId: null, apiKeyId: 'apk_1', name: 'key' }) &&
      history[0].createdAt.getTime() === created.createdAt.getTime();
    if (!same || !historyOk) {
      bad++;
      console.log(kind, 'DIFFERENT', { created, read, history });
    }
  }
  const events = await db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "Event" WHERE type = 'invoice.created'`);
  if (events[0].n !== String(inputs.length)) bad++;
  console.log(`${kind}: ${inputs.length} invoices created, ${bad ? 'DIFFERENCES' : 'row, history line and event as before'}`);
});
process.exit(bad ? 1 : 0);
