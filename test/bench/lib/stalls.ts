/**
 * `npx tsx test/bench/lib/stalls.ts <timeline.json> [app-diag.json]`: where an events-bench run lost its tail. Reads a
 * deposit timeline (BENCH_TIMELINE=<prefix>, one file per run tag) and prints the stalls: runs of deposits slower than
 * 25 ms, with when they started, how many and the worst. With an app timeline (BENCH_APP_DIAG=<prefix>), each 50 ms
 * window around a stall also shows the app's event-loop utilization, its CPU per wall second (above 1: collector
 * threads) and its garbage collections, which tells an app pause (busy, CPU high) from waiting on the database or
 * the machine (idle).
 */
import { readFileSync } from 'node:fs';

const [timelineFile, diagFile] = process.argv.slice(2);
if (!timelineFile) {
  console.error('usage: stalls.ts <timeline.json> [app-diag.json]');
  process.exit(2);
}
const SLOW = 25;
const W = 50;
const rows = (JSON.parse(readFileSync(timelineFile, 'utf8')) as [number, number | null, number | null][]).filter((r) => r[1] !== null);
const t0 = rows[0]![0];
const stalls: { from: number; to: number; n: number; worst: number }[] = [];
for (const [sent, latency] of rows) {
  if (latency! <= SLOW) continue;
  const last = stalls.at(-1);
  if (last && sent - last.to < 100) Object.assign(last, { to: sent, n: last.n + 1, worst: Math.max(last.worst, latency!) });
  else stalls.push({ from: sent, to: sent, n: 1, worst: latency! });
}
const slow = rows.filter((r) => r[1]! > SLOW).length;
console.log(`${rows.length} deposits, ${slow} slower than ${SLOW} ms, in ${stalls.length} stall(s):`);
const diag = diagFile ? (JSON.parse(readFileSync(diagFile, 'utf8')) as (string | number)[][]) : [];
for (const st of stalls) {
  console.log(`  at ${((st.from - t0) / 1000).toFixed(2)} s: ${st.n} deposit(s), worst ${st.worst.toFixed(1)} ms`);
  if (!diag.length) continue;
  for (let w = st.from - 2 * W; w < st.to + 3 * W; w += W) {
    const ticks = diag.filter((e) => e[0] === 'tick' && (e[1] as number) >= w && (e[1] as number) < w + W);
    const wall = ticks.reduce((a, e) => a + (e[2] as number), 0);
    const elu = wall ? ticks.reduce((a, e) => a + (e[2] as number) * (e[3] as number), 0) / wall : NaN;
    const cpu = wall ? ticks.reduce((a, e) => a + (e[4] as number), 0) / wall : NaN;
    const gcs = diag.filter((e) => e[0] === 'gc' && (e[1] as number) >= w && (e[1] as number) < w + W).map((e) => `${(e[2] as number).toFixed(1)} ms (kind ${e[3]})`);
    const inWindow = rows.filter((r) => r[0] >= w && r[0] < w + W).map((r) => r[1]!);
    const worst = inWindow.length ? Math.max(...inWindow) : NaN;
    console.log(`    ${((w - t0) / 1000).toFixed(2)} s  worst ${worst.toFixed(1).padStart(6)} ms  app busy ${elu.toFixed(2)}  CPU ${cpu.toFixed(2)}  ${gcs.length ? `GC ${gcs.join(', ')}` : ''}`);
  }
}
