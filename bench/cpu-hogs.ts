// Busy-looping processes that keep the machine's cores busy beside a benchmark, so that it can
// show what a loaded machine does to the engine (bench:liveness always, bench:kafka with --hogs).
// Each hog is its own process, so the scheduler spreads them over the cores as it would another job.

import { spawn } from 'node:child_process'
import { flag } from './figures.ts'
import { processCpuSeconds } from './process-cpu.ts'

export const HOGS_WHAT =
  'busy-looping Node processes (for (;;) {}) started by the benchmark and running through every run'

/** The --hogs flag: a count ≥ 0 (exit 2 with the reason otherwise). */
export function hogsFlag(fallback: number): number {
  const n = Number(flag('hogs', String(fallback)))
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`--hogs takes a count ≥ 0, not ${flag('hogs', '')}\n`)
    process.exit(2)
  }
  return n
}

export interface CpuHogs {
  count: number
  /** The hogs' CPU seconds so far (/proc/<pid>/stat), null where /proc cannot tell or there are none. */
  cpuSeconds(): number | null
  stop(): void
}

export function startCpuHogs(count: number): CpuHogs {
  const hogs = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
  const pids = hogs.map((h) => h.pid).filter((p): p is number => p !== undefined)
  const stop = () => {
    for (const h of hogs) h.kill('SIGKILL')
  }
  // Never outlive the benchmark, however it ends.
  process.on('exit', stop)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))
  return { count, cpuSeconds: () => processCpuSeconds(pids), stop }
}

/** How many cores' worth of CPU the hogs took between two readings of cpuSeconds, over wallMs. */
export function coresTaken(cpu0: number | null, cpu1: number | null, wallMs: number): number | null {
  return cpu0 === null || cpu1 === null || wallMs <= 0 ? null : Number(((cpu1 - cpu0) / (wallMs / 1000)).toFixed(2))
}

/** Lets the hogs raise the 1-minute load average (an exponential average over a minute) before the first run. */
export function hogsRampUp(hogs: CpuHogs): Promise<void> {
  return hogs.count > 0 ? new Promise((r) => setTimeout(r, 60_000)) : Promise.resolve()
}
