/**
 * The load generator, run in a child process (forked by load.ts) so its CPU does not share the server's event loop.
 * A closed loop: `concurrency` workers over a keep-alive agent with exactly `concurrency` sockets, each sending the
 * next request as soon as its previous one has answered. Warm-up requests run first and are not recorded.
 */
import http from 'node:http';
import type { LoadJob, LoadResult } from './load.ts';
import { summarize } from './stats.ts';

function callFor(job: LoadJob, n: number): { url: string; token: string; body: string } {
  if (job.calls) return job.calls[n];
  return { url: job.url, token: job.token, body: bodyFor(job, n) };
}

function bodyFor(job: LoadJob, n: number): string {
  return job.bodyTemplate.replaceAll('__N__', n.toString(36)).replaceAll('"__AMOUNT__"', String(1000 + (n % 1000) * 10));
}

async function phase(job: LoadJob, agent: http.Agent, count: number, offset: number, record: boolean) {
  const latencies: number[] = [];
  const samples: number[] = new Array(count).fill(NaN);
  const statuses: Record<string, number> = {};
  let firstError: string | null = null;
  let next = 0;
  const one = (n: number) =>
    new Promise<void>((resolve) => {
      const { url: base, token, body } = callFor(job, offset + n);
      const url = new URL(base);
      const t0 = performance.now();
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: job.method,
          path: job.path,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const dt = performance.now() - t0;
            const key = String(res.statusCode);
            statuses[key] = (statuses[key] ?? 0) + 1;
            if (res.statusCode === job.expectStatus) {
              if (record) {
                latencies.push(dt);
                samples[n] = dt;
              }
            } else if (!firstError) firstError = `${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`;
            resolve();
          });
        },
      );
      req.on('error', (e) => {
        statuses.error = (statuses.error ?? 0) + 1;
        firstError ??= String(e);
        resolve();
      });
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (next < count) await one(next++);
    }),
  );
  return { elapsedMs: performance.now() - started, latencies, samples, statuses, firstError };
}

process.on('message', async (job: LoadJob) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency, maxFreeSockets: job.concurrency });
  try {
    if (job.warmup > 0) await phase(job, agent, job.warmup, 0, false);
    const m = await phase(job, agent, job.requests, job.warmup, true);
    const ok = m.latencies.length;
    const result: LoadResult = {
      requests: job.requests,
      ok,
      statuses: m.statuses,
      firstError: m.firstError,
      elapsedMs: m.elapsedMs,
      rps: (ok / m.elapsedMs) * 1000,
      latency: summarize(m.latencies),
      samples: m.samples,
    };
    process.send!(result);
  } catch (e) {
    process.send!({ fatal: String((e as Error)?.stack ?? e) });
  } finally {
    agent.destroy();
  }
});
