/**
 * The raw baseline of "deposit → live notification", each side in a child process of its own like the app instances:
 * the same hops without the framework, the ORM, matching rules, the outbox or GraphQL.
 *
 *  ingest  node:http POST /bank-notifications {depositorName, amount}: one statement pays the workspace's pending
 *          invoice of that name and amount (`UPDATE "Invoice" … WHERE id = (SELECT … FOR UPDATE) RETURNING id`), then
 *          announces {invoiceId} — to the local WebSocket clients, or with Redis PUBLISH — and answers 201.
 *  push    a `ws` WebSocketServer on /ws: sends each announcement to every client as a graphql-ws style `next` message
 *          ({"id":"1","type":"next","payload":{"data":{"invoicePaid":{"id":…}}}}); with Redis it SUBSCRIBEs first.
 *
 * One instance = one process with both roles and no Redis (what a single app instance does: in-process pub/sub);
 * two instances = an ingest process and a push process joined by Redis PUBLISH → SUBSCRIBE.
 */
import { serveChildServer, startChildServer } from './child-server.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface RawEventsOptions {
  databaseUrl: string;
  workspaceId: string;
  ingest: boolean;
  push: boolean;
  redisUrl?: string;
  poolSize: number;
}

export interface RawEventsProcess {
  url: string;
  stop(): Promise<void>;
}

const SELF = fileURLToPath(import.meta.url);
const CHANNEL_PREFIX = 'bench-raw-events:';

export function startRawEvents(opts: RawEventsOptions): Promise<RawEventsProcess> {
  return startChildServer(SELF, opts, { label: 'raw events', stopTimeoutMs: 10_000 });
}

async function runChild(o: RawEventsOptions): Promise<{ url: string; close(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const { WebSocketServer, WebSocket } = await import('ws');
  const { Redis } = await import('ioredis');
  const channel = CHANNEL_PREFIX + o.workspaceId;
  const clients = new Set<InstanceType<typeof WebSocket>>();
  const pushLocal = (invoiceId: string) => {
    const msg = JSON.stringify({ id: '1', type: 'next', payload: { data: { invoicePaid: { id: invoiceId } } } });
    for (const c of clients) if (c.readyState === WebSocket.OPEN) c.send(msg);
  };

  const pool = o.ingest ? new pg.Pool({ connectionString: o.databaseUrl, max: o.poolSize }) : null;
  const pub = o.ingest && o.redisUrl ? new Redis(o.redisUrl) : null;
  const sub = o.push && o.redisUrl ? new Redis(o.redisUrl) : null;
  if (sub) {
    await sub.subscribe(channel);
    sub.on('message', (_ch: string, invoiceId: string) => pushLocal(invoiceId));
  }
  const announce = async (invoiceId: string) => {
    if (pub) await pub.publish(channel, invoiceId);
    else pushLocal(invoiceId);
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const s = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) }).end(s);
  };
  async function ingest(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const d = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { depositorName: string; amount: number };
    const r = await pool!.query<{ id: string }>(
      `UPDATE "Invoice" SET status = 'PAID', "paidAt" = now(), "updatedAt" = now()
        WHERE id = (SELECT id FROM "Invoice" WHERE "workspaceId" = $1 AND "customerName" = $2 AND amount = $3 AND status = 'PENDING'
                     ORDER BY "createdAt" LIMIT 1 FOR UPDATE)
        RETURNING id`,
      [o.workspaceId, d.depositorName, d.amount],
    );
    const invoiceId = r.rows[0]?.id;
    if (invoiceId) await announce(invoiceId);
    send(res, 201, { invoiceId: invoiceId ?? null });
  }

  const server = createServer((req, res) => {
    if (o.ingest && req.method === 'POST' && req.url === '/bank-notifications') ingest(req, res).catch((e) => send(res, 500, { message: String(e) }));
    else send(res, 404, { code: 'NOT_FOUND' });
  });
  server.keepAliveTimeout = 60_000;
  if (o.push) {
    const wss = new WebSocketServer({ server, path: '/ws' });
    wss.on('connection', (c) => {
      clients.add(c);
      c.on('close', () => clients.delete(c));
    });
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const c of clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await pool?.end();
      pub?.disconnect();
      sub?.disconnect();
    },
  };
}

if (process.argv.includes('--child')) serveChildServer(runChild);
