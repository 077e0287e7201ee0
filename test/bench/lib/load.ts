/** Runs one load job in a forked child process (load-worker.ts) and returns its figures. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LatencySummary } from './stats.ts';

export interface LoadJob {
  /** Base URL, e.g. http://127.0.0.1:1234 */
  url: string;
  method: string;
  path: string;
  token: string;
  /** JSON body; `__N__` becomes the request's counter in base 36, `"__AMOUNT__"` a number derived from it. */
  bodyTemplate: string;
  /** Explicit requests instead of url/token/template: warm-up takes the first `warmup`, then the measured ones. */
  calls?: { url: string; token: string; body: string }[];
  concurrency: number;
  warmup: number;
  requests: number;
  expectStatus: number;
}

export interface LoadResult {
  requests: number;
  ok: number;
  statuses: Record<string, number>;
  firstError: string | null;
  elapsedMs: number;
  rps: number;
  latency: LatencySummary;
  /** Latency of each measured request in order (NaN when it failed). */
  samples: number[];
}

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

export function runLoad(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    // execArgv defaults to this process's, which carries tsx's loader.
    const child = fork(WORKER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    child.once('message', (m: LoadResult | { fatal: string }) => {
      settled = true;
      child.kill();
      if ('fatal' in m) reject(new Error(`load generator failed: ${m.fatal}`));
      else resolve(m);
    });
    child.once('error', (e) => {
      if (!settled) reject(e);
    });
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`load generator exited with ${code}`));
    });
    child.send(job);
  });
}
