// CPU time of processes from /proc (Linux), for the focus bench's per-request figures: CPU
// spent per request moves far less with the machine's drift than requests per second do,
// so an A/B of a change that saves work shows there first.
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: Linux reports process times in hundredths of a second. */
const clockTicks = 100;

/** The fields of /proc/<pid>/stat after the command (which may hold spaces); [] when gone. */
function statOf(pid: number): string[] {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return [];
  }
}

/** utime + stime of one process and its reaped children, in ms; 0 when it is gone. */
function processMs(pid: number): number {
  const f = statOf(pid);
  if (f.length === 0) return 0;
  return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / clockTicks;
}

const commOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};

const allPids = (): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);

/** `pid` and every process below it (a service's WORKERS), from one pass over /proc. */
function treeOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const p of allPids()) {
    const parent = Number(statOf(p)[1]);
    children.set(parent, [...(children.get(parent) ?? []), p]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

/** CPU ms so far of the process trees under `pids` and of every PostgreSQL process. */
export function cpuNow(pids: number[]): { own: number; postgres: number } {
  return {
    own: pids.flatMap(treeOf).reduce((s, p) => s + processMs(p), 0),
    postgres: allPids()
      .filter((p) => commOf(p) === 'postgres')
      .reduce((s, p) => s + processMs(p), 0),
  };
}
