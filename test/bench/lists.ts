/**
 * `npm run bench -- --only lists`: the list endpoints with a big workspace. One workspace holds 1,000,000 invoices,
 * 1,000,000 deposits and 200,000 cash receipts (quick: 100,000 / 100,000 / 20,000), seeded in SQL
 * (lib/seed-lists.ts); the real app (startApp) serves them and every list is timed through HTTP with a real API key,
 * one request at a time: p50/p99 over --requests N each (default 200, quick 50) after 10 unmeasured ones. Each line
 * prints its goal (issue 17) beside its figure. --explain prints the plan of each list's queries (EXPLAIN ANALYZE of
 * the SQL the domain function sends, recorded by calling it in-process with the same principal).
 *
 * The seeded database is kept for the next run with --keep or BENCH_LISTS_DB=<name> (created next to
 * BENCH_DATABASE_URL; a run finding it seeded with the same sizes reuses it, so the app's migrations run on it first:
 * an old checkout seeds and measures, a new one then migrates the same data and measures). Without either, a scratch
 * database is created and dropped.
 */
import pg from 'pg';
import { bootstrap, ServiceClient } from '../../src/cli/client.ts';
import type { Principal } from '../../src/domain/auth/principal.ts';
import { bankAccountSnapshot } from '../../src/domain/bank-accounts/bank-accounts.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { listInvoiceIds } from '../../src/domain/invoices/invoices.ts';
import { listTransactionIds } from '../../src/domain/deposits/transaction-reads.ts';
import { listCashReceiptIds } from '../../src/domain/cash-receipts/reads.ts';
import { createScratchDatabase, startApp, type RunningApp } from './lib/scratch.ts';
import { seedLists } from './lib/seed-lists.ts';
import { ms, num, summarize, table } from './lib/stats.ts';

export interface ListsOptions {
  base: string;
  quick: boolean;
  explain: boolean;
  keep: boolean;
  pool: number;
  requests?: number;
  /** Only cases whose label contains this. */
  filter?: string;
  log(s: string): void;
  cleanups: (() => Promise<void>)[];
}

interface Meta {
  workspaceId: string;
  ownerId: string;
  apiKeyId: string;
  secret: string;
  limitedSecret: string;
  limitedKeyId: string;
  bankAccountId: string;
  invoices: number;
  deposits: number;
  receipts: number;
}

type Face = 'v1' | 'v2' | 'graphql';
interface Case {
  label: string;
  face: Face;
  /** v1/v2: path and query; graphql: the query and its variables. */
  path?: string;
  gql?: { query: string; variables: Record<string, unknown> };
  goalMs: number;
  limited?: boolean;
  /** The domain call behind it, for --explain. */
  explain?: (deps: Deps, p: Principal) => Promise<unknown>;
}

const KST_DAY = (daysAgo: number) => new Date(Date.now() + 9 * 3600_000 - daysAgo * 86400_000).toISOString().slice(0, 10);

function cases(m: Meta): Case[] {
  const deep = (n: number) => Math.max(0, Math.floor(n) - 10_000);
  const inv = (label: string, query: string, goalMs: number, f: Record<string, unknown>, extra: Partial<Case> = {}): Case => ({
    label: `v1 invoices ${label}`,
    face: 'v1',
    path: `/v1/invoices?${query}`,
    goalMs,
    explain: (deps, p) => listInvoiceIds(deps, p, { offset: 0, limit: 20, hideCanceled: true, ...f }),
    ...extra,
  });
  const trx = (label: string, query: string, goalMs: number, f: Record<string, unknown>, extra: Partial<Case> = {}): Case => ({
    label: `v1 transactions ${label}`,
    face: 'v1',
    path: `/v1/transactions?${query}`,
    goalMs,
    explain: (deps, p) => listTransactionIds(deps, p, { offset: 0, limit: 20, ...f }),
    ...extra,
  });
  const rec = (label: string, query: string, goalMs: number, f: Record<string, unknown>): Case => ({
    label: `v1 cash-receipts ${label}`,
    face: 'v1',
    path: `/v1/cash-receipts?${query}`,
    goalMs,
    explain: (deps, p) => listCashReceiptIds(deps, p, { offset: 0, limit: 20, ...f }),
  });
  const month = `dateAfter=${KST_DAY(30)}&dateBefore=${KST_DAY(0)}`;
  const monthF = { dateAfter: KST_DAY(30), dateBefore: KST_DAY(0) };
  const oldMonth = `dateAfter=${KST_DAY(400)}&dateBefore=${KST_DAY(370)}`;
  const oldMonthF = { dateAfter: KST_DAY(400), dateBefore: KST_DAY(370) };
  return [
    inv('offset=0', 'offset=0&limit=20', 20, {}),
    inv('paid=false&expired=false', 'offset=0&limit=20&paid=false&expired=false', 20, { paid: false, expired: false }),
    inv('paid=false', 'offset=0&limit=20&paid=false', 20, { paid: false }),
    inv('paid=true', 'offset=0&limit=20&paid=true', 20, { paid: true }),
    inv('expired=true', 'offset=0&limit=20&expired=true', 20, { expired: true }),
    inv('expired=false', 'offset=0&limit=20&expired=false', 20, { expired: false }),
    inv('last 30 days', `offset=0&limit=20&${month}`, 20, monthF),
    inv('a month a year ago', `offset=0&limit=20&${oldMonth}`, 20, oldMonthF),
    inv('paid=true, last 30 days', `offset=0&limit=20&paid=true&${month}`, 20, { paid: true, ...monthF }),
    // v1 hides canceled invoices (8 % of them): its deep page is near the end of the ~92 %.
    inv(`offset=${num(deep(m.invoices * 0.9))}`, `offset=${deep(m.invoices * 0.9)}&limit=20`, 100, { offset: deep(m.invoices * 0.9) }),
    inv(`offset=${num(Math.floor(m.invoices / 2))} (the middle)`, `offset=${Math.floor(m.invoices / 2)}&limit=20`, 100, { offset: Math.floor(m.invoices / 2) }),
    inv(`paid=true offset=${num(deep(m.invoices * 0.55))}`, `offset=${deep(m.invoices * 0.55)}&limit=20&paid=true`, 100, { paid: true, offset: deep(m.invoices * 0.55) }),
    inv('key limited to one account', 'offset=0&limit=20', 20, {}, { limited: true }),
    // Searches: one and two syllables (the short n-grams), three (trigrams), phone digits.
    ...(['김', '민수'] as const).map((t) => inv(`search=${t}`, `offset=0&limit=20&search=${encodeURIComponent(t)}`, 50, { search: t })),
    inv('search=김민수', `offset=0&limit=20&search=${encodeURIComponent('김민수')}`, 20, { search: '김민수' }),
    inv('search=5678 (phone digits)', 'offset=0&limit=20&search=5678', 20, { search: '5678' }),
    ...(['김', '민수'] as const).map((t) => trx(`search=${t}`, `offset=0&limit=20&search=${encodeURIComponent(t)}`, 50, { search: t })),
    ...(['PENDING', 'EXPIRED', 'PAID', 'CANCELED'] as const).map((s): Case => ({
      label: `v2 invoices status=${s}`,
      face: 'v2',
      path: `/v2/invoices?offset=0&limit=20&status=${s}`,
      goalMs: 20,
      explain: (deps, p) => listInvoiceIds(deps, p, { offset: 0, limit: 20, statuses: [s] }),
    })),
    { label: 'v2 invoices offset=0', face: 'v2', path: '/v2/invoices?offset=0&limit=20', goalMs: 20 },
    {
      label: `v2 invoices offset=${num(deep(m.invoices))}`,
      face: 'v2',
      path: `/v2/invoices?offset=${deep(m.invoices)}&limit=20`,
      goalMs: 100,
      explain: (deps, p) => listInvoiceIds(deps, p, { offset: deep(m.invoices), limit: 20 }),
    },
    {
      label: 'graphql invoicePage paid=false expired=false',
      face: 'graphql',
      gql: { query: 'query($f: InvoiceFilter) { invoicePage(offset: 0, limit: 20, filter: $f) { totalItems items { id } } }', variables: { f: { paid: false, expired: false, includeCanceled: false } } },
      goalMs: 20,
    },
    {
      label: 'graphql invoices connection first=20',
      face: 'graphql',
      gql: { query: '{ invoices(first: 20) { totalCount edges { node { id } } } }', variables: {} },
      goalMs: 20,
    },
    trx('offset=0', 'offset=0&limit=20', 20, {}),
    trx('matched=false', 'offset=0&limit=20&matched=false', 20, { matched: false }),
    trx('matched=true', 'offset=0&limit=20&matched=true', 20, { matched: true }),
    trx('hidden=true', 'offset=0&limit=20&hidden=true', 20, { hidden: true }),
    trx('bankAccountId', `offset=0&limit=20&bankAccountId=${m.bankAccountId}`, 20, { bankAccountId: m.bankAccountId }),
    trx('last 30 days', `offset=0&limit=20&${month}`, 20, monthF),
    trx(`offset=${num(deep(m.deposits))}`, `offset=${deep(m.deposits)}&limit=20`, 100, { offset: deep(m.deposits) }),
    trx('key limited to one account', 'offset=0&limit=20', 20, {}, { limited: true }),
    {
      label: 'graphql transactionPage matched=false',
      face: 'graphql',
      gql: { query: '{ transactionPage(offset: 0, limit: 20, filter: {matched: false}) { totalItems items { id } } }', variables: {} },
      goalMs: 20,
    },
    rec('offset=0', 'offset=0&limit=20', 20, {}),
    rec('status=ISSUED', 'offset=0&limit=20&status=ISSUED', 20, { status: 'ISSUED' }),
    rec('type=CORPORATE', 'offset=0&limit=20&type=CORPORATE', 20, { type: 'CORPORATE' }),
    rec('last 30 days', `offset=0&limit=20&${month}`, 20, monthF),
    rec(`offset=${num(deep(m.receipts))}`, `offset=${deep(m.receipts)}&limit=20`, 100, { offset: deep(m.receipts) }),
    {
      label: 'graphql cashReceipts connection first=20',
      face: 'graphql',
      gql: { query: '{ cashReceipts(first: 20) { totalCount edges { node { id } } } }', variables: {} },
      goalMs: 20,
    },
  ];
}

async function databaseExists(base: string, name: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    return (await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount === 1;
  } finally {
    await c.end();
  }
}

function urlOf(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function readMeta(url: string): Promise<Meta | null> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ meta: Meta }>(`SELECT meta FROM bench_lists_meta LIMIT 1`).catch(() => null);
    return r?.rows[0]?.meta ?? null;
  } finally {
    await c.end();
  }
}

export async function scenarioLists(o: ListsOptions): Promise<void> {
  const sizes = o.quick ? { invoices: 100_000, deposits: 100_000, receipts: 20_000 } : { invoices: 1_000_000, deposits: 1_000_000, receipts: 200_000 };
  const requests = o.requests ?? (o.quick ? 50 : 200);
  o.log(`\n[lists] GET list endpoints, one workspace with ${num(sizes.invoices)} invoices, ${num(sizes.deposits)} deposits, ${num(sizes.receipts)} cash receipts; ${requests} requests each, one at a time`);

  const keepName = process.env.BENCH_LISTS_DB ?? (o.keep ? `bench_lists${o.quick ? '_quick' : ''}` : null);
  let url: string;
  if (keepName) {
    url = urlOf(o.base, keepName);
    if (!(await databaseExists(o.base, keepName))) {
      const admin = new pg.Client({ connectionString: o.base });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${keepName}"`).finally(() => admin.end());
    }
  } else {
    const db = await createScratchDatabase(o.base, 'lists');
    o.cleanups.push(() => db.drop());
    url = db.url;
  }
  const app: RunningApp = await startApp(url, o.pool);
  o.cleanups.push(() => app.stop());
  let meta = await readMeta(url);
  if (meta && (meta.invoices !== sizes.invoices || meta.deposits !== sizes.deposits || meta.receipts !== sizes.receipts)) {
    throw new Error(`${keepName} holds other sizes (${JSON.stringify(meta)}); drop it or name another with BENCH_LISTS_DB`);
  }
  const client = new ServiceClient(app.url);
  if (!meta) {
    const b = await bootstrap(client);
    const limited = await client.gql<{ createApiKey: { apiKey: { id: string }; secret: string } }>(
      `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } secret } }`,
      { input: { name: 'one account', bankAccountIds: [b.bankAccount.id] } },
      b.sessionToken,
    );
    const account = await app.app.deps.prisma.bankAccount.findUniqueOrThrow({ where: { id: b.bankAccount.id } });
    const seeded = await seedLists(url, {
      workspaceId: b.workspaceId,
      ownerId: b.accountId,
      apiKeyId: b.apiKey.id,
      bankAccountId: b.bankAccount.id,
      bankAccountSnapshot: bankAccountSnapshot(account),
      bankAccountNumber: account.number,
      corpNum: b.businessInfo?.corpNum ?? '1234567890',
      ...sizes,
    });
    o.log(`  · seeded ${num(seeded.invoices)} invoices, ${num(seeded.deposits)} deposits, ${num(seeded.receipts)} receipts in ${seeded.seconds.toFixed(0)} s`);
    meta = {
      workspaceId: b.workspaceId,
      ownerId: b.accountId,
      apiKeyId: b.apiKey.id,
      secret: b.apiKey.secret,
      limitedSecret: limited.createApiKey.secret,
      limitedKeyId: limited.createApiKey.apiKey.id,
      bankAccountId: b.bankAccount.id,
      ...sizes,
    };
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`CREATE TABLE IF NOT EXISTS bench_lists_meta (meta jsonb NOT NULL)`);
    await c.query(`INSERT INTO bench_lists_meta (meta) VALUES ($1)`, [JSON.stringify(meta)]);
    await c.end();
  } else {
    o.log(`  · reusing ${keepName} (seeded earlier; this checkout's migrations ran on it at start)`);
  }
  {
    // The visibility map as a running service has it (autovacuum), also after a migration that built indexes.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    for (const t of ['Invoice', 'Transaction', 'CashReceipt']) await c.query(`VACUUM (ANALYZE) "${t}"`);
    await c.end();
  }

  const all = cases(meta).filter((c) => !o.filter || c.label.includes(o.filter));
  const rows: (string | number)[][] = [];
  let met = 0;
  for (const c of all) {
    const token = c.limited ? meta.limitedSecret : meta.secret;
    const once = async () => {
      const t0 = performance.now();
      const res =
        c.face === 'graphql'
          ? await fetch(`${app.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(c.gql) })
          : await fetch(`${app.url}${c.path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as any;
      const dt = performance.now() - t0;
      if (res.status !== 200 || body.errors) throw new Error(`${c.label}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      const total = body.totalItems ?? body.data?.invoicePage?.totalItems ?? body.data?.transactionPage?.totalItems ?? body.data?.invoices?.totalCount ?? body.data?.cashReceipts?.totalCount;
      const items = Array.isArray(body.data) ? body.data.length : (body.data?.invoicePage?.items ?? body.data?.transactionPage?.items ?? body.data?.invoices?.edges ?? body.data?.cashReceipts?.edges ?? []).length;
      return { dt, total, items };
    };
    for (let i = 0; i < 10; i++) await once();
    const samples: number[] = [];
    let last = { total: 0, items: 0 };
    for (let i = 0; i < requests; i++) {
      const r = await once();
      samples.push(r.dt);
      last = r;
    }
    const s = summarize(samples);
    const ok = s.p99 <= c.goalMs;
    if (ok) met++;
    rows.push([c.label, num(last.total), last.items, ms(s.p50), ms(s.p99), `p99 <= ${c.goalMs} ms`, ok ? 'MET' : 'MISSED']);
  }
  o.log(table(['list', 'totalItems', 'items', 'p50', 'p99', 'goal', ''], rows));
  o.log(`  goals met: ${met} of ${all.length}`);

  if (o.explain) await explainAll(app, url, meta, all, o.log);
}

/** Calls each case's domain function with deps that record the SQL sent, then EXPLAIN ANALYZEs each statement. */
async function explainAll(app: RunningApp, url: string, meta: Meta, all: Case[], log: (s: string) => void) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const key = await app.app.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: meta.apiKeyId } });
    const principal = (limited: boolean): Principal => ({
      kind: 'API_KEY',
      workspaceId: meta.workspaceId,
      workspaceOwnerId: meta.ownerId,
      accountId: null,
      apiKeyId: key.id,
      oauthAppId: null,
      credentialId: key.id,
      name: key.name,
      readOnly: false,
      bankAccountIds: limited ? [meta.bankAccountId] : null,
    });
    for (const k of all) {
      if (!k.explain) continue;
      const sent: { text: string; params: unknown[] }[] = [];
      const deps = app.app.deps;
      const record = (text: string, params: unknown[]) => {
        if (!/^\s*(BEGIN|COMMIT|SET )/i.test(text)) sent.push({ text, params });
      };
      const sql: Deps['sql'] = {
        query: (text, params = [], opts) => (record(text, params), deps.sql.query(text, params, opts)),
        transaction: (fn) => deps.sql.transaction((tx) => fn({ query: (text, params = [], opts) => (record(text, params), tx.query(text, params, opts)) })),
      };
      const prisma = new Proxy(deps.prisma, {
        get(target, prop, receiver) {
          if (prop === '$queryRawUnsafe') return (text: string, ...params: unknown[]) => (record(text, params), target.$queryRawUnsafe(text, ...params));
          return Reflect.get(target, prop, receiver);
        },
      });
      await k.explain({ ...deps, sql, prisma } as Deps, principal(!!k.limited));
      log(`\n── ${k.label}`);
      for (const q of sent) {
        const plan = await c.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${q.text}`, q.params as any[]);
        log(`   ${q.text.replace(/\s+/g, ' ').slice(0, 400)}`);
        for (const r of plan.rows) log(`     ${r['QUERY PLAN']}`);
      }
    }
  } finally {
    await c.end();
  }
}
