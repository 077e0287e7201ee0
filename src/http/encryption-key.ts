/** The key sealing webhook signing secrets: ENCRYPTION_KEY, or a key file created once under DATA_DIR. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeKey } from '../config/config.ts';

export function loadEncryptionKey(configured: string | undefined, dataDir: string): { key: Buffer; source: 'env' | 'file' } {
  if (configured) return { key: decodeKey(configured)!, source: 'env' };
  const dir = resolve(dataDir);
  const path = join(dir, 'encryption.key');
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  }
  const key = decodeKey(readFileSync(path, 'utf8').trim());
  if (!key) throw new Error(`${path} does not hold a 32-byte hex key`);
  return { key, source: 'file' };
}
