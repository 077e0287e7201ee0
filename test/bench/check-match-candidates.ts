/**
 * `npx tsx test/bench/check-match-candidates.ts [--pg]`: the name-based candidate query of deposit matching
 * (matchCandidates in src/domain/deposits/candidates.ts) decides exactly as decideMatch() over every pending invoice of
 * the amount would (unless a lookup was cut at its limit: then it decides nothing, TOO_MANY_CANDIDATES). Random names over an alphabet of Hangul (also as NFD jamo), Latin (both cases, full-width), brackets
 * of several widths, whitespace and LIKE wildcards; random deposits (exact, truncated, bracketed, spaced, upper-cased,
 * decomposed, unrelated) and truncation lengths. The embedded PostgreSQL
 * in memory by default; `--pg` uses a scratch database on BENCH_DATABASE_URL. Exits 1 on any difference.
 */
import { invoiceNameColumns } from '../../src/domain/deposits/depositor-name.ts';
import { matchCandidates } from '../../src/domain/deposits/candidates.ts';
import { decideMatch, type MatchDecision } from '../../src/domain/deposits/name-matching.ts';
import { onEachDatabase } from './lib/scratch.ts';

const onPg = process.argv.includes('--pg');
const DEPOSITS = 1000;
let differ = 0;
await onEachDatabase([onPg ? 'PostgreSQL' : 'embedded'], async (_kind, db) => {
  await db.sql.exec(
    `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_1', 'a@example.com', 'a', 'x');
     INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('wsp_1', 'w', 'acc_1')`,
  );
  let seed = 42;
  const rnd = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const alphabet = ['홍', '길', '동', '김', 'a', 'b', 'A', 'Ｂ', '\u1100\u1161', '(', ')', '[', ']', '{', '}', '（', '）', '［', '］', '【', '】', '〔', '〕', '「', '」', '<', '>', '%', '_', '\\', ' ', '\u3000', '1'];
  const word = (min: number, max: number) => Array.from({ length: min + rnd(max - min + 1) }, () => alphabet[rnd(alphabet.length)]).join('');
  const names = new Set<string>();
  while (names.size < 3000) names.add(rnd(3) === 0 ? word(1, 4) : word(2, 9));
  const list = [...names];
  await db.prisma.invoice.createMany({
    data: list.map((n, i) => ({
      id: `ivc_${String(i).padStart(24, '0')}`,
      workspaceId: 'wsp_1',
      number: i + 1,
      issuerId: 'acc_1',
      customerName: n,
      ...invoiceNameColumns(n),
      amount: 1 + rnd(3),
      searchText: n,
      bankAccountIds: rnd(4) === 0 ? ['bac_other'] : [],
      createdAt: new Date(1_700_000_000_000 + i * 1000),
    })),
  });
  const now = new Date();
  const key = (x: MatchDecision<{ id: string }>) =>
    x.kind === 'NONE'
      ? 'NONE'
      : x.kind === 'MATCH'
        ? `MATCH ${x.method} ${x.candidate.id}`
        : x.kind === 'AMBIGUOUS'
          ? `AMBIGUOUS ${x.method} ${x.candidates.map((c) => c.id).join(',')}`
          : `TOO_MANY_CANDIDATES ${x.candidates.map((c) => c.id).join(',')}`;
  const tally: Record<string, number> = {};
  for (let k = 0; k < DEPOSITS; k++) {
    const base = list[rnd(list.length)];
    const truncation = [7, 3, 2, Number.POSITIVE_INFINITY][rnd(4)];
    const cut = [...base].slice(0, truncation === Number.POSITIVE_INFINITY ? 5 : truncation).join('');
    const variants = [cut, cut, base, base + '(' + word(0, 2) + ')', '[x]' + base, word(1, 8), base.replace(/[()[\]{}（）［］【】〔〕「」<>]/g, ''), base.toUpperCase(), base.normalize('NFD'), base.slice(0, 3) + ' ' + base.slice(3)];
    const depositName = variants[rnd(variants.length)].trim();
    if (!depositName) continue;
    const amount = 1 + rnd(3);
    const everything = await db.prisma.invoice.findMany({
      where: { workspaceId: 'wsp_1', amount, status: 'PENDING', OR: [{ bankAccountIds: { isEmpty: true } }, { bankAccountIds: { has: 'bac_main' } }] },
      orderBy: { createdAt: 'asc' },
    });
    const fetched = await matchCandidates(db.prisma as never, { workspaceId: 'wsp_1', bankAccountId: 'bac_main', amount, description: depositName }, truncation, now);
    const want = key(decideMatch(depositName, everything, truncation));
    const got = key(decideMatch(depositName, fetched.candidates, truncation, { complete: fetched.complete }));
    const kind = want.split(' ').slice(0, 2).join(' ');
    tally[kind] = (tally[kind] ?? 0) + 1;
    // A lookup cut at its limit decides nothing (TOO_MANY_CANDIDATES): counted, not a difference.
    if (!fetched.complete) tally['cut at the limit'] = (tally['cut at the limit'] ?? 0) + 1;
    else if (want !== got) {
      differ++;
      if (differ <= 5) console.log('DIFFERENT', JSON.stringify(depositName), truncation, want, '|', got);
    }
  }
  console.log(`${onPg ? 'PostgreSQL' : 'embedded'}: ${differ} of ${Object.values(tally).reduce((a, b) => a + b, 0)} deposits decided differently`, tally);
});
process.exit(differ ? 1 : 0);
