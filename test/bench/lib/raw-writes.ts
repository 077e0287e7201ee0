/**
 * The raw baseline of the embedded and rate scenarios: plain `node:http` in a child process of its own (so its CPU is
 * its own and it shares no event loop), doing the app's essential writes with no framework, ORM, GraphQL or matching
 * rules, over a pluggable database:
 *
 *   { kind: 'pg', url, poolSize }   a `pg` Pool on a PostgreSQL URL: the external PostgreSQL, or the PostgreSQL
 *                                   server the app runs as its embedded database (the URL found under DATA_DIR,
 *                                   lib/embedded-db.ts);
 *   { kind: 'pglite', dataDir }     its own PGlite (in this process, as the app has it) on a data directory, e.g. a
 *                                   copy of the app's.
 *
 * Routes (the same requests the app gets):
 *   POST /v1/invoices        API key by SHA-256 of the bearer (joined to the owner); in one transaction the advisory
 *                            lock, the conflict check, and one statement writing the workspace's numbers, the invoice,
 *                            its history line and `invoice.created` event (raw-server.ts's `full` writes, in the app's
 *                            three statements: on PGlite each statement costs more than its rows); 201.
 *   POST /bank-notifications one statement: the bank account by its token's SHA-256, the oldest pending invoice of the
 *                            deposit's exact name key and amount that can receive on the account (locked), paid (the
 *                            app's UPDATE), and the deposit row inserted linked to it (EXACT); 201.
 *
 *   const raw = await startRawWrites({ kind: 'pg', url, poolSize: 10 }); raw.url; await raw.cpuMs(); await raw.stop();
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serveChildServer, startChildServer } from './child-server.ts';
import { createdBody } from './raw-server.ts';

export type RawDatabase = { kind: 'pg'; url: string; poolSize: number } | { kind: 'pglite'; dataDir: string };

export interface RawWrites {
  url: string;
  pid: number;
  /** CPU (user + system) the child has used so far, ms. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

const SELF = fileURLToPath(import.meta.url);

/** `flags`: which of `npm start`'s flag sets the process runs with (that of the app it is compared with). */
export function startRawWrites(db: RawDatabase, flags: 'embedded' | 'postgres' = 'postgres'): Promise<RawWrites> {
  return startChildServer(SELF, db, { label: 'raw writes', flags });
}

// ───────────────────────────── the child ─────────────────────────────

type Q = <T>(sql: string, params?: unknown[]) => Promise<T[]>;
interface Db {
  query: Q;
  transaction<T>(fn: (q: Q) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The application_name of the raw baseline's connections. */
export const RAW_APPLICATION_NAME = 'bench-raw-writes';

async function openDb(d: RawDatabase): Promise<Db> {
  if (d.kind === 'pg') {
    const { default: pg } = await import('pg');
    // Named, so that a bench sharing the server with the app can tell these backends from the app's (embedded.ts).
    const pool = new pg.Pool({ connectionString: d.url, max: d.poolSize, application_name: RAW_APPLICATION_NAME });
    pool.on('error', () => {});
    // Every statement prepared on each connection (the app prepares its hot statements): the texts here are fixed.
    const names = new Map<string, string>();
    const named = (text: string, values?: unknown[]) => {
      let name = names.get(text);
      if (!name) names.set(text, (name = `raw_${names.size}`));
      return { name, text, values };
    };
    return {
      query: async (sql, params) => (await pool.query(named(sql, params))).rows,
      async transaction(fn) {
        const c = await pool.connect();
        try {
          await c.query('BEGIN');
          const r = await fn(async (sql, params) => (await c.query(named(sql, params))).rows);
          await c.query('COMMIT');
          return r;
        } catch (e) {
          await c.query('ROLLBACK').catch(() => {});
          throw e;
        } finally {
          c.release();
        }
      },
      close: () => pool.end(),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const db = await PGlite.create({ dataDir: d.dataDir, extensions: { pg_trgm } });
  return {
    query: async (sql, params) => (await db.query(sql, params)).rows as never,
    transaction: (fn) => db.transaction((tx) => fn(async (sql, params) => (await tx.query(sql, params)).rows as never)),
    close: () => db.close(),
  };
}

async function runChild(d: RawDatabase): Promise<{ url: string; close(): Promise<void> }> {
  const { CONFLICT } = await import('./raw-server.ts');
  const { depositNameKey, invoiceNameColumns, nameLength } = await import('../../../src/domain/deposits/depositor-name.ts');
  const db = await openDb(d);
  const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const id = (prefix: string) => {
    const b = randomBytes(48);
    let s = '';
    for (let i = 0; i < b.length && s.length < 24; i++) if (b[i] < 252) s += ALPHABET[b[i] % 36];
    return prefix + s;
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
  };
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  };
  const bearer = (req: IncomingMessage) => /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;

  // raw-server.ts's `full` writes (the workspace's numbers, the invoice, its history line and event) in one statement.
  const CREATE_WRITES = `WITH seq AS (
      UPDATE "Workspace" SET "invoiceSeq" = "invoiceSeq" + 1, "eventSeq" = "eventSeq" + 1 WHERE id = $2 RETURNING "invoiceSeq", "eventSeq"
    ), inv AS (
      INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "createdByApiKeyId", "bankAccountIds", "customerName", "customerEmail",
                             "customerPhoneNumber", "cashReceiptType", "cashReceiptIdentifier", amount, metadata, "searchText", "expiresAt",
                             "createdAt", "updatedAt", "customerNameKey", "customerNameBare")
      SELECT $1, $2, seq."invoiceSeq", $3, $4, $5::text[], $6, NULL, NULL, NULL, NULL, $7::int, NULL, $8, NULL, $9::timestamptz, $9::timestamptz, $10, $11
        FROM seq RETURNING *
    ), history AS (
      INSERT INTO "InvoiceHistoryEntry" (id, "invoiceId", type, actor, data, "createdAt") SELECT $12, inv.id, 'created', $13::jsonb, NULL, $9::timestamptz FROM inv
    ), event AS (
      INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", data, "createdAt")
      SELECT $14, $2, seq."eventSeq", 'invoice.created', $1, NULL, $5::text[], jsonb_build_object('invoice', to_jsonb(inv)), $9::timestamptz FROM seq, inv
    )
    SELECT * FROM inv`;

  async function create(req: IncomingMessage, res: ServerResponse) {
    const token = bearer(req);
    if (!token) return send(res, 401, { code: 'UNAUTHORIZED' });
    const [key] = await db.query<{ id: string; workspaceId: string; name: string; readOnly: boolean; deletedAt: Date | null; disabledAt: Date | null; expiresAt: Date | null; ownerId: string }>(
      `SELECT k.id, k."workspaceId", k.name, k."readOnly", k."deletedAt", k."disabledAt", k."expiresAt", w."ownerId"
         FROM "ApiKey" k JOIN "Workspace" w ON w.id = k."workspaceId" WHERE k."secretHash" = $1`,
      [createHash('sha256').update(token).digest('hex')],
    );
    const now = new Date();
    if (!key || key.deletedAt || key.disabledAt || (key.expiresAt && key.expiresAt <= now)) return send(res, 401, { code: 'UNAUTHORIZED' });
    if (key.readOnly) return send(res, 403, { code: 'FORBIDDEN' });
    const body = await readBody(req);
    const name = body?.customer?.name;
    const amount = body?.amount;
    const bankAccountIds: string[] = Array.isArray(body?.bankAccountIds) ? body.bankAccountIds : [];
    if (typeof name !== 'string' || nameLength(name) < 1 || nameLength(name) > 16 || /\s/u.test(name)) return send(res, 400, { code: 'INVALID_CUSTOMER_NAME' });
    if (!Number.isSafeInteger(amount) || amount <= 0) return send(res, 400, { code: 'INVALID_AMOUNT' });
    const names = invoiceNameColumns(name);
    const invoice = await db.transaction(async (q) => {
      await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))::text AS locked`, [`${key.workspaceId}\u0001${names.customerNameKey}\u0001${amount}`]);
      const conflict = await q(CONFLICT, [key.workspaceId, names.customerNameKey, amount, now.toISOString(), '', bankAccountIds]);
      if (conflict.length) return null;
      // The writes in one statement, as the app's create does them (PGlite pays per statement more than per row).
      const [inv] = await q<Record<string, any>>(CREATE_WRITES, [
        id('ivc_'),
        key.workspaceId,
        key.ownerId,
        key.id,
        bankAccountIds,
        name,
        amount,
        name.replace(/-/g, '').toLowerCase(),
        now,
        names.customerNameKey,
        names.customerNameBare,
        id('ivh_'),
        JSON.stringify({ type: 'SECRET_API_KEY', accountId: null, apiKeyId: key.id, name: key.name }),
        id('evt_'),
      ]);
      return inv;
    });
    if (!invoice) return send(res, 409, { code: 'INVOICE_ALREADY_EXISTS' });
    send(res, 201, createdBody(invoice));
  }

  // One statement is one transaction: the account, the candidate locked, its payment, the deposit row.
  const DEPOSIT = `WITH a AS (
      SELECT id, "workspaceId", number, alias, provider, type FROM "BankAccount" WHERE "notificationTokenHash" = $1 AND "deletedAt" IS NULL
    ), c AS (
      SELECT i.id FROM "Invoice" i, a
       WHERE i."workspaceId" = a."workspaceId" AND i."customerNameKey" = $2 AND i.amount = $3 AND i.status = 'PENDING'
         AND (i."expiresAt" IS NULL OR i."expiresAt" > $4::timestamptz)
         AND (cardinality(i."bankAccountIds") = 0 OR a.id = ANY(i."bankAccountIds"))
       ORDER BY i."createdAt" LIMIT 1 FOR UPDATE OF i
    ), p AS (
      UPDATE "Invoice" SET status = 'PAID', "paidAt" = $4::timestamptz, "paidTrigger" = 'DEPOSIT', "updatedAt" = $4::timestamptz
       WHERE id = (SELECT id FROM c) AND status = 'PENDING' RETURNING id
    )
    INSERT INTO "Transaction" (id, "workspaceId", "bankAccountId", "bankAccountSnapshot", "notificationId", amount, description, "searchText",
                               hidden, verification, "receivedAt", "createdAt", "updatedAt", "matchedInvoiceId", "matchMethod", "matchedAt")
    SELECT $5, a."workspaceId", a.id, jsonb_build_object('id', a.id, 'alias', a.alias, 'provider', a.provider, 'type', a.type, 'number', a.number),
           $6, $3, $7, lower(replace(a.number, '-', '')) || chr(1) || $8, false, false, $9::timestamptz, $4::timestamptz, $4::timestamptz,
           p.id, CASE WHEN p.id IS NOT NULL THEN 'EXACT'::"MatchMethod" END, CASE WHEN p.id IS NOT NULL THEN $4::timestamptz END
      FROM a LEFT JOIN p ON true
    RETURNING id, "matchedInvoiceId"`;

  async function deposit(req: IncomingMessage, res: ServerResponse) {
    const token = bearer(req);
    if (!token) return send(res, 401, { code: 'UNAUTHORIZED' });
    const n = await readBody(req);
    if (typeof n?.depositorName !== 'string' || !Number.isSafeInteger(n?.amount) || typeof n?.notificationId !== 'string') return send(res, 400, { code: 'INVALID' });
    const now = new Date().toISOString();
    const key = depositNameKey(n.depositorName);
    const [row] = await db.query<{ id: string; matchedInvoiceId: string | null }>(DEPOSIT, [
      createHash('sha256').update(token).digest('hex'),
      key,
      n.amount,
      now,
      id('trx_'),
      n.notificationId,
      n.depositorName,
      key.replace(/-/g, '').toLowerCase(),
      n.receivedAt ?? now,
    ]);
    if (!row) return send(res, 401, { code: 'UNAUTHORIZED' });
    send(res, 201, { code: 'CREATED', data: row });
  }

  const server = createServer((req, res) => {
    const route = req.method === 'POST' && req.url === '/v1/invoices' ? create : req.method === 'POST' && req.url === '/bank-notifications' ? deposit : null;
    if (!route) return send(res, 404, { code: 'NOT_FOUND' });
    route(req, res).catch((e) => send(res, 500, { code: 'INTERNAL_SERVER_ERROR', message: String(e) }));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await db.close();
    },
  };
}

if (process.argv.includes('--child')) serveChildServer(runChild);
