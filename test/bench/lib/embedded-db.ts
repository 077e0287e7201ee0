/**
 * Reaching the database that `npm start` keeps under DATA_DIR (no DATABASE_URL), from outside the app, for the
 * embedded scenario's seeding, checks and raw baseline. Two engines, told apart by what is in the directory:
 *
 *  - PGlite (`DATA_DIR/pglite`, in the app's process): only one process can open it, so it is reached while the app is
 *    stopped — `openPgliteOffline` opens it here behind a PostgreSQL wire-protocol socket (`@electric-sql/pglite-socket`)
 *    so the same `pg` code (lib/seed.ts) works on it; the raw baseline gets its own PGlite on a copy of the directory.
 *  - A PostgreSQL server the app runs as a child process (data under DATA_DIR): reached while the app runs, through
 *    the URL `embeddedServerUrl` builds from the server's `postmaster.pid` (port, socket directory, listen address;
 *    user `postgres` or this OS user, the database that has the app's tables). BENCH_EMBEDDED_DATABASE_URL overrides
 *    the discovery (e.g. if the engine sets a password).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export type EmbeddedEngine = 'pglite' | 'postgres';

/** Which engine the app made under `dataDir` (asked while it runs). */
export function embeddedEngineOf(dataDir: string): EmbeddedEngine {
  return !findPostmasterPid(dataDir) && existsSync(join(dataDir, 'pglite')) ? 'pglite' : 'postgres';
}

/**
 * The `postmaster.pid` of a PostgreSQL data directory under `dir` (depth ≤ 4), if a server runs there. PGlite's
 * directory has one too (naming port 5432, i.e. not its own server): it is skipped.
 */
export function findPostmasterPid(dir: string, depth = 4): string | null {
  if (depth < 0 || !existsSync(dir)) return null;
  const here = join(dir, 'postmaster.pid');
  if (existsSync(here)) return here;
  for (const name of readdirSync(dir)) {
    if (name === 'pglite' && depth === 4) continue;
    const p = join(dir, name);
    try {
      if (statSync(p).isDirectory()) {
        const found = findPostmasterPid(p, depth - 1);
        if (found) return found;
      }
    } catch {
      /* vanished */
    }
  }
  return null;
}

/**
 * The PostgreSQL server the app runs under `dataDir`: its postmaster pid and a URL to the app's database. The server
 * must be one of `servicePids` (the app's process tree), so a stray file never leads to another server.
 */
export async function embeddedServerUrl(dataDir: string, servicePids: number[]): Promise<{ url: string; postmasterPid: number }> {
  const pidFile = findPostmasterPid(dataDir);
  if (!pidFile) throw new Error(`no postmaster.pid under ${dataDir}: is the embedded PostgreSQL running?`);
  // postmaster.pid: pid, data directory, start time, port, socket directory, listen address, shared memory key, status
  const [pid, , , port, socketDir, listen] = readFileSync(pidFile, 'utf8').split('\n');
  const postmasterPid = Number(pid);
  if (!servicePids.includes(postmasterPid)) throw new Error(`${pidFile} names pid ${pid}, which is not a process of the app (${servicePids.join(', ')})`);
  if (process.env.BENCH_EMBEDDED_DATABASE_URL) return { url: process.env.BENCH_EMBEDDED_DATABASE_URL, postmasterPid };
  const host = listen && listen !== '*' && listen.trim() ? listen.trim().split(/[ ,]/)[0] : socketDir;
  const errors: string[] = [];
  for (const user of [...new Set(['postgres', userInfo().username])]) {
    const base = { host, port: Number(port), user };
    const c = new pg.Client({ ...base, database: 'postgres' });
    try {
      await c.connect();
      const dbs = (await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE NOT datistemplate ORDER BY datname <> 'postgres', datname`)).rows;
      await c.end();
      for (const { datname } of dbs) {
        const d = new pg.Client({ ...base, database: datname });
        await d.connect();
        const [{ has }] = (await d.query<{ has: boolean }>(`SELECT to_regclass('"Invoice"') IS NOT NULL AS has`)).rows;
        await d.end();
        if (has) {
          const u = new URL(`postgresql://${encodeURIComponent(user)}@localhost/${encodeURIComponent(datname)}`);
          u.port = port;
          // A socket directory goes in the `host` query parameter (pg's connection-string parser).
          if (host.startsWith('/')) u.searchParams.set('host', host);
          else u.hostname = host;
          return { url: u.toString(), postmasterPid };
        }
      }
      errors.push(`${user}: no database with the app's tables`);
    } catch (e) {
      errors.push(`${user}: ${(e as Error).message}`);
      await c.end().catch(() => {});
    }
  }
  throw new Error(`cannot reach the embedded PostgreSQL (port ${port}, ${host}): ${errors.join('; ')}; set BENCH_EMBEDDED_DATABASE_URL`);
}

/** The app's PGlite directory opened in this process (the app stopped) and served on a local port, as a `pg` URL. */
export async function openPgliteOffline(dataDir: string): Promise<{ url: string; close(): Promise<void> }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  // A dependency of prisma's tooling (@prisma/dev), not of the app: only this bench path needs it.
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create({ dataDir: join(dataDir, 'pglite'), extensions: { pg_trgm } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 1 });
  await server.start();
  const [, port] = server.getServerConn().split(':');
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
