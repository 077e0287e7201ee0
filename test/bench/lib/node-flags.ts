/**
 * The Node.js flags `npm start` runs the service with (scripts/start.sh: one set on the embedded database, another
 * with DATABASE_URL), so that the bench's server processes — the app and, for a like-for-like comparison, the raw
 * baselines — run as the service is deployed (README: runtime flags).
 */
import { readFileSync } from 'node:fs';

/** `embedded`: the flags without DATABASE_URL; `postgres` (default): with it. */
export function startNodeFlags(mode: 'embedded' | 'postgres' = 'postgres'): string[] {
  const script = readFileSync(new URL('../../../scripts/start.sh', import.meta.url), 'utf8');
  const name = mode === 'embedded' ? 'EMBEDDED_FLAGS' : 'SERVER_FLAGS';
  const m = new RegExp(`^${name}="([^"]*)"$`, 'm').exec(script);
  if (!m) throw new Error(`scripts/start.sh does not set ${name}="..."`);
  return m[1]!.split(/\s+/).filter(Boolean);
}
