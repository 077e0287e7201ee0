/**
 * Upgrading from a release whose embedded default kept its data in PGlite (DATA_DIR/pglite): the first start of this
 * release imports it into the embedded PostgreSQL server (src/db/pglite-import.ts) before it serves, once; a failed
 * import stops start-up and leaves both the old directory and the new database as they were. Real service processes.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/cli/client.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { importPGliteDataDir, openPGliteDataDir } from '../../src/db/pglite-import.ts';
import type { SqlExecutor } from '../../src/db/database.ts';
import { bankAccountSnapshot } from '../../src/domain/bank-accounts/bank-accounts.ts';
import { newId } from '../../src/domain/ids.ts';
import { invoiceSearchText } from '../../src/domain/invoices/invoice-input.ts';
import { newSecret, sha256Hex } from '../../src/domain/secrets.ts';
import { freshDatabase } from '../helpers/app.ts';
import { freePort, runScript, startServerProcess } from '../helpers/process.ts';

/** Start-up includes loading PGlite and migrating the old cluster; the machine is shared. */
const START_MS = 240_000;

interface OldData {
  apiKey: string;
  notificationToken: string;
  paidInvoiceId: string;
  pendingInvoiceId: string;
  depositId: string;
  /** Rows per table as the old release left them. */
  rows: Record<string, number>;
}

/**
 * DATA_DIR as the previous release left it: a file-backed PGlite under `<dataDir>/pglite` migrated with the migrations
 * of that release (all but the last two, which this import must apply to it first), holding an account, a workspace, a
 * verified bank account, an API key, an invoice paid by a matched deposit, a pending invoice named in full-width letters
 * (the last migration normalises names), events (one still queued in the outbox) and a history entry.
 */
async function oldDataDir(dataDir: string, opts: { memberRole?: null } = {}): Promise<OldData> {
  const db = await openPGliteDataDir(join(dataDir, 'pglite'));
  try {
    // The rows below are written in the schema of that release: its last migration was 20261125104000_outbox_queue.
    const previous = readMigrations().filter((m) => m.name <= '20261125104000_outbox_queue');
    expect(previous.length).toBeLessThan(readMigrations().length);
    await migrate(db, previous);
    const q = (sql: string, params: unknown[] = []) => db.sql.query(sql, params);
    const t0 = new Date(Date.now() - 3_600_000);
    const at = (s: number) => new Date(t0.getTime() + s * 1000);
    const accountId = newId('account');
    const workspaceId = newId('workspace');
    const bankAccountId = newId('bankAccount');
    const apiKeyId = newId('apiKey');
    const apiKey = newSecret('apiKey');
    const notificationToken = newSecret('notificationToken');
    const paidInvoiceId = newId('invoice');
    const pendingInvoiceId = newId('invoice');
    const depositId = newId('transaction');
    const [paidEvent, pendingEvent] = [newId('event'), newId('event')];

    await q(`INSERT INTO "Account" (id, email, name, "passwordHash", "createdAt") VALUES ($1, 'owner@example.com', '김사장', 'scrypt$x$y', $2)`, [accountId, t0]);
    await q(`INSERT INTO "Workspace" (id, name, "ownerId", "invoiceSeq", "eventSeq", "createdAt", "updatedAt") VALUES ($1, '가게', $2, 2, 2, $3, $3)`, [workspaceId, accountId, t0]);
    if (opts.memberRole === null) await q(`ALTER TABLE "WorkspaceMember" ALTER COLUMN role DROP NOT NULL`);
    await q(`INSERT INTO "WorkspaceMember" ("workspaceId", "accountId", role, "createdAt") VALUES ($1, $2, $3, $4)`, [workspaceId, accountId, opts.memberRole === null ? null : 'OWNER', t0]);
    const account = {
      id: bankAccountId, workspaceId, ownerId: accountId, provider: 'SHINHAN', type: 'PERSONAL', number: '110123456789', alias: 'main', active: true,
      verificationCode: '123456', verifiedAt: at(10), createdAt: at(5), updatedAt: at(10), deletedAt: null,
    };
    await q(
      `INSERT INTO "BankAccount" (id, "workspaceId", "ownerId", provider, type, number, alias, active, "verificationCode", "verifiedAt", "notificationTokenHash", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, 'SHINHAN', 'PERSONAL', $4, 'main', true, '123456', $5, $6, $7, $5)`,
      [bankAccountId, workspaceId, accountId, account.number, account.verifiedAt, sha256Hex(notificationToken), account.createdAt],
    );
    await q(
      `INSERT INTO "ApiKey" (id, "workspaceId", name, "secretHash", "secretHint", "createdById", "createdAt") VALUES ($1, $2, 'shop', $3, $4, $5, $6)`,
      [apiKeyId, workspaceId, sha256Hex(apiKey), apiKey.slice(-4), accountId, at(20)],
    );
    const invoice = `INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "createdByApiKeyId", status, "customerName", amount, "searchText", "customerNameBare",
                                            "paidAt", "paidTrigger", "createdAt", "updatedAt")
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`;
    await q(invoice, [paidInvoiceId, workspaceId, 1, accountId, apiKeyId, 'PAID', '홍길동', 12000, invoiceSearchText({ customerName: '홍길동', customerEmail: null, customerPhoneNumber: null, cashReceiptIdentifier: null }), '홍길동', at(40), 'DEPOSIT', at(30), at(40)]);
    // Full-width letters: the previous release stored no "customerNameKey"; the last migration derives it ('abc상사').
    await q(invoice, [pendingInvoiceId, workspaceId, 2, accountId, apiKeyId, 'PENDING', 'ＡＢＣ상사', 34000, 'ａｂｃ상사', 'ＡＢＣ상사', null, null, at(50), at(50)]);
    await q(
      `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText",
                                  "matchedInvoiceId", "matchMethod", "matchedAt", "receivedAt", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4::jsonb, 'n-1', 12000, '홍길동', $5, $6, 'EXACT', $7, $7, $7, $7)`,
      [depositId, workspaceId, bankAccountId, JSON.stringify(bankAccountSnapshot(account)), `${account.number}\u0001홍길동`, paidInvoiceId, at(40)],
    );
    await q(`INSERT INTO "InvoiceHistoryEntry" (id, "invoiceId", type, data, "createdAt") VALUES ($1, $2, 'PAID', '{}'::jsonb, $3)`, [newId('history'), paidInvoiceId, at(40)]);
    // Events: the first one dispatched long ago, the second still queued (the "Event" trigger queues it in "OutboxEntry").
    const event = `INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", data, "createdAt", "dispatchedAt") VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`;
    await q(event, [paidEvent, workspaceId, 1, 'invoice.paid', paidInvoiceId, JSON.stringify({ invoiceId: paidInvoiceId }), at(40), at(41)]);
    await q(`DELETE FROM "OutboxEntry" WHERE "eventId" = $1`, [paidEvent]);
    await q(event, [pendingEvent, workspaceId, 2, 'invoice.created', pendingInvoiceId, JSON.stringify({ invoiceId: pendingInvoiceId }), at(50), null]);

    const rows: Record<string, number> = {};
    for (const { t } of await db.sql.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`)) {
      rows[t] = Number((await db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${t}"`))[0].n);
    }
    expect(rows).toMatchObject({ Account: 1, Workspace: 1, WorkspaceMember: 1, BankAccount: 1, ApiKey: 1, Invoice: 2, Transaction: 1, Event: 2, OutboxEntry: 1 });
    return { apiKey, notificationToken, paidInvoiceId, pendingInvoiceId, depositId, rows };
  } finally {
    await db.close();
  }
}

const envOf = (dataDir: string) => ({ DATA_DIR: dataDir, LOG_LEVEL: 'info', DATABASE_URL: '' });

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** The info line the import logs (JSON, pino). */
function importLine(output: string): { tables: Record<string, number>; movedTo: string } | undefined {
  return output
    .split('\n')
    .filter((l) => l.includes('imported the data of an earlier release'))
    .map((l) => JSON.parse(l))[0];
}

const importedDirs = (dataDir: string) => readdirSync(dataDir).filter((n) => n.startsWith('pglite.imported-'));

/** Every row of every table of the public schema but `_prisma_migrations`, as sorted JSON text. */
async function contents(db: { sql: Pick<SqlExecutor, 'query'> }): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const { t } of await db.sql.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`)) {
    out[t] = (await db.sql.query<{ j: string }>(`SELECT to_jsonb(x)::text AS j FROM "${t}" x`)).map((r) => r.j).sort();
  }
  return out;
}

const quiet = { info() {}, warn() {} };

describe('upgrading from the PGlite data directory of an earlier release', () => {
  it('copies every row exactly, page by page (in process, pages of one row)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'btp-legacy-rows-'));
    await oldDataDir(dataDir);
    // A value no JavaScript number holds: the rows travel as JSON text.
    const old = await openPGliteDataDir(join(dataDir, 'pglite'));
    await old.sql.query(`UPDATE "Event" SET sequence = 9007199254740993 WHERE sequence = 2`);
    await old.close();
    const fresh = await freshDatabase();
    try {
      const result = await importPGliteDataDir(fresh.database, dataDir, quiet, { pageRows: 1 });
      expect(result!.tables).toMatchObject({ Invoice: 2, Event: 2, OutboxEntry: 1 });
      const imported = await openPGliteDataDir(result!.movedTo);
      try {
        const expected = await contents(imported);
        expect(expected.Event.join()).toContain('9007199254740993');
        expect(await contents(fresh.database)).toEqual(expected);
      } finally {
        await imported.close();
      }
      // Imported once: the database has data now.
      expect(await importPGliteDataDir(fresh.database, dataDir, quiet)).toBeNull();
    } finally {
      await fresh.database.close();
      await fresh.drop();
    }
  }, 300_000);

  it('imports it once at the first start: the API key, invoices (paid and pending) and the deposit are there, the directory is kept as pglite.imported-*', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'btp-legacy-'));
    const old = await oldDataDir(dataDir);

    const port = await freePort();
    const first = await startServerProcess(envOf(dataDir), port, START_MS);
    try {
      const line = importLine(first.output());
      expect(line, first.output()).toBeDefined();
      // Every table, every row: the old release's counts ("OutboxEntry" not queued a second time by the trigger), and
      // the tables of the later migrations, filled on the old cluster by those migrations before the copy.
      expect(line!.tables).toMatchObject(old.rows);
      expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
      expect(importedDirs(dataDir)).toHaveLength(1);
      expect(line!.movedTo).toBe(join(dataDir, importedDirs(dataDir)[0]));
      expect(existsSync(join(line!.movedTo, 'PG_VERSION'))).toBe(true);

      const client = new ServiceClient(`http://127.0.0.1:${port}`);
      const paid = await client.request('GET', `/v1/invoices/${old.paidInvoiceId}`, { token: old.apiKey });
      expect(paid.status).toBe(200);
      expect(paid.body.data).toMatchObject({ id: old.paidInvoiceId, paid: true, amount: 12000, customer: { name: '홍길동' } });
      const pending = await client.request('GET', `/v1/invoices/${old.pendingInvoiceId}`, { token: old.apiKey });
      expect(pending.body.data).toMatchObject({ id: old.pendingInvoiceId, paid: false, amount: 34000 });
      const deposits = await client.request('GET', `/v1/transactions?offset=0&limit=10&search=${old.paidInvoiceId}`, { token: old.apiKey });
      expect(deposits.status, JSON.stringify(deposits.body)).toBe(200);
      expect(deposits.body.data).toMatchObject([{ id: old.depositId, amount: 12000 }]);
      // The search text was normalised by the migration the import applied first: half-width finds the full-width name.
      const found = await client.request('GET', '/v1/invoices?offset=0&limit=10&search=abc', { token: old.apiKey });
      expect(found.body.data.map((i: { id: string }) => i.id)).toEqual([old.pendingInvoiceId]);

      // The imported data works as this release's: a deposit named in half-width letters pays the full-width invoice
      // (its name key comes from the migration the import applied to the old cluster), through the imported token.
      const dep = await client.deposit(old.notificationToken, { depositorName: 'ABC상사', amount: 34000 });
      expect(dep.status).toBe(201);
      const now = await client.request('GET', `/v1/invoices/${old.pendingInvoiceId}`, { token: old.apiKey });
      expect(now.body.data.paid).toBe(true);
      // Numbering continues after the imported invoices.
      const created = await client.request('POST', '/v1/invoices', { token: old.apiKey, body: { bankAccountIds: [], customer: { name: '이영희' }, amount: 5000 } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const list = await client.request('GET', '/v1/invoices?offset=0&limit=10', { token: old.apiKey });
      expect(list.body.totalItems).toBe(3);
    } finally {
      await stop(first.child);
    }

    // A second start imports nothing (even with an old directory back in place: the database has data now).
    mkdirSync(join(dataDir, 'pglite'));
    writeFileSync(join(dataDir, 'pglite', 'PG_VERSION'), '17\n');
    const port2 = await freePort();
    const second = await startServerProcess(envOf(dataDir), port2, START_MS);
    try {
      expect(importLine(second.output())).toBeUndefined();
      expect(second.output()).toContain('was not imported');
      expect(importedDirs(dataDir)).toHaveLength(1);
      const client = new ServiceClient(`http://127.0.0.1:${port2}`);
      const list = await client.request('GET', '/v1/invoices?offset=0&limit=10', { token: old.apiKey });
      expect(list.body.totalItems).toBe(3);
    } finally {
      await stop(second.child);
    }
  }, 900_000);

  it('an unreadable old directory stops start-up with a message, and the directory stays where it was', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'btp-legacy-bad-'));
    mkdirSync(join(dataDir, 'pglite'));
    writeFileSync(join(dataDir, 'pglite', 'PG_VERSION'), '17\n'); // a cluster's marker, nothing else
    const r = await runScript('start', [], { ...envOf(dataDir), PORT: String(await freePort()) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Importing the data of an earlier release from');
    expect(r.stderr).toContain('Nothing was lost');
    expect(readdirSync(join(dataDir, 'pglite'))).toEqual(['PG_VERSION']);
    expect(importedDirs(dataDir)).toEqual([]);
  }, 600_000);

  it('a copy failing half-way is rolled back: the next start imports again from the start, and succeeds once the old data is fixed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'btp-legacy-half-'));
    // "WorkspaceMember" is copied after "Account" and "Workspace" (alphabetical order); its NULL role fails the copy.
    const old = await oldDataDir(dataDir, { memberRole: null });
    const env = { ...envOf(dataDir), PORT: String(await freePort()) };
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = await runScript('start', [], env);
      expect(r.code).not.toBe(0);
      // Had "Account" and "Workspace" been committed, the second start would find data and skip the import.
      expect(r.stderr).toContain('Importing the data of an earlier release from');
      expect(r.stderr).toContain('"role"');
      expect(r.stderr).toContain('Nothing was lost');
      expect(existsSync(join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
      expect(importedDirs(dataDir)).toEqual([]);
    }

    const db = await openPGliteDataDir(join(dataDir, 'pglite'));
    await db.sql.query(`UPDATE "WorkspaceMember" SET role = 'OWNER'`);
    await db.sql.query(`ALTER TABLE "WorkspaceMember" ALTER COLUMN role SET NOT NULL`);
    await db.close();
    const port = await freePort();
    const fixed = await startServerProcess(envOf(dataDir), port, START_MS);
    try {
      expect(importLine(fixed.output())?.tables).toMatchObject(old.rows);
      const client = new ServiceClient(`http://127.0.0.1:${port}`);
      const paid = await client.request('GET', `/v1/invoices/${old.paidInvoiceId}`, { token: old.apiKey });
      expect(paid.body.data.paid).toBe(true);
    } finally {
      await stop(fixed.child);
    }
  }, 900_000);
});
