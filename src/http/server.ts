/** Node's HTTP server around the router: slow-client limits, GraphQL over WebSocket on /graphql, and a graceful stop. */
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServerAdapter } from '@whatwg-node/server';
import { WebSocketServer } from 'ws';
import type { Config } from '../config/config.ts';
import { bankNotificationBody, DomainError } from '../domain/errors.ts';

/** Answers a request; `clientAddress` is the socket's peer (undefined in-process). */
export type RequestHandler = (request: Request, clientAddress: string | undefined) => Promise<Response>;

export interface HttpServer {
  /** In-process request handling (no socket), counted as in flight like a socket's. */
  fetch(request: Request, serverContext?: { req?: { socket?: { remoteAddress?: string } } }): Promise<Response>;
  /** Listens on config.PORT and serves `serveWebSocket` on /graphql. */
  start(serveWebSocket: (wss: WebSocketServer) => void): Promise<{ port: number; url: string }>;
  /** Stops accepting, tells WebSocket clients to go elsewhere (1001), and waits up to graceMs for requests in flight. */
  drain(graceMs: number): Promise<void>;
  /** Closes every connection that is left. */
  close(): Promise<void>;
}

/** How long a drain lets requests already sent reach the server before it stops accepting and closes idle connections. */
const DRAIN_SETTLE_MS = 150;

export function createHttpServer(config: Config, handle: RequestHandler): HttpServer {
  let server: Server | null = null;
  let wss: WebSocketServer | null = null;
  let closed: Promise<void> = Promise.resolve();
  let inFlight = 0;

  const fetch: HttpServer['fetch'] = async (request, serverContext) => {
    inFlight++;
    try {
      return await handle(request, serverContext?.req?.socket?.remoteAddress);
    } finally {
      inFlight--;
    }
  };

  return {
    fetch,
    async start(serveWebSocket) {
      // Slow-loris protection: headers and the whole request must arrive in time (checked every second), else 408.
      // Idle keep-alive connections outlive a load balancer's usual 60 s idle timeout, so the client side closes first.
      server = createServer(
        { headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS, requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000, keepAliveTimeout: 65_000 },
        createServerAdapter(fetch as (r: Request, ctx: object) => Promise<Response>),
      );
      server.on('clientError', answerMalformedRequest);
      // A client may close its sending side once its request is written (HTTP/1.1 allows it; netcat, some HTTP/1.0
      // clients and proxies do). Node would then abort the request and close the connection unanswered if the answer
      // was not written yet (any request that waits on the database); with this it finishes the answer, then closes.
      (server as unknown as { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
      wss = new WebSocketServer({ server, path: '/graphql', maxPayload: config.MAX_BODY_BYTES });
      serveWebSocket(wss);
      const s = server;
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(config.PORT, config.HOST, () => resolve());
      });
      closed = new Promise<void>((r) => s.once('close', () => r()));
      const port = (s.address() as AddressInfo).port;
      return { port, url: `http://127.0.0.1:${port}` };
    },
    async drain(graceMs) {
      const deadline = Date.now() + graceMs;
      if (wss) for (const client of wss.clients) client.close(1001, 'Server shutting down');
      // A request already on the wire but not yet parsed sits on a connection Node counts as idle: closing idle
      // connections at once would reset it (ECONNRESET) instead of answering it. Such requests are parsed within
      // moments; then no new connection is accepted, idle ones are closed, and the requests in flight finish.
      await new Promise((r) => setTimeout(r, Math.min(DRAIN_SETTLE_MS, graceMs)));
      server?.close();
      server?.closeIdleConnections?.();
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    },
    async close() {
      const w = wss;
      if (w) {
        for (const client of w.clients) client.terminate();
        await new Promise<void>((r) => w.close(() => r()));
      }
      server?.closeAllConnections?.();
      await closed;
    },
  };
}

/**
 * A request Node's HTTP parser refused before any handler saw it (an unreadable request or header, headers too large,
 * a request that did not arrive in time) is answered in the {code, message} body with its status, and closed.
 */
function answerMalformedRequest(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, body: answer } = bankNotificationBody(
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'REQUEST_HEADER_FIELDS_TOO_LARGE'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : new DomainError('BAD_REQUEST', { message: 'The request is not readable HTTP/1.1.' }),
  );
  const body = JSON.stringify(answer);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
