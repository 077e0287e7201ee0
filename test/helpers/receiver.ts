/** A local webhook receiver that records requests and answers what the test scripts. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
  at: number;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Status to answer for the n-th request (0-based); default 200. */
  respond: (n: number, r: Received) => number | 'hang' | 'reset' = () => 200;
  private server!: Server;
  url = '';
  private waiters: { pred: (r: Received[]) => boolean; resolve: () => void }[] = [];

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const r: Received = { headers: req.headers, body, json: safeJson(body), at: Date.now() };
        const n = this.received.length;
        this.received.push(r);
        const answer = this.respond(n, r);
        this.waiters = this.waiters.filter((w) => (w.pred(this.received) ? (w.resolve(), false) : true));
        if (answer === 'hang') return;
        if (answer === 'reset') return req.socket.destroy();
        res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** Resolves when `pred` holds for the requests so far (or rejects after `timeoutMs`). */
  waitFor(pred: (r: Received[]) => boolean, timeoutMs = 15_000): Promise<void> {
    if (pred(this.received)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver timed out with ${this.received.length} requests: ${JSON.stringify(this.received.map((x) => x.json?.type))}`)), timeoutMs);
      this.waiters.push({ pred, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  ofType(type: string): Received[] {
    return this.received.filter((r) => r.json?.type === type);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

function safeJson(s: string): any {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
