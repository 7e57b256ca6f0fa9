/** Runs the import CLI as a child process and measures it: wall time, CPU time and peak RSS (from /proc). */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { processCpuSeconds } from "./proc-cpu";

export interface CliRun {
  summary: Record<string, unknown>;
  seconds: number;
  /** The child's user + system CPU time: on a shared, loaded machine this says more than wall time. */
  cpuSeconds: number;
  peakRssMb: number;
}

export async function runCli(args: string[]): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/import.ts", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  let peakKb = 0;
  let cpuSeconds = 0;
  const poll = setInterval(async () => {
    const status = await readFile(`/proc/${child.pid}/status`, "utf8").catch(() => "");
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
    if (hwm > peakKb) peakKb = hwm;
    const cpu = child.pid === undefined ? null : processCpuSeconds(child.pid);
    if (cpu !== null && cpu > cpuSeconds) cpuSeconds = cpu;
  }, 100);
  await new Promise((resolve) => child.on("exit", resolve));
  clearInterval(poll);
  const seconds = (performance.now() - started) / 1000;
  const last = stdout.trim().split("\n").pop() ?? "{}";
  return {
    summary: JSON.parse(last) as Record<string, unknown>,
    seconds,
    cpuSeconds,
    peakRssMb: Math.round(peakKb / 1024),
  };
}
