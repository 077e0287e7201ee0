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
});
