/**
 * The state table's SQL fragment says what its TypeScript predicate says (spec: States — Invoice; EXPIRED is PENDING
 * past expiresAt): for every set of effective statuses and every transition, on the database under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice } from '../../src/generated/prisma/client.ts';
import { INVOICE_STATUS_NAMES, INVOICE_TRANSITIONS, effectiveStatus, expirySql, mayStartFrom, statusSql, transitionFromSql, type InvoiceStatusName, type InvoiceTrigger } from '../../src/domain/invoices/invoice-state.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';

const now = new Date('2026-11-22T00:00:00.000Z');
const NOW_SQL = `'${now.toISOString()}'::timestamptz`;
const expiries = [null, new Date(now.getTime() - 1), now, new Date(now.getTime() + 1)];
const rows = (['PENDING', 'PAID', 'CANCELED'] as const).flatMap((status) => expiries.map((expiresAt, i) => ({ id: `${status}_${i}`, status, expiresAt })));
const NAMES: readonly InvoiceStatusName[] = INVOICE_STATUS_NAMES;
const subsets = Array.from({ length: 1 << NAMES.length }, (_, bits) => NAMES.filter((_, i) => bits & (1 << i)));

type Row = Pick<Invoice, 'id' | 'status' | 'expiresAt'>;

describe(`the invoice status SQL agrees with the state table on ${dbLabel}`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
  }, 120_000);
  afterAll(async () => {
    await db.database.close();
    await db.drop();
  });

  /** The ids of the sample rows for which `condition` holds, as the database judges it. */
  async function where(condition: string): Promise<string[]> {
    const values = rows.map((r) => `('${r.id}', '${r.status}', ${r.expiresAt ? `'${r.expiresAt.toISOString()}'::timestamptz` : 'NULL::timestamptz'})`).join(', ');
    const found = await db.database.sql.query<{ id: string }>(`SELECT id FROM (VALUES ${values}) AS t(id, status, "expiresAt") WHERE ${condition}`);
    return found.map((r) => r.id).sort();
  }
  const ids = (keep: (r: Row) => boolean) => rows.filter(keep).map((r) => r.id).sort();

  it.each(subsets.map((s) => [s.join(', ') || 'none', s] as const))('statuses %s', async (_label, statuses) => {
    expect(await where(statusSql(statuses, NOW_SQL))).toEqual(ids((r) => statuses.includes(effectiveStatus(r, now))));
  });

  it.each(Object.keys(INVOICE_TRANSITIONS) as InvoiceTrigger[])('%s may start from the same rows in SQL and in TypeScript', async (trigger) => {
    expect(await where(transitionFromSql(trigger, NOW_SQL))).toEqual(ids((r) => mayStartFrom(trigger, r, now)));
  });

  it('the expiry filter: past expiresAt (at now exactly, expired), or no expiry or not yet', async () => {
    expect(await where(expirySql(true, NOW_SQL))).toEqual(ids((r) => r.expiresAt !== null && r.expiresAt <= now));
    expect(await where(expirySql(false, NOW_SQL))).toEqual(ids((r) => r.expiresAt === null || r.expiresAt > now));
  });

  it('the deposit payment starts only from a pending invoice that has not expired', async () => {
    expect(await where(transitionFromSql('DEPOSIT_MATCH', NOW_SQL))).toEqual(['PENDING_0', 'PENDING_3']);
  });
});
