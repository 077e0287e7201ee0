/**
 * Migrations: applied by our runner, recorded as Prisma records them (Prisma's own engine finds nothing to apply),
 * in agreement with prisma/schema.prisma (no drift), and a failing migration leaves nothing behind.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffSchemaAgainstMigrations, SCHEMA_PATH } from '../../src/db/drift.ts';
import { MigrationError, migrate, pendingMigrations, readMigrations } from '../../src/db/migrate.ts';
import { emptyFilters, openSchemaEngine } from '../../src/db/schema-engine.ts';
import { invoiceNameColumns } from '../../src/domain/deposits/depositor-name.ts';
import { invoiceSearchText } from '../../src/domain/invoices/invoice-input.ts';
import { searchNormalize } from '../../src/domain/validation.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';

describe(`migrations on ${dbLabel}`, () => {
  let current: TestDatabase | null = null;
  afterEach(async () => {
    if (current) {
      await current.database.close();
      await current.drop();
      current = null;
    }
  });

  it('prisma/schema.prisma and prisma/migrations do not drift apart (schema engine diff is empty)', async () => {
    const { sql, empty } = await diffSchemaAgainstMigrations();
    expect(sql.trim()).toBe('-- This is an empty migration.');
    expect(empty).toBe(true);
  });

  it("applies every migration once, records them like Prisma does, and Prisma's engine finds nothing left to apply", async () => {
    current = await freshDatabase({ migrated: false });
    const db = current.database;
    const all = readMigrations();
    expect(all.length).toBeGreaterThan(0);
    expect(await pendingMigrations(db)).toEqual(all.map((m) => m.name));
    expect(await migrate(db)).toEqual(all.map((m) => m.name));
    expect(await migrate(db)).toEqual([]);
    expect(await pendingMigrations(db)).toEqual([]);
    const rows = await db.sql.query<{ migration_name: string; checksum: string; applied_steps_count: number; finished_at: Date | null }>(
      `SELECT migration_name, checksum, applied_steps_count, finished_at FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows.map((r) => [r.migration_name, r.checksum, r.applied_steps_count])).toEqual(all.map((m) => [m.name, m.checksum, 1]));
    expect(rows.every((r) => r.finished_at !== null)).toBe(true);

    const source = readFileSync(SCHEMA_PATH, 'utf8');
    const engine = await openSchemaEngine(db.adapterFactory, 'schema.prisma', source);
    const dir = new URL('../../prisma/migrations/', import.meta.url).pathname;
    const out = await engine.applyMigrations({
      migrationsList: {
        baseDir: dir,
        lockfile: { path: 'migration_lock.toml', content: readFileSync(join(dir, 'migration_lock.toml'), 'utf8') },
        shadowDbInitScript: '',
        migrationDirectories: all.map((m) => ({ path: m.name, migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: m.sql } } })),
      },
      filters: emptyFilters,
    } as never);
    expect(out.appliedMigrationNames).toEqual([]);
  });

  it('a failing migration is rolled back whole, is not recorded, and start-up stops naming it', async () => {
    current = await freshDatabase({ migrated: false });
    const db = current.database;
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    mkdirSync(join(dir, '20990101000000_good'));
    writeFileSync(join(dir, '20990101000000_good', 'migration.sql'), 'CREATE TABLE "Good" (id int);');
    mkdirSync(join(dir, '20990101000001_bad'));
    writeFileSync(join(dir, '20990101000001_bad', 'migration.sql'), 'CREATE TABLE "Half" (id int);\nSELECT * FROM "no_such_table";');
    const migrations = readMigrations(dir);
    await expect(migrate(db, migrations)).rejects.toThrow(MigrationError);
    await expect(migrate(db, migrations)).rejects.toThrow(/20990101000001_bad/);
    const tables = await db.sql.query<{ t: string | null }>(`SELECT to_regclass('"Half"')::text AS t`);
    expect(tables[0].t).toBeNull();
    const good = await db.sql.query<{ t: string | null }>(`SELECT to_regclass('"Good"')::text AS t`);
    expect(good[0].t).toBe('"Good"');
    const recorded = await db.sql.query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations"`);
    expect(recorded.map((r) => r.migration_name)).toEqual(['20990101000000_good']);
  });

  it('a migration edited after it was applied stops start-up (checksum differs)', async () => {
    current = await freshDatabase({ migrated: false });
    const db = current.database;
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    mkdirSync(join(dir, '20990101000000_one'));
    writeFileSync(join(dir, '20990101000000_one', 'migration.sql'), 'CREATE TABLE "One" (id int);');
    await migrate(db, readMigrations(dir));
    writeFileSync(join(dir, '20990101000000_one', 'migration.sql'), 'CREATE TABLE "One" (id bigint);');
    await expect(migrate(db, readMigrations(dir))).rejects.toThrow(/changed after it was applied/);
  });

  it('function bodies with $$ and semicolons run as one migration', async () => {
    current = await freshDatabase({ migrated: false });
    const db = current.database;
    const dir = mkdtempSync(join(tmpdir(), 'mig-'));
    mkdirSync(join(dir, '20990101000000_fn'));
    writeFileSync(
      join(dir, '20990101000000_fn', 'migration.sql'),
      `CREATE FUNCTION twice(x int) RETURNS int AS $$ BEGIN RETURN x * 2; END; $$ LANGUAGE plpgsql;\nCREATE TABLE "T" (v int);`,
    );
    await migrate(db, readMigrations(dir));
    const r = await db.sql.query<{ v: number }>(`SELECT twice(21) AS v`);
    expect(r[0].v).toBe(42);
  });

  it('upgrading to the outbox queue table queues the events not dispatched yet, and only those; the previous release still runs against it', async () => {
    current = await freshDatabase({ migrated: false });
    const db = current.database;
    const all = readMigrations();
    const at = all.findIndex((m) => m.name.endsWith('_outbox_queue'));
    expect(at).toBeGreaterThan(0);
    await migrate(db, all.slice(0, at));
    await db.sql.exec(
      `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_up', 'up@example.com', 'u', 'x');
       INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('wsp_up', 'w', 'acc_up');
       INSERT INTO "Event" (id, "workspaceId", sequence, type, data, "createdAt", "dispatchedAt") VALUES
         ('evt_done', 'wsp_up', 1, 'invoice.created', '{}', '2026-11-01T00:00:00Z', '2026-11-01T00:00:01Z'),
         ('evt_waiting', 'wsp_up', 2, 'invoice.paid', '{}', '2026-11-01T00:00:02Z', NULL);`,
    );
    await migrate(db, all);
    const queued = await db.sql.query<{ eventId: string; sequence: string | number; createdAt: Date }>(`SELECT "eventId", sequence, "createdAt" FROM "OutboxEntry"`);
    expect(queued.map((q) => [q.eventId, Number(q.sequence), new Date(q.createdAt).toISOString()])).toEqual([['evt_waiting', 2, '2026-11-01T00:00:02.000Z']]);
    // An instance of the previous release, still running during a rolling upgrade, still finds what it claims by.
    const oldClaim = await db.sql.query<{ id: string }>(`UPDATE "Event" SET "dispatchedAt" = now() WHERE "dispatchedAt" IS NULL RETURNING id`);
    expect(oldClaim.map((r) => r.id)).toEqual(['evt_waiting']);
  });
  it('upgrading to normalised depositor names: existing invoices get the comparison columns the application computes, the name indexes are rebuilt on them, and visible 1-won code deposits become verification deposits', async () => {
    current = await freshDatabase({ migrated: false });
    const db = current.database;
    const all = readMigrations();
    const at = all.findIndex((m) => m.name.endsWith('_depositor_name_normalization'));
    expect(at).toBeGreaterThan(0);
    await migrate(db, all.slice(0, at));
    const NFD = (x: string) => x.normalize('NFD');
    // The search text earlier releases stored: ASCII hyphens removed, lower-cased, nothing else.
    const previousSearchText = (parts: string[]) => parts.map((x) => x.replace(/-/g, '').toLowerCase()).join('\u0001');
    // Names as earlier releases stored them (at most 16 code points as sent), the awkward ones included.
    const names = [
      '홍길동', NFD('홍길동'), NFD('가나다라마바사아'), '홍길동(101호)', '홍길동（１０１호）', NFD('홍길동') + '［주문］', 'JohnKim', 'JOHNKIM', 'ＪＯＨＮ［vip］',
      '〔주문〕김철수', '〈a〉《b》「c」『d』', '【x】〖y〗〘z〙〚w〛', '｢x｣y', '<a>b', '((a))b', '[[[[[[[x]]]]]]]', '홍(a[b)c]', '김철수(101', NFD('ÉMILE'), 'ㄱㅏ', '㈜한국', 'W\u030A', '(1)',
    ];
    await db.sql.exec(
      `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_up', 'up@example.com', 'u', 'x');
       INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('wsp_up', 'w', 'acc_up');
       INSERT INTO "BankAccount" (id, "workspaceId", "ownerId", provider, type, number, alias, "verificationCode", "verifiedAt", "notificationTokenHash")
         VALUES ('bac_up', 'wsp_up', 'acc_up', 'SHINHAN', 'PERSONAL', '1000000000001', 'a', '123456', now(), 'h');`,
    );
    for (const [i, name] of names.entries()) {
      await db.sql.query(`INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "customerName", "customerNameBare", amount, "searchText", status) VALUES ($1, 'wsp_up', $2, 'acc_up', $3, 'old', 1, $4, $5::"InvoiceStatus")`, [
        `ivc_up${i}`,
        i + 1,
        name,
        previousSearchText([name, 'Buyer-One@Example.com', '010-1234-5678']),
        i === 0 ? 'PAID' : 'PENDING',
      ]);
    }
    const deposit = (id: string, amount: number, description: string, matchedInvoiceId: string | null = null) =>
      db.sql.query(
        `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText", "receivedAt", "matchedInvoiceId", "matchMethod")
         VALUES ($1, 'wsp_up', 'bac_up', '{}', $1, $2, $3, $6, now(), $4, $5::"MatchMethod")`,
        [id, amount, description, matchedInvoiceId, matchedInvoiceId ? 'EXACT' : null, previousSearchText(['1000000000001', description])],
      );
    await deposit('trx_code', 1, '123456'); // stored visible by the release that only hid codes on unverified accounts
    await deposit('trx_fullwidth', 1, '１２３４５６');
    await deposit('trx_spaced', 1, '123 456\u200b');
    await deposit('trx_paid', 1, '123456', 'ivc_up0'); // already paid an invoice: left to the merchant
    await deposit('trx_two', 2, '123456'); // not 1 won: an ordinary deposit
    await deposit('trx_other', 1, '654321');

    await migrate(db, all);

    const stored = await db.sql.query<{ customerName: string; customerNameKey: string; customerNameBare: string }>(
      `SELECT "customerName", "customerNameKey", "customerNameBare" FROM "Invoice" WHERE "workspaceId" = 'wsp_up' ORDER BY number`,
    );
    expect(stored).toEqual(names.map((customerName) => ({ customerName, ...invoiceNameColumns(customerName) })));
    // The search text is what the application computes now, so an NFD or full-width name is found by its plain form.
    const searchTexts = await db.sql.query<{ searchText: string }>(`SELECT "searchText" FROM "Invoice" WHERE "workspaceId" = 'wsp_up' ORDER BY number`);
    expect(searchTexts.map((r) => r.searchText)).toEqual(
      names.map((customerName) => invoiceSearchText({ customerName, customerEmail: 'Buyer-One@Example.com', customerPhoneNumber: '010-1234-5678', cashReceiptIdentifier: null })),
    );
    const depositTexts = await db.sql.query<{ description: string; searchText: string }>(`SELECT description, "searchText" FROM "Transaction" ORDER BY id`);
    for (const d of depositTexts) expect(d.searchText).toBe(['1000000000001', d.description].map(searchNormalize).join('\u0001'));
    const deposits = await db.sql.query<{ id: string; hidden: boolean; verification: boolean; matchedInvoiceId: string | null }>(
      `SELECT id, hidden, verification, "matchedInvoiceId" FROM "Transaction" ORDER BY id`,
    );
    expect(deposits).toEqual([
      { id: 'trx_code', hidden: true, verification: true, matchedInvoiceId: null },
      { id: 'trx_fullwidth', hidden: true, verification: true, matchedInvoiceId: null },
      { id: 'trx_other', hidden: false, verification: false, matchedInvoiceId: null },
      { id: 'trx_paid', hidden: false, verification: false, matchedInvoiceId: 'ivc_up0' },
      { id: 'trx_spaced', hidden: true, verification: true, matchedInvoiceId: null },
      { id: 'trx_two', hidden: false, verification: false, matchedInvoiceId: null },
    ]);
    const indexes = await db.sql.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'Invoice' AND indexname IN ('Invoice_name_prefix_idx', 'Invoice_workspaceId_amount_customerNameBare_idx') ORDER BY indexname`,
    );
    expect(indexes.map((i) => [i.indexname, i.indexdef.replace(/^.* USING btree /, '')])).toEqual([
      ['Invoice_name_prefix_idx', '("workspaceId", amount, "customerNameKey" text_pattern_ops)'],
      ['Invoice_workspaceId_amount_customerNameBare_idx', '("workspaceId", amount, "customerNameBare")'],
    ]);

    // An instance of the previous release, still running during a rolling upgrade, creates and renames invoices
    // without the new column (its own bracket-free name, from the name as sent): they get the rule's columns anyway.
    await db.sql.query(`INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "customerName", "customerNameBare", amount, "searchText") VALUES ('ivc_old', 'wsp_up', 100, 'acc_up', $1, $2, 1, '')`, [
      NFD('ＪＯＨＮ（１）'),
      NFD('ＪＯＨＮ（１）'),
    ]);
    await db.sql.query(`UPDATE "Invoice" SET "customerName" = 'KIM[2]', "customerNameBare" = 'KIM', "updatedAt" = now() WHERE id = 'ivc_up1'`);
    const written = await db.sql.query<{ id: string; customerName: string; customerNameKey: string; customerNameBare: string }>(
      `SELECT id, "customerName", "customerNameKey", "customerNameBare" FROM "Invoice" WHERE id IN ('ivc_old', 'ivc_up1') ORDER BY id`,
    );
    expect(written).toEqual([
      { id: 'ivc_old', customerName: NFD('ＪＯＨＮ（１）'), customerNameKey: 'john(1)', customerNameBare: 'john' },
      { id: 'ivc_up1', customerName: 'KIM[2]', customerNameKey: 'kim[2]', customerNameBare: 'kim' },
    ]);
  });
});
