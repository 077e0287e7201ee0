/** Child processes of the real entry points (npm start, the CLI). */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { until } from './wait.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * The command of an npm script (package.json: `node <args>`, or `sh <script> <args>` for `npm start`, whose script
 * execs node), to run what `npm start` / `npm run cli` run without npm and its shell in between: the child is then
 * the server itself (a SIGKILL to it reaches the server, not npm).
 */
function scriptCommand(script: 'start' | 'cli'): [string, string[]] {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> };
  const [cmd, ...args] = pkg.scripts[script].trim().split(/\s+/);
  if (cmd === 'node') return [process.execPath, args];
  if (cmd === 'sh') return ['/bin/sh', args];
  throw new Error(`package.json scripts.${script} runs neither node nor sh: ${pkg.scripts[script]}`);
}

/** `npm start` (the service) or `npm run cli -- <args>` to its end: exit code and output. */
export function runScript(script: 'start' | 'cli', args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const [cmd, scriptArgs] = scriptCommand(script);
    const child = spawn(cmd, [...scriptArgs, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts the service as `npm start` does and resolves once /healthz answers 200. */
export async function startServerProcess(env: Record<string, string>, port: number, timeoutMs = 60_000): Promise<{ child: ChildProcess; output: () => string }> {
  const [cmd, args] = scriptCommand('start');
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) } });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const healthy = await until(
    () => child.exitCode === null && fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false),
    (up) => up || child.exitCode !== null,
    timeoutMs,
    200,
  );
  if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${out}`);
  if (healthy) return { child, output: () => out };
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy: ${out}`);
}

export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
