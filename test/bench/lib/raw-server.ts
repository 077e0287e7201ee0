/**
 * The raw baseline for POST /v1/invoices: plain `node:http` + a `pg` Pool, no framework, no ORM. It does the
 * essential work of a create with the same SQL semantics as the app:
 *   - authentication: the API key looked up by the SHA-256 of the bearer token (joined to its workspace's owner);
 *   - in one transaction: the advisory lock and the conflict-check SELECT of findConflictingInvoice, the per-workspace
 *     number (UPDATE "Workspace" ... RETURNING, which the unique (workspaceId, number) needs), and the INSERT into
 *     "Invoice" with the same columns the app writes;
 *   - a 201 JSON answer with the v1 invoice shape.
 * With `full: true` it also writes what the app writes besides the invoice (the history line and the outbox event
 * with its sequence), so the gap between the two raw variants is the cost of those extra writes and the gap between
 * `full` and the app is framework + ORM overhead.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { invoiceNameColumns, nameLength } from '../../../src/domain/deposits/depositor-name.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
function id(prefix: string): string {
  const b = randomBytes(48);
  let s = '';
  for (let i = 0; i < b.length && s.length < 24; i++) if (b[i] < 252) s += ALPHABET[b[i] % 36];
  return prefix + s;
}

interface KeyRow {
  id: string;
  workspaceId: string;
  name: string;
  readOnly: boolean;
  deletedAt: Date | null;
  disabledAt: Date | null;
  expiresAt: Date | null;
  ownerId: string;
}

const INSERT_INVOICE = `INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "createdByApiKeyId", "bankAccountIds", "customerName",
    "customerEmail", "customerPhoneNumber", "cashReceiptType", "cashReceiptIdentifier", amount, metadata, "searchText", "expiresAt",
    "createdAt", "updatedAt", "customerNameKey", "customerNameBare")
  VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, $9, NULL, NULL, $10, NULL, $11, NULL, $12, $12, $13, $14) RETURNING *`;

export const CONFLICT = `SELECT id, number FROM "Invoice"
  WHERE "workspaceId" = $1 AND "customerNameKey" = $2 AND amount = $3 AND status = 'PENDING'
    AND ("expiresAt" IS NULL OR "expiresAt" > $4::timestamptz)
    AND id <> $5
    AND (cardinality("bankAccountIds") = 0 OR cardinality($6::text[]) = 0 OR "bankAccountIds" && $6::text[])
  LIMIT 1`;

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The v1 answer to a created invoice, as both raw baselines send it (the same bytes as the app's). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a row as pg returns it
export function createdBody(invoice: Record<string, any>) {
  return {
    code: 'CREATED',
    data: {
      id: invoice.id,
      bankAccountIds: invoice.bankAccountIds,
      customer: { name: invoice.customerName, email: invoice.customerEmail, phoneNumber: invoice.customerPhoneNumber },
      cashReceipt: null,
      amount: invoice.amount,
      paid: false,
      metadata: invoice.metadata,
      createdAt: new Date(invoice.createdAt).toISOString(),
      expiresAt: invoice.expiresAt,
      status: 'PENDING',
    },
  };
}

export interface RawServer {
  url: string;
  close(): Promise<void>;
}

export async function startRawServer(databaseUrl: string, opts: { poolSize: number; full: boolean }): Promise<RawServer> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: opts.poolSize });
  pool.on('error', () => {});

  async function create(req: IncomingMessage, res: ServerResponse) {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!m) return send(res, 401, { code: 'UNAUTHORIZED' });
    const hash = createHash('sha256').update(m[1]).digest('hex');
    const keys = await pool.query<KeyRow>(
      `SELECT k.id, k."workspaceId", k.name, k."readOnly", k."deletedAt", k."disabledAt", k."expiresAt", w."ownerId"
         FROM "ApiKey" k JOIN "Workspace" w ON w.id = k."workspaceId" WHERE k."secretHash" = $1`,
      [hash],
    );
    const key = keys.rows[0];
    const now = new Date();
    if (!key || key.deletedAt || key.disabledAt || (key.expiresAt && key.expiresAt <= now)) return send(res, 401, { code: 'UNAUTHORIZED' });
    if (key.readOnly) return send(res, 403, { code: 'FORBIDDEN' });
    const body = JSON.parse(await readBody(req));
    const name = body?.customer?.name;
    const amount = body?.amount;
    const bankAccountIds: string[] = Array.isArray(body?.bankAccountIds) ? body.bankAccountIds : [];
    if (typeof name !== 'string' || nameLength(name) < 1 || nameLength(name) > 16 || /\s/u.test(name)) return send(res, 400, { code: 'INVALID_CUSTOMER_NAME' });
    const names = invoiceNameColumns(name);
    if (!Number.isSafeInteger(amount) || amount <= 0) return send(res, 400, { code: 'INVALID_AMOUNT' });

    const client = await pool.connect();
    let invoice: Record<string, any>;
    try {
      await client.query('BEGIN');
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))::text AS locked`, [`${key.workspaceId}\u0001${names.customerNameKey}\u0001${amount}`]);
      const conflict = await client.query(CONFLICT, [key.workspaceId, names.customerNameKey, amount, now.toISOString(), '', bankAccountIds]);
      if (conflict.rows.length) {
        await client.query('ROLLBACK');
        return send(res, 409, { code: 'INVOICE_ALREADY_EXISTS' });
      }
      const seq = await client.query<{ invoiceSeq: number; eventSeq: string }>(
        `UPDATE "Workspace" SET "invoiceSeq" = "invoiceSeq" + 1, "eventSeq" = "eventSeq" + $2 WHERE id = $1 RETURNING "invoiceSeq", "eventSeq"`,
        [key.workspaceId, opts.full ? 1 : 0],
      );
      const searchText = name.replace(/-/g, '').toLowerCase();
      const inserted = await client.query(INSERT_INVOICE, [
        id('ivc_'),
        key.workspaceId,
        seq.rows[0].invoiceSeq,
        key.ownerId,
        key.id,
        bankAccountIds,
        name,
        null,
        null,
        amount,
        searchText,
        now,
        names.customerNameKey,
        names.customerNameBare,
      ]);
      invoice = inserted.rows[0];
      if (opts.full) {
        const actor = { type: 'SECRET_API_KEY', accountId: null, apiKeyId: key.id, name: key.name };
        await client.query(`INSERT INTO "InvoiceHistoryEntry" (id, "invoiceId", type, actor, data, "createdAt") VALUES ($1, $2, 'created', $3, NULL, $4)`, [
          id('ivh_'),
          invoice.id,
          actor,
          now,
        ]);
        await client.query(
          `INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", data, "createdAt")
           VALUES ($1, $2, $3, 'invoice.created', $4, NULL, $5::text[], $6, $7)`,
          [id('evt_'), key.workspaceId, seq.rows[0].eventSeq, invoice.id, bankAccountIds, { invoice }, now],
        );
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
    send(res, 201, createdBody(invoice));
  }

  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/invoices') {
      create(req, res).catch((e) => send(res, 500, { code: 'INTERNAL_SERVER_ERROR', message: String(e) }));
    } else send(res, 404, { code: 'NOT_FOUND' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await pool.end();
    },
  };
}
