/**
 * `npx tsx test/bench/lib/cpuprofile.ts <file.cpuprofile> [top] [from-to]`: self and inclusive time by function and by
 * file of a V8 CPU profile (e.g. from BENCH_CPU_PROF=<dir> npm run bench -- --only events), to see where an app
 * process spends; with `from-to` (seconds since the profile started, e.g. 40-52) only the samples in that window. A
 * timeline of busy (non-idle) time per second is printed first, to find the window of a phase.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg, windowArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: cpuprofile.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 40);
const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const [from, to] = windowArg ? windowArg.split('-').map((x) => Number(x) * 1e6) : [0, Infinity];
const idleId = p.nodes.find((n) => n.callFrame.functionName === '(idle)')?.id;
const self = new Map<number, number>();
const busyPerSecond: number[] = [];
let t = 0;
p.samples.forEach((id, i) => {
  t += p.timeDeltas[i] ?? 0;
  if (id !== idleId) busyPerSecond[Math.floor(t / 1e6)] = (busyPerSecond[Math.floor(t / 1e6)] ?? 0) + (p.timeDeltas[i] ?? 0);
  if (t >= from && t < to) self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
});
console.log(`busy ms per second: ${Array.from(busyPerSecond, (x, s) => `${s}:${Math.round((x ?? 0) / 1000)}`).join(' ')}`);
const total = [...self.values()].reduce((a, b) => a + b, 0);

const short = (url: string) => url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, 'nm:').replace(/^.*\/work\/[^/]+\//, '');
const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const fileOf = (n: Node) => {
  const u = short(n.callFrame.url);
  if (!u) return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  return u.startsWith('nm:') ? u.split('/').slice(0, u.startsWith('nm:@') ? 2 : 1).join('/') : u;
};

const selfBy = new Map<string, number>();
const fileBy = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  selfBy.set(label(n), (selfBy.get(label(n)) ?? 0) + t);
  fileBy.set(fileOf(n), (fileBy.get(fileOf(n)) ?? 0) + t);
  // Inclusive: every distinct frame on the stack once.
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (!seen.has(l)) {
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + t);
    }
  }
}
const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${(t / 1000).toFixed(0).padStart(7)} ms  ${k}`);
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled over ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s`);
print('self time by package / file', fileBy);
print('self time by function', selfBy);
print('inclusive time by function', inclusive);
