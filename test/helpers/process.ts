/** Child processes of the real entry points (npm start, the CLI). */
import { spawn, type ChildProcess } from 'node:child_process';
import { until } from './wait.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;
/**
 * `node --import tsx <file>`: one process. (The tsx CLI runs the program in a child process, so a SIGKILL to it
 * would leave the server running as an orphan.)
 */
const NODE_TSX = [process.execPath, ['--import', 'tsx']] as const;

export function runTsx(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE_TSX[0], [...NODE_TSX[1], ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `src/main.ts` and resolves once /healthz answers 200. */
export async function startServerProcess(env: Record<string, string>, port: number, timeoutMs = 60_000): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(NODE_TSX[0], [...NODE_TSX[1], 'src/main.ts'], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) } });
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
