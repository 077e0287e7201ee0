/**
 * A raw baseline server in a child process of its own (lib/raw-writes.ts, lib/raw-events.ts): the parent forks the
 * module with `--child` under the flags of `npm start` and talks to it over IPC — `{start}` answers `{url}` (or
 * `{fatal}`), `{cpu}` answers `{cpuMs}` (user + system CPU of the child so far), `{stop}` closes it and exits.
 */
import { fork } from 'node:child_process';
import { startNodeFlags } from './node-flags.ts';

export interface ChildServer {
  url: string;
  pid: number;
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

/** Forks `module` (its own file path) with `--child` and starts its server with `start`. */
export function startChildServer<S>(module: string, start: S, o: { label: string; flags?: 'embedded' | 'postgres'; stopTimeoutMs?: number }): Promise<ChildServer> {
  // Run like the app (the flags of `npm start`), for a like-for-like comparison.
  const child = fork(module, ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...startNodeFlags(o.flags)] });
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${o.label} process exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (m: { url: string } | { fatal: string }) => {
      child.off('exit', onExit);
      if ('fatal' in m) return reject(new Error(`${o.label} process failed: ${m.fatal}`));
      resolve({
        url: m.url,
        pid: child.pid!,
        cpuMs() {
          return new Promise((res) => {
            child.once('message', (x: { cpuMs: number }) => res(x.cpuMs));
            child.send({ cpu: true });
          });
        },
        async stop() {
          if (child.exitCode !== null) return;
          const exited = new Promise<void>((r) => child.once('exit', () => r()));
          child.send({ stop: true });
          const timer = setTimeout(() => child.kill('SIGKILL'), o.stopTimeoutMs ?? 20_000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
    child.send({ start });
  });
}

/** In the child (`--child`): runs `run` on `{start}` and answers the parent's messages until `{stop}`. */
export function serveChildServer<S>(run: (start: S) => Promise<{ url: string; close(): Promise<void> }>): void {
  let running: { url: string; close(): Promise<void> } | null = null;
  process.on('message', async (m: { start: S } | { cpu: true } | { stop: true }) => {
    try {
      if ('start' in m) {
        running = await run(m.start);
        process.send!({ url: running.url });
      } else if ('cpu' in m) {
        const u = process.cpuUsage();
        process.send!({ cpuMs: (u.user + u.system) / 1000 });
      } else {
        await running?.close();
        process.exit(0);
      }
    } catch (e) {
      process.send!({ fatal: String((e as Error)?.stack ?? e) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
