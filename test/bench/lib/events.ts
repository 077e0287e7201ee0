/**
 * Probes of the events scenario (run in the bench process; the servers are child processes):
 *
 *  - subscribeApp / subscribeRaw: a graphql-ws `invoicePaid` subscriber on an app instance, or a plain `ws` client of
 *    the raw baseline's push server; both report (invoiceId, arrival time).
 *  - pacedDeposits: an OPEN loop of deposit notifications at a fixed rate (deposit i is sent at start + i/rate whether
 *    or not earlier ones have answered), each meant for one pending invoice; latency = arrival of the subscription
 *    message naming that invoice − the moment its HTTP request was sent.
 *  - WebhookSink: the webhook receiver (plain node:http, answers 200), and sendSignedPosts: the raw baseline of webhook
 *    delivery, N signed POSTs from a child process (lib/webhook-sender.ts) with a fixed concurrency.
 */
import { fork } from 'node:child_process';
import http, { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { DepositTarget } from './seed.ts';
import { percentile, summarize, type LatencySummary } from './stats.ts';

export interface Subscriber {
  /** Called with each paid invoice id and performance.now() at arrival. */
  handler: (invoiceId: string, at: number) => void;
  close(): Promise<void>;
}

/** `subscription { invoicePaid { id } }` over graphql-ws with an API key; resolves once a first message would flow. */
export async function subscribeApp(baseUrl: string, apiKey: string): Promise<Subscriber & { errors: unknown[] }> {
  const errors: unknown[] = [];
  let closed = false;
  const client = createClient({
    url: baseUrl.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${apiKey}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: (e) => errors.push(e),
  });
  const sub: Subscriber & { errors: unknown[] } = {
    errors,
    handler: () => {},
    async close() {
      if (closed) return;
      closed = true;
      dispose();
      await client.dispose();
    },
  };
  const dispose = client.subscribe<{ invoicePaid: { id: string } }>(
    { query: 'subscription { invoicePaid { id } }' },
    {
      next: (v) => {
        const at = performance.now();
        if (v.errors) errors.push(v.errors);
        else if (v.data) sub.handler(v.data.invoicePaid.id, at);
      },
      error: (e) => errors.push(e),
      complete: () => {},
    },
  );
  // graphql-ws has no per-subscription acknowledgement; the warm-up deposits confirm messages flow.
  await new Promise((r) => setTimeout(r, 300));
  return sub;
}

/** A plain `ws` client of the raw baseline's push server (/ws). */
export async function subscribeRaw(baseUrl: string): Promise<Subscriber> {
  const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/ws');
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const sub: Subscriber = {
    handler: () => {},
    async close() {
      ws.terminate();
    },
  };
  ws.on('message', (data) => {
    const at = performance.now();
    const m = JSON.parse(String(data)) as { payload: { data: { invoicePaid: { id: string } } } };
    sub.handler(m.payload.data.invoicePaid.id, at);
  });
  return sub;
}

export interface PacedResult {
  /** Deposits sent (the targets less the shed ones). */
  sent: number;
  /** Deposits not sent because `maxInFlight` requests were already waiting for an answer (the server is saturated). */
  shed: number;
  /** Whether target i was sent. */
  sentMask: boolean[];
  /** Notification latency: subscription message − request sent. */
  latency: LatencySummary;
  /** The notification latencies themselves (ms; received deposits only), to pool rounds. */
  latencies: number[];
  /** HTTP latency of the deposit requests (response − request). */
  http: LatencySummary;
  /** Subscription message − HTTP response of the same deposit: the part after the commit (outbox → bus → subscriber). */
  afterAnswer: LatencySummary;
  /** Deposits answered per second (first request to last answer): below the offered rate, the server is saturated. */
  answeredRate: number;
  received: number;
  missing: number;
  statuses: Record<string, number>;
  firstError: string | null;
  /** How late requests left against the schedule (p99 and max, ms): the probe kept the pace when these are small. */
  sendLagP99: number;
  sendLagMax: number;
  /** Deposits per second actually sent (first to last request). */
  rate: number;
}

/**
 * Sends one deposit notification per target at `rate` per second, open loop (a keep-alive agent with room for every
 * request in flight), to `url`/bank-notifications with the bank account's token; collects the subscription messages.
 */
export async function pacedDeposits(o: {
  url: string;
  token: string;
  targets: DepositTarget[];
  rate: number;
  tag: string;
  sub: Subscriber;
  expectStatus: number;
  /** How long to wait for the last messages after the last request answered (default 30 s). */
  settleMs?: number;
  /**
   * Requests waiting for an answer beyond which a due deposit is not sent but shed (default: half a second's worth at
   * `rate`): once the server is that far behind it is saturated and the latency only measures its queue, so the run
   * stays bounded in time instead of queueing minutes of work. A server that keeps up never gets there.
   */
  maxInFlight?: number;
}): Promise<PacedResult> {
  const n = o.targets.length;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
  const u = new URL(o.url);
  const sentAt = new Array<number>(n).fill(NaN);
  const lag = new Array<number>(n).fill(NaN);
  const httpMs: number[] = [];
  const answeredAt = new Array<number>(n).fill(NaN);
  const msgAt = new Array<number>(n).fill(NaN);
  const latency = new Array<number>(n).fill(NaN);
  const statuses: Record<string, number> = {};
  let firstError: string | null = null;
  const indexOf = new Map<string, number>();
  o.targets.forEach((t, i) => indexOf.set(t.invoiceId!, i));
  let received = 0;
  let answered = 0;
  let allDone: () => void = () => {};
  const done = new Promise<void>((r) => (allDone = r));
  const check = () => {
    if (answered === n - shed && received === n - shed) allDone();
  };
  o.sub.handler = (invoiceId, at) => {
    const i = indexOf.get(invoiceId);
    if (i === undefined || !Number.isNaN(latency[i])) return;
    latency[i] = at - sentAt[i];
    msgAt[i] = at;
    received++;
    check();
  };
  const receivedAt = new Date().toISOString();
  const maxInFlight = o.maxInFlight ?? Math.max(10, Math.ceil(o.rate / 2));
  let shed = 0;
  const fire = (i: number, scheduled: number) => {
    if (i - shed - answered >= maxInFlight) {
      shed++;
      return;
    }
    const t = o.targets[i];
    const body = JSON.stringify({ notificationId: `${o.tag}-${i}`, depositorName: t.depositorName, amount: t.amount, receivedAt });
    const t0 = performance.now();
    sentAt[i] = t0;
    lag[i] = t0 - scheduled;
    const req = http.request(
      {
        agent,
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/bank-notifications',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${o.token}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          answeredAt[i] = performance.now();
          httpMs.push(answeredAt[i] - t0);
          const key = String(res.statusCode);
          statuses[key] = (statuses[key] ?? 0) + 1;
          if (res.statusCode !== o.expectStatus) firstError ??= `${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`;
          answered++;
          check();
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', (e) => {
      statuses.error = (statuses.error ?? 0) + 1;
      firstError ??= String(e);
      answered++;
      check();
    });
    req.end(body);
  };

  const interval = 1000 / o.rate;
  const start = performance.now() + 2;
  let i = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (i < n && start + i * interval <= now) fire(i, start + i * interval), i++;
      if (i >= n) return resolve();
      setTimeout(tick, Math.max(0, start + i * interval - performance.now()));
    };
    tick();
  });
  // Every request answered, then every message or the settle time.
  while (answered < n - shed) await new Promise((r) => setTimeout(r, 5));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, o.settleMs ?? 30_000)))]);
  clearTimeout(timer);
  agent.destroy();
  o.sub.handler = () => {};
  // BENCH_TIMELINE=<prefix>: every deposit of this run as [sent (epoch ms), notification latency, HTTP latency] in
  // <prefix>-<tag>.json, for lib/stalls.ts.
  if (process.env.BENCH_TIMELINE) {
    const origin = performance.timeOrigin;
    const rows = sentAt.map((t, k) => [origin + t, latency[k], answeredAt[k] - t]);
    (await import('node:fs')).writeFileSync(`${process.env.BENCH_TIMELINE}-${o.tag}.json`, JSON.stringify(rows));
  }
  const lags = lag.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  const lastAnswer = Math.max(...answeredAt.filter((x) => !Number.isNaN(x)));
  return {
    sent: n - shed,
    shed,
    sentMask: sentAt.map((x) => !Number.isNaN(x)),
    latency: summarize(latency.filter((x) => !Number.isNaN(x))),
    latencies: latency.filter((x) => !Number.isNaN(x)),
    http: summarize(httpMs),
    afterAnswer: summarize(msgAt.map((m, k) => m - answeredAt[k]).filter((x) => !Number.isNaN(x))),
    answeredRate: (httpMs.length / (lastAnswer - sentAt[0])) * 1000,
    received,
    missing: n - shed - received,
    statuses,
    firstError,
    sendLagP99: percentile(lags, 99),
    sendLagMax: lags[lags.length - 1] ?? NaN,
    rate: (() => {
      const sent = sentAt.filter((x) => !Number.isNaN(x));
      return sent.length > 1 ? ((sent.length - 1) / (sent[sent.length - 1] - sent[0])) * 1000 : NaN;
    })(),
  };
}

// ───────────────────────────── webhooks ─────────────────────────────

export interface SinkRequest {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** The webhook receiver: a plain node:http server that reads the body and answers 200; records what it got. */
export class WebhookSink {
  requests: SinkRequest[] = [];
  url = '';
  private server!: Server;
  private waiter: { n: number; resolve: () => void } | null = null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok');
        if (this.waiter && this.requests.length >= this.waiter.n) {
          this.waiter.resolve();
          this.waiter = null;
        }
      });
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  reset(): void {
    this.requests = [];
  }

  /** Resolves true once `n` requests arrived since the last reset, false after `timeoutMs`. */
  waitFor(n: number, timeoutMs: number): Promise<boolean> {
    if (this.requests.length >= n) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve(false);
      }, timeoutMs);
      this.waiter = { n, resolve: () => (clearTimeout(timer), resolve(true)) };
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export interface SenderResult {
  statuses: Record<string, number>;
  /** CPU the sender process spent on the POSTs (user + system, ms). */
  cpuMs: number;
}

const SENDER = fileURLToPath(new URL('./webhook-sender.ts', import.meta.url));

/**
 * Raw baseline of webhook delivery: a child process POSTs `count` Standard-Webhooks-signed copies of `bodyTemplate`
 * (its `id` replaced per request) to `url` over keep-alive connections, `concurrency` at a time. `onGo` is called
 * right before the child is told to start (the child is forked and loaded before that).
 */
export function sendSignedPosts(job: { url: string; count: number; concurrency: number; secret: string; bodyTemplate: string }, onGo: () => void): Promise<SenderResult> {
  return new Promise((resolve, reject) => {
    const child = fork(SENDER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    child.on('message', (m: { ready: true } | SenderResult | { fatal: string }) => {
      if ('ready' in m) {
        onGo();
        child.send({ go: true });
        return;
      }
      settled = true;
      child.kill();
      if ('fatal' in m) reject(new Error(`webhook sender failed: ${m.fatal}`));
      else resolve(m);
    });
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`webhook sender exited with ${code}`));
    });
    child.send({ job });
  });
}
