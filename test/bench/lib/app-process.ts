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
import { startNodeFlags } from './node-flags.ts';

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
  // This process's execArgv carries tsx's loader; the service's own flags come from `npm start`. BENCH_CPU_PROF=<dir>:
  // a V8 CPU profile of each app process is written there when it stops (summarize with
  // `npx tsx test/bench/lib/cpuprofile.ts <file>`).
  const prof = process.env.BENCH_CPU_PROF;
  const execArgv = [...process.execArgv, ...startNodeFlags(), ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [])];
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
  // BENCH_APP_DIAG=<prefix>: a timeline of this app process, written to <prefix>-<pid>.json when it stops, for
  // lib/stalls.ts: ['gc', epoch ms, duration ms, kind] per collection, and every 20 ms ['tick', epoch ms, interval
  // ms, event-loop utilization, CPU ms of the process in the interval].
  const diag: unknown[] = [];
  if (process.env.BENCH_APP_DIAG) {
    const { PerformanceObserver, performance: perf } = await import('node:perf_hooks');
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) diag.push(['gc', perf.timeOrigin + e.startTime, e.duration, (e as { detail?: { kind?: number } }).detail?.kind]);
    }).observe({ entryTypes: ['gc'] });
    let last = perf.eventLoopUtilization();
    let lastCpu = process.cpuUsage();
    let lastT = perf.now();
    setInterval(() => {
      const now = perf.now();
      const elu = perf.eventLoopUtilization(last);
      last = perf.eventLoopUtilization();
      const cpu = process.cpuUsage(lastCpu);
      lastCpu = process.cpuUsage();
      diag.push(['tick', perf.timeOrigin + now, now - lastT, elu.utilization, (cpu.user + cpu.system) / 1000]);
      lastT = now;
    }, 20).unref();
  }
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
        if (process.env.BENCH_APP_DIAG) (await import('node:fs')).writeFileSync(`${process.env.BENCH_APP_DIAG}-${process.pid}.json`, JSON.stringify(diag));
        await app?.stop();
        process.exit(0);
      }
    } catch (e) {
      reply({ fatal: String((e as Error)?.stack ?? e) });
    }
  });
  process.on('disconnect', () => process.exit(0));
}
