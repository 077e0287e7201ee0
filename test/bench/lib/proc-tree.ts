/**
 * A process and everything it started, read from /proc (Linux): the pids of the tree, its resident memory (VmRSS
 * summed, and PSS summed: shared pages such as a PostgreSQL server's shared buffers counted once across the tree) and
 * its CPU time. For the embedded scenario, where the service may run its database as child processes.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface Stat {
  pid: number;
  ppid: number;
  comm: string;
  /** user + system CPU, ms */
  cpuMs: number;
}

function readStat(pid: number): Stat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may contain spaces or parentheses: the fields after it follow the last ')'.
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const f = s.slice(close + 2).split(' ');
    // f[0] = state (field 3), f[1] = ppid (4), f[11] = utime (14), f[12] = stime (15)
    return { pid, ppid: Number(f[1]), comm, cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SECOND };
  } catch {
    return null; // gone meanwhile
  }
}

function allStats(): Stat[] {
  const out: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(Number(name));
    if (st) out.push(st);
  }
  return out;
}

/** The process `root` and all its descendants (with their command names). */
export function processTree(root: number): Stat[] {
  const stats = allStats();
  const children = new Map<number, Stat[]>();
  for (const s of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const self = stats.find((s) => s.pid === root);
  if (!self) return [];
  const out: Stat[] = [];
  const walk = (s: Stat) => {
    out.push(s);
    for (const c of children.get(s.pid) ?? []) walk(c);
  };
  walk(self);
  return out;
}

function kbField(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

export interface TreeMemory {
  /** Sum of VmRSS over the processes, MB. */
  rssMb: number;
  /** Sum of Pss over the processes, MB (shared pages divided among the processes sharing them). */
  pssMb: number;
  processes: number;
}

/** Memory of the given processes now. */
export function memoryOf(pids: number[]): TreeMemory {
  let rss = 0;
  let pss = 0;
  let n = 0;
  for (const pid of pids) {
    try {
      rss += kbField(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
      pss += kbField(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss');
      n++;
    } catch {
      /* exited meanwhile */
    }
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024, processes: n };
}

/** CPU time (user + system, ms) the given processes have used so far (a process that exited is not counted). */
export function cpuOf(pids: number[]): number {
  return pids.reduce((a, pid) => a + (readStat(pid)?.cpuMs ?? 0), 0);
}

/**
 * Samples the memory of a tree (re-walked each time: children come and go) every `everyMs` until stopped; the peak
 * of the RSS sum and of the PSS sum.
 */
export function sampleTreeMemory(root: () => number[], everyMs = 100): { stop(): { peakRssMb: number; peakPssMb: number; samples: number } } {
  let peakRss = 0;
  let peakPss = 0;
  let samples = 0;
  const take = () => {
    const m = memoryOf(root());
    peakRss = Math.max(peakRss, m.rssMb);
    peakPss = Math.max(peakPss, m.pssMb);
    samples++;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { peakRssMb: peakRss, peakPssMb: peakPss, samples };
    },
  };
}
