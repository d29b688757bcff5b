// CPU time of processes from /proc (Linux), for the focus bench's per-request figures: CPU
// spent per request moves far less with the machine's drift than requests per second do,
// so an A/B of a change that saves work shows there first (README, session 14).
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: Linux reports process times in hundredths of a second. */
const clockTicks = 100;

/** utime + stime of one process and its reaped children, in ms; 0 when it is gone. */
function processMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return (ticks * 1000) / clockTicks;
  } catch {
    return 0;
  }
}

const commOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};

/** The pids whose command name is `comm` (e.g. every PostgreSQL process). */
const pidsNamed = (comm: string): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => commOf(pid) === comm);

const parentOf = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
};

/** `pid` and every process below it (a service's WORKERS). */
function treeOf(pid: number): number[] {
  const all = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const p of all) if (parentOf(p) === tree[i]) tree.push(p);
  return tree;
}

/** CPU ms so far of the process trees under `pids` and of every PostgreSQL process. */
export function cpuNow(pids: number[]): { own: number; postgres: number } {
  return {
    own: pids.flatMap(treeOf).reduce((s, p) => s + processMs(p), 0),
    postgres: pidsNamed('postgres').reduce((s, p) => s + processMs(p), 0),
  };
}
