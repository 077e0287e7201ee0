/**
 * The raw baseline of webhook delivery, run in a child process (forked by events.ts sendSignedPosts): `count` POSTs of
 * the body template with a fresh `id` each, signed like the app signs them (Standard Webhooks HMAC-SHA256), over a
 * keep-alive agent, `concurrency` in flight. Answers {ready} once loaded, starts on {go}, reports {statuses, cpuMs}.
 */
import http from 'node:http';
import { randomAlnum } from '../../../src/domain/ids.ts';
import { signatureHeaders } from '../../../src/domain/webhooks/signing.ts';

interface Job {
  url: string;
  count: number;
  concurrency: number;
  secret: string;
  bodyTemplate: string;
}

let job: Job | null = null;

async function run(j: Job) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: j.concurrency, maxFreeSockets: j.concurrency });
  const u = new URL(j.url);
  const template = JSON.parse(j.bodyTemplate) as Record<string, unknown>;
  const statuses: Record<string, number> = {};
  const cpu0 = process.cpuUsage();
  const one = () =>
    new Promise<void>((resolve) => {
      const id = 'evt_' + randomAlnum(24);
      const body = JSON.stringify({ ...template, id });
      const headers = signatureHeaders([j.secret], id, Math.floor(Date.now() / 1000), body);
      const req = http.request(
        {
          agent,
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'bench-raw-webhooks/1', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        statuses.error = (statuses.error ?? 0) + 1;
        resolve();
      });
      req.end(body);
    });
  let next = 0;
  await Promise.all(
    Array.from({ length: j.concurrency }, async () => {
      while (next < j.count) {
        next++;
        await one();
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return { statuses, cpuMs: (cpu.user + cpu.system) / 1000 };
}

process.on('message', async (m: { job: Job } | { go: true }) => {
  try {
    if ('job' in m) {
      job = m.job;
      process.send!({ ready: true });
    } else if (job) {
      process.send!(await run(job));
    }
  } catch (e) {
    process.send!({ fatal: String((e as Error)?.stack ?? e) });
  }
});
