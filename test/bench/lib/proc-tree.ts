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
    // f[0] = state (field 3), f[1] = ppid (4), f[11] = utime (14), f[12] = stime (15), f[13] = cutime (16), f[14] =
    // cstime (17): the CPU of its children that exited and were waited for. With them, a tree's sum does not drop when
    // a process of it exits between two readings (a PostgreSQL backend's CPU passes to the postmaster that reaps it).
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return { pid, ppid: Number(f[1]), comm, cpuMs: (ticks * 1000) / TICKS_PER_SECOND };
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
  /** Pss summed per command name (node, postgres, ...), MB; and under `<name> processes`, how many there were. */
  pssByCommandMb: Record<string, number>;
}

/** Memory of the given processes now. */
export function memoryOf(pids: number[]): TreeMemory {
  let rss = 0;
  let pss = 0;
  let n = 0;
  const byCommand: Record<string, number> = {};
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const own = kbField(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss');
      rss += kbField(status, 'VmRSS');
      pss += own;
      const name = /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '?';
      byCommand[name] = (byCommand[name] ?? 0) + own / 1024;
      byCommand[`${name} processes`] = (byCommand[`${name} processes`] ?? 0) + 1;
      n++;
    } catch {
      /* exited meanwhile */
    }
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024, processes: n, pssByCommandMb: byCommand };
}

/**
 * CPU time (user + system, ms) the given processes and their exited, reaped children have used so far (a process of
 * the list that exited itself is not counted).
 */
export function cpuOf(pids: number[]): number {
  return pids.reduce((a, pid) => a + (readStat(pid)?.cpuMs ?? 0), 0);
}

/**
 * Samples the memory of a tree (re-walked each time: children come and go) every `everyMs` until stopped; the peak
 * of the RSS sum and of the PSS sum, and how the PSS peak divided among the commands.
 */
export function sampleTreeMemory(
  root: () => number[],
  everyMs = 100,
): { stop(): { peakRssMb: number; peakPssMb: number; samples: number; atPeakPssByCommandMb: Record<string, number> } } {
  let peakRss = 0;
  let peakPss = 0;
  let atPeak: Record<string, number> = {};
  let samples = 0;
  const take = () => {
    const m = memoryOf(root());
    peakRss = Math.max(peakRss, m.rssMb);
    if (m.pssMb > peakPss) {
      peakPss = m.pssMb;
      atPeak = m.pssByCommandMb;
    }
    samples++;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return { peakRssMb: peakRss, peakPssMb: peakPss, samples, atPeakPssByCommandMb: atPeak };
    },
  };
}
