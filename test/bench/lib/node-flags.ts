/**
 * The Node.js flags `npm start` runs the service with (package.json scripts.start: `node <flags> scripts/start.mjs`),
 * so that the bench's server processes — the app and, for a like-for-like comparison, the raw baselines — run as the
 * service is deployed (README: runtime flags).
 */
import { readFileSync } from 'node:fs';

export function startNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const [node, ...args] = pkg.scripts.start.trim().split(/\s+/);
  if (node !== 'node') throw new Error(`package.json scripts.start does not run node: ${pkg.scripts.start}`);
  const flags: string[] = [];
  for (let i = 0; i < args.length && args[i].startsWith('--'); i++) {
    if (args[i] === '--import') i++; // a loader (tsx): the bench's processes already carry it
    else flags.push(args[i]);
  }
  return flags;
}
