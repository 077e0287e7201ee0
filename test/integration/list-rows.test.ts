/**
 * A page of a list whose query selects none of the item's relations reads its rows with one driver statement
 * (rowsByIds in src/graphql/common/pagination.ts) instead of Prisma: the rows must be the objects Prisma's findMany
 * gives — the same fields, values and types (Date, parsed JSON, arrays, enum labels, null) — with every optional column
 * set and unset, on each listed model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsByIds, type ListedModel } from '../../src/graphql/common/pagination.ts';
import type { GraphQLContext } from '../../src/graphql/context.ts';
import { workspaceRowsSql } from '../helpers/sql-fixtures.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';

describe(`list rows read by the driver, as Prisma reads them, on ${dbLabel}`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase();
    await db.database.sql.transaction(async (q) => {
      for (const statement of workspaceRowsSql('lrows')) await q.query(statement);
      // Every optional column set (…full) and unset (…bare); JSON of each shape: object, array, string, number, JSON null.
      await q.query(
        `INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "createdByApiKeyId", status, "bankAccountIds", "customerName", "customerNameKey",
                                "customerNameBare", "customerEmail", "customerPhoneNumber", "cashReceiptType", "cashReceiptIdentifier", amount, metadata,
                                "searchText", "expiresAt", "paidAt", "paidTrigger", "canceledAt", "cancelReason", "canceledBy", "deletedViaV1",
                                "guideEmailSentAt", "createdAt", "updatedAt")
           VALUES ('ivc_lrowsfull', 'wsp_lrows', 1, 'acc_lrows', 'apk_lrows', 'CANCELED', ARRAY['bac_lrows', 'bac_other'], '홍길동', '홍길동', '홍길동',
                   'a@example.com', '01012345678', 'CORPORATE', '1234567890', 10000, '{"b": "2", "a": "1", "nested": {"x": [1, 2.5, null, true]}}',
                   'x', '2026-01-02T03:04:05.678Z', '2026-01-01T00:00:00.001Z', 'API_CALL', '2026-01-03T00:00:00Z', 'why',
                   '{"type": "DASHBOARD", "accountId": "acc_lrows", "apiKeyId": null, "name": "n"}', true,
                   '2026-01-01T12:00:00.5Z', '2025-12-31T15:00:00Z', '2026-01-03T00:00:00.999Z'),
                  ('ivc_lrowsbare', 'wsp_lrows', 2, 'acc_lrows', NULL, 'PENDING', '{}', '김', '김', '김', NULL, NULL, NULL, NULL, 1, NULL,
                   'y', NULL, NULL, NULL, NULL, NULL, NULL, false, NULL, '1999-12-31T23:59:59.999Z', '2000-01-01T00:00:00Z'),
                  ('ivc_lrowsjsonarr', 'wsp_lrows', 3, 'acc_lrows', NULL, 'PAID', '{bac_lrows}', '이', '이', '이', NULL, NULL, 'PERSONAL', '01000000000',
                   2, '[1, "a", {"k": null}]', 'z', NULL, now(), 'DEPOSIT', NULL, NULL, 'null', false, NULL, now(), now()),
                  ('ivc_lrowsjsonstr', 'wsp_lrows', 4, 'acc_lrows', NULL, 'PENDING', '{}', '박', '박', '박', NULL, NULL, NULL, NULL, 3, '"text"',
                   'w', NULL, NULL, NULL, NULL, NULL, '12.5', false, NULL, now(), now())`,
      );
      await q.query(
        `INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText", hidden,
                                    verification, "matchedInvoiceId", "matchMethod", "matchedAt", "matchNote", "receivedAt", "createdAt", "updatedAt", "deletedAt")
           VALUES ('trx_lrowsfull', 'wsp_lrows', 'bac_lrows', '{"id": "bac_lrows", "active": true, "createdAt": "2026-01-01T00:00:00.000Z", "verifiedAt": null}',
                   'n1', 10000, '홍길동', 'x', true, true, 'ivc_lrowsfull', 'BRACKET_REMOVAL', '2026-01-01T00:00:00.001Z',
                   '{"reason": "AMBIGUOUS", "candidateInvoiceIds": ["ivc_a", "ivc_b"]}', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00.002Z',
                   '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z'),
                  ('trx_lrowsbare', 'wsp_lrows', 'bac_lrows', '{}', 'n2', 1, '김', 'y', false, false, NULL, NULL, NULL, NULL, now(), now(), now(), NULL)`,
      );
      await q.query(
        `INSERT INTO "CashReceipt" (id, "workspaceId", "issuerId", status, kind, "corpNum", type, identifier, amount, "supplyCost", tax, "relatedInvoiceId",
                                    "originalId", partial, "cancelReason", "canceledAmount", "remainingAmount", "reissuedFromId", "reissuedToId", "selfIssued",
                                    "ntsConfirmNum", "ntsResultCode", "agencyKey", "failureReason", "searchText", "issuedAt", "confirmedAt", "revokedAt",
                                    "canceledAt", "deletedAt", "updatedAt")
           VALUES ('crt_lrowsbare', 'wsp_lrows', 'acc_lrows', 'PENDING', 'ORIGINAL', '1234567890', 'PERSONAL', '01012345678', 1100, 1000, 100, NULL,
                   NULL, false, NULL, 0, 1100, NULL, NULL, false, NULL, NULL, 'k1', NULL, 'x', now(), NULL, NULL, NULL, NULL, now()),
                  ('crt_lrowsfull', 'wsp_lrows', 'acc_lrows', 'CANCELED', 'CANCELLATION', '1234567890', 'CORPORATE', '1234567890', 1100, 1000, 100,
                   'ivc_lrowsfull', 'crt_lrowsbare', true, 'reason', 500, 600, 'crt_from', 'crt_to', true, 'NTS1', '0000', 'k2', 'refused', 'y',
                   '2026-01-01T00:00:00.123Z', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z', '2026-01-04T00:00:00Z', '2026-01-05T00:00:00Z', now())`,
      );
    });
  }, 120_000);
  afterAll(async () => {
    await db.database.close();
    await db.drop();
  });

  const CASES: { model: ListedModel; ids: string[]; prisma: (ids: string[]) => Promise<{ id: string }[]> }[] = [
    {
      model: 'Invoice',
      ids: ['ivc_lrowsfull', 'ivc_lrowsbare', 'ivc_lrowsjsonarr', 'ivc_lrowsjsonstr'],
      prisma: (ids) => db.database.prisma.invoice.findMany({ where: { id: { in: ids } } }),
    },
    { model: 'Transaction', ids: ['trx_lrowsfull', 'trx_lrowsbare'], prisma: (ids) => db.database.prisma.transaction.findMany({ where: { id: { in: ids } } }) },
    { model: 'CashReceipt', ids: ['crt_lrowsfull', 'crt_lrowsbare'], prisma: (ids) => db.database.prisma.cashReceipt.findMany({ where: { id: { in: ids } } }) },
  ];

  for (const c of CASES) {
    it(`${c.model}: the same objects as prisma.findMany, optional columns set and unset`, async () => {
      const ctx = { deps: { sql: db.database.sql } } as unknown as Pick<GraphQLContext, 'deps'>;
      const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
      const fromDriver = byId(await rowsByIds<{ id: string }>(ctx, c.model, [...c.ids, 'missing_id']));
      const fromPrisma = byId(await c.prisma(c.ids));
      expect(fromPrisma).toHaveLength(c.ids.length);
      // Strict: the same keys in the same order, the same classes (Date, arrays, plain objects), the same values.
      expect(fromDriver).toStrictEqual(fromPrisma);
      for (let i = 0; i < fromPrisma.length; i++) expect(Object.keys(fromDriver[i]!)).toEqual(Object.keys(fromPrisma[i]!));
      expect(JSON.stringify(fromDriver)).toBe(JSON.stringify(fromPrisma));
    });
  }

  it('an empty page reads nothing', async () => {
    const ctx = { deps: { sql: db.database.sql } } as unknown as Pick<GraphQLContext, 'deps'>;
    expect(await rowsByIds(ctx, 'Invoice', [])).toEqual([]);
  });
});
