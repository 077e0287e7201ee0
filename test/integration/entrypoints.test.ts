/** The real entry points: `npm start` (scripts/start.mjs: the bundle of src/main.ts) on the embedded database, and the CLI's bootstrap and deposit. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/cli/client.ts';
import { freePort, ROOT, runScript, startServerProcess } from '../helpers/process.ts';
import { eventually } from '../helpers/wait.ts';
import type { ChildProcess } from 'node:child_process';

describe('npm start and the CLI', () => {
  let child: ChildProcess;
  let url: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'btp-start-'));
    const port = await freePort();
    ({ child } = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '' }, port));
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('serves /healthz and /readyz on the embedded database under DATA_DIR', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready', database: 'embedded' });
  });

  it("scripts/start.sh execs node in its own place with the embedded database's flags (16 MB semi-spaces); 64 with DATABASE_URL", async () => {
    // The child is node itself (exec), so signals reach the service.
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
    expect(argv[0]).toMatch(/node$/);
    expect(argv).toContain('--max-semi-space-size=16');
    expect(argv).toContain('--no-memory-reducer');
    // The other branch, without running a service: a stand-in `node` on PATH prints what it was given.
    const bin = mkdtempSync(join(tmpdir(), 'btp-fake-node-'));
    writeFileSync(join(bin, 'node'), '#!/bin/sh\necho "$@"\n', { mode: 0o755 });
    const run = (env: Record<string, string>) => spawnSync('/bin/sh', ['scripts/start.sh', 'x'], { cwd: ROOT, env: { PATH: `${bin}:/usr/bin:/bin`, ...env }, encoding: 'utf8' }).stdout.trim();
    expect(run({ DATABASE_URL: 'postgresql://db/x' })).toMatch(/^--max-semi-space-size=64 --no-memory-reducer scripts\/start\.mjs x$/);
    expect(run({})).toMatch(/^--max-semi-space-size=16 --no-memory-reducer scripts\/start\.mjs x$/);
  });

  it('cli bootstrap prints an account, workspace, verified bank account, business info and an API key as JSON', async () => {
    const r = await runScript('cli', ['bootstrap', '--url', url]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.accountId).toMatch(/^acc_/);
    expect(out.workspaceId).toMatch(/^wsp_/);
    expect(out.bankAccount.id).toMatch(/^bac_/);
    expect(out.bankAccount.verifiedAt).not.toBeNull();
    expect(out.businessInfo.corpNum).toBe('1234567890');
    expect(out.apiKey.secret).toMatch(/^sk_live_/);

    const client = new ServiceClient(url);
    const inv = await client.request('POST', '/v1/invoices', { token: out.apiKey.secret, body: { bankAccountIds: [], customer: { name: '홍길동' }, amount: 12000 } });
    expect(inv.status).toBe(201);

    const dep = await runScript('cli', ['deposit', '--url', url, '--token', out.bankAccount.notificationToken, '--name', '홍길동', '--amount', '12000']);
    expect(dep.code).toBe(0);
    expect(JSON.parse(dep.stdout)).toMatchObject({ status: 201, transactionId: expect.stringMatching(/^trx_/) });
    const read = await client.request('GET', `/v1/invoices/${inv.body.data.id}`, { token: out.apiKey.secret });
    expect(read.body.data.paid).toBe(true);
  });

  it('cli with a bad command prints usage and exits 2', async () => {
    const r = await runScript('cli', ['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage:');
  });

  it('a bad configuration value stops start-up with a message naming the variable', async () => {
    const r = await runScript('start', [], { PORT: 'not-a-port', DATA_DIR: dataDir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PORT');
  });

  it('a start-up failure prints a stack trace naming the .ts sources (the bundle runs with its source map)', async () => {
    // Nothing listens on port 1: opening the database fails at once.
    const r = await runScript('start', [], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/none', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ECONNREFUSED/);
    // A frame below main.ts (where the database is opened) and main.ts itself, each at a line of its .ts file.
    expect(r.stderr).toMatch(/\(.*\/src\/(?!main\.ts)[\w/.-]+\.ts:\d+:\d+\)/);
    expect(r.stderr).toMatch(/\(.*\/src\/main\.ts:\d+:\d+\)/);
  });

  it('SIGTERM stops the server gracefully: exit code 0 and the port closed', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'btp-term-'));
    const { child: server } = await startServerProcess({ DATA_DIR: dir, LOG_LEVEL: 'warn', DATABASE_URL: '' }, port);
    const exited = new Promise<number | null>((r) => server.once('exit', (code) => r(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    // The embedded server stopped with it (its pid file goes when it has shut down).
    expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(false);
  });

  // Services this file started that a failing or timed-out test could leave running (each keeps its embedded server).
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  it('the embedded server does not outlive a SIGKILLed service, and the next start finds the data', async () => {
    // DATA_DIR inside a directory only its owner may enter (mkdtemp's 0700), as `DATA_DIR=$(mktemp -d)/db` makes it: the
    // server must reach it without any permission being changed (as root it runs in a user namespace of its own).
    const parent = mkdtempSync(join(tmpdir(), 'btp-kill-'));
    const dir = join(parent, 'db');
    const env = { DATA_DIR: dir, LOG_LEVEL: 'warn', DATABASE_URL: '' };
    const port = await freePort();
    const { child: first } = await startServerProcess(env, port);
    started.push(first);
    const boot = await runScript('cli', ['bootstrap', '--url', `http://127.0.0.1:${port}`]);
    const { apiKey } = JSON.parse(boot.stdout);
    const client = new ServiceClient(`http://127.0.0.1:${port}`);
    const inv = await client.request('POST', '/v1/invoices', { token: apiKey.secret, body: { bankAccountIds: [], customer: { name: '김민수' }, amount: 5000 } });
    expect(inv.status).toBe(201);
    expect(statSync(parent).mode & 0o777).toBe(0o700);
    const postmaster = Number(readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(postmaster)).toBe(true);
    const exited = new Promise((r) => first.once('exit', r));
    first.kill('SIGKILL');
    await exited;
    await eventually('the embedded PostgreSQL to exit after the service was killed', () => !alive(postmaster), 15_000, 50);

    const port2 = await freePort();
    const { child: second } = await startServerProcess(env, port2);
    started.push(second);
    try {
      const again = new ServiceClient(`http://127.0.0.1:${port2}`);
      const read = await again.request('GET', `/v1/invoices/${inv.body.data.id}`, { token: apiKey.secret });
      expect(read.status).toBe(200);
      expect(read.body.data.customer.name).toBe('김민수');
    } finally {
      const done = new Promise((r) => second.once('exit', r));
      second.kill('SIGTERM');
      await done;
    }
  }, 180_000);
});

/** Whether a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
