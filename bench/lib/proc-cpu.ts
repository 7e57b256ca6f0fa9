/**
 * CPU time of the processes that serve a bench stack, read from /proc (Linux): the process running the Neon
 * stand-in and everything under it (wrangler's node process, workerd), and the PostgreSQL backends connected
 * to the stack's database (found by the database name in their process title). Values are in seconds of
 * user + system time; a caller snapshots before and after and keeps the largest value seen per process, so a
 * backend that exits between snapshots loses at most one polling interval.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS = 100;

interface Stat {
  ppid: number;
  cpu: number;
  comm: string;
}

function stat(pid: number): Stat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = s.lastIndexOf(")");
    const f = s.slice(close + 2).split(" ");
    return {
      ppid: Number(f[1]),
      cpu: (Number(f[11]) + Number(f[12])) / TICKS,
      comm: s.slice(s.indexOf("(") + 1, close),
    };
  } catch {
    return null;
  }
}

/** A process's CPU seconds so far (user + system), or null once it is gone. */
export const processCpuSeconds = (pid: number): number | null => stat(pid)?.cpu ?? null;

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

/** `group:pid` → CPU seconds: stand-in (the root), workerd, node-wrangler (the rest under the root), pg. */
export function stackCpu(rootPid: number, database: string): Record<string, number> {
  const stats = new Map<number, Stat>();
  const children = new Map<number, number[]>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const s = stat(Number(d));
    if (!s) continue;
    stats.set(Number(d), s);
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), Number(d)]);
  }
  const out: Record<string, number> = {};
  const walk = (pid: number, depth: number) => {
    const s = stats.get(pid);
    if (!s) return;
    const group = depth === 0 ? "stand-in" : s.comm.startsWith("workerd") ? "workerd" : "node-wrangler";
    out[`${group}:${pid}`] = s.cpu;
    for (const c of children.get(pid) ?? []) walk(c, depth + 1);
  };
  walk(rootPid, 0);
  for (const [pid, s] of stats) {
    if (s.comm === "postgres" && cmdline(pid).includes(` ${database} `)) out[`pg:${pid}`] = s.cpu;
  }
  return out;
}

/** Per group, the CPU seconds spent between two snapshots. */
export function cpuDelta(
  first: Record<string, number>,
  last: Record<string, number>,
): Record<string, number> {
  const groups: Record<string, number> = {};
  for (const [k, v] of Object.entries(last)) {
    const g = k.split(":")[0] ?? k;
    groups[g] = (groups[g] ?? 0) + v - (first[k] ?? 0);
  }
  return groups;
}

/** The CPU seconds of this process's waited-for children (cutime + cstime). */
export function childrenCpu(): number {
  const s = readFileSync("/proc/self/stat", "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[13]) + Number(f[14])) / TICKS;
}

export const loadAverage = (): string =>
  readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
