/** Identifiers: a prefix followed by 24 characters of [a-z0-9] from a CSPRNG (spec: Identifier format). */
import { randomFillSync } from 'node:crypto';

export const ID_PREFIXES = {
  invoice: 'ivc_',
  transaction: 'trx_',
  cashReceipt: 'crt_',
  bankAccount: 'bac_',
  account: 'acc_',
  webhook: 'whd_',
  webhookDelivery: 'whm_',
  apiKey: 'apk_',
  oauthAccessToken: 'oat_',
  oauthApp: 'oap_',
  oauthClientSecret: 'oas_',
  // Not in the spec's table; same form.
  workspace: 'wsp_',
  session: 'ses_',
  event: 'evt_',
  history: 'ivh_',
  dispatch: 'whp_',
  email: 'eml_',
  job: 'job_',
  grant: 'oag_',
  authorizationCode: 'oac_',
  loginAttempt: 'lga_',
  shopConnection: 'shc_',
  shopOrder: 'sho_',
  bankText: 'btx_',
  historyFeed: 'hfd_',
  simulatedHistoryRow: 'hsr_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const KIND_BY_PREFIX = new Map<string, IdKind>(Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind as IdKind]));

/** The kind whose prefix `id` starts with (the body is not checked), or null. */
export function idKindOf(id: string): IdKind | null {
  return KIND_BY_PREFIX.get(id.slice(0, id.indexOf('_') + 1)) ?? null;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** CSPRNG bytes fetched 4 KiB at a time (one system call for many ids, not one per id); each byte used once. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** `n` characters of [a-z0-9], uniformly distributed (rejection sampling, no modulo bias). */
export function randomAlnum(n: number): string {
  let out = '';
  while (out.length < n) {
    const b = randomByte();
    if (b < 252) out += ALPHABET[b % 36];
  }
  return out;
}

/** A new id of the given kind. */
export function newId(kind: IdKind): string {
  return ID_PREFIXES[kind] + randomAlnum(24);
}

const ID_BODY = /^[a-z0-9]{24}$/;

/** Whether `value` is a well-formed id of the given kind. */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const prefix = ID_PREFIXES[kind];
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
