/**
 * The real app (startApp: buildApp on port 0, its default background workers) in a child process of its own, so that
 * several instances are really separate processes (as in production) and none shares the probe's event loop.
 *
 *   const a = await startAppProcess(databaseUrl, 10, { REDIS_URL: 'redis://…' });
 *   a.url; await a.cpuMs(); a.wake(); await a.stop();
 *
 * Messages to the child: {start: {databaseUrl, poolSize, env}}, {wake: true} (what a commit does: wake the outbox
 * dispatcher), {cpu: true} (answers {cpuMs}: user + system CPU of the child so far), {stop: true}.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface AppProcess {
  url: string;
  pid: number;
  /** Wakes the outbox dispatcher, as the app does itself after a commit that wrote events. */
  wake(): void;
  /** CPU (user + system) the child has used so far, in milliseconds. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

const SELF = fileURLToPath(import.meta.url);

type ToChild = { start: { databaseUrl: string; poolSize: number; env: Record<string, string> } } | { wake: true } | { cpu: true } | { stop: true };
type FromChild = { url: string } | { cpuMs: number } | { stopped: true } | { fatal: string };

export function startAppProcess(databaseUrl: string, poolSize: number, env: Record<string, string> = {}): Promise<AppProcess> {
  // execArgv defaults to this process's, which carries tsx's loader. BENCH_CPU_PROF=<dir>: a V8 CPU profile of each
  // app process is written there when it stops (summarize with `npx tsx test/bench/lib/cpuprofile.ts <file>`).
  const prof = process.env.BENCH_CPU_PROF;
  const execArgv = prof ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${prof}`] : process.execArgv;
  const child: ChildProcess = fork(SELF, ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  const send = (m: ToChild) => child.send(m);
  const next = <T extends FromChild>(pred: (m: FromChild) => m is T) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: FromChild) => {
        if ('fatal' in m) return done(() => reject(new Error(`app process failed: ${m.fatal}`)));
        if (pred(m)) done(() => resolve(m));
      };
      const onExit = (code: number | null) => done(() => reject(new Error(`app process exited with ${code}`)));
      const done = (f: () => void) => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        f();
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const started = next((m): m is { url: string } => 'url' in m);
  send({ start: { databaseUrl, poolSize, env } });
  return started.then(({ url }) => ({
    url,
    pid: child.pid!,
    wake: () => send({ wake: true }),
    cpuMs() {
      const r = next((m): m is { cpuMs: number } => 'cpuMs' in m);
      send({ cpu: true });
      return r.then((m) => m.cpuMs);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      send({ stop: true });
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  }));
}

if (process.argv.includes('--child')) {
  const { startApp } = await import('./scratch.ts');
  let app: Awaited<ReturnType<typeof startApp>> | null = null;
  const reply = (m: FromChild) => process.send!(m);
  process.on('message', async (m: ToChild) => {
    try {
      if ('start' in m) {
        app = await startApp(m.start.databaseUrl, m.start.poolSize, m.start.env);
        reply({ url: app.url });
      } else if ('wake' in m) {
        app?.app.workers.dispatcher.wake();
      } else if ('cpu' in m) {
        const u = process.cpuUsage();
        reply({ cpuMs: (u.user + u.system) / 1000 });
      } else if ('stop' in m) {
        await app?.stop();
        process.exit(0);
      }
    } catch (e) {
      reply({ fatal: String((e as Error)?.stack ?? e) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
