// CPU time of processes, as the kernel counts it (/proc/<pid>/stat: user + system time, this
// process's own threads, garbage collector and JIT threads included). bench:kafka reads it at both
// ends of a run's window to say how much CPU each record cost the engine and the broker: a figure
// that a busy machine moves far less than throughput, since it counts work, not waiting.

import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'

/** Clock ticks per second of /proc's times (`getconf CLK_TCK`; 100 on Linux unless told otherwise). */
function ticksPerSecond(): number {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })
  const n = Number(r.stdout?.trim())
  return r.status === 0 && Number.isInteger(n) && n > 0 ? n : 100
}

let ticks: number | null = null

/**
 * utime + stime of one /proc/<pid>/stat line, in ticks. The command name (field 2) is in
 * parentheses and may itself hold spaces and parentheses, so fields are counted after the last ')'.
 */
export function cpuTicksOfStat(stat: string): number {
  const close = stat.lastIndexOf(')')
  if (close < 0) throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`)
  // After ')': field 3 (state) is index 0, so utime (field 14) is index 11 and stime (15) index 12.
  const fields = stat.slice(close + 2).split(' ')
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`no utime/stime in /proc/<pid>/stat: ${stat.slice(0, 80)}`)
  return utime + stime
}

/**
 * The CPU seconds the processes have used so far, summed; null where /proc cannot tell (not Linux,
 * or a process gone: its time is lost with it, so a sum without it would be too small).
 */
export function processCpuSeconds(pids: readonly number[]): number | null {
  if (pids.length === 0) return null
  ticks ??= ticksPerSecond()
  let sum = 0
  for (const pid of pids) {
    try {
      sum += cpuTicksOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
    } catch {
      return null
    }
  }
  return sum / ticks
}

/**
 * The pid of the broker scripts/kafka-broker.sh runs on this machine, when `brokers` is that one
 * broker on a loopback address and its pid file names a live Kafka process; else null (a remote or
 * other broker: its CPU is not this machine's to count).
 */
export function localBrokerPid(
  brokers: readonly string[],
  root = path.resolve(import.meta.dirname, '..'),
): number | null {
  if (brokers.length !== 1) return null
  const [host, port] = brokers[0]!.split(':')
  if (!['127.0.0.1', 'localhost', '::1'].includes(host ?? '')) return null
  const dir = process.env.KAFKA_DIR ?? path.join(root, '.kafka')
  try {
    if (readFileSync(path.join(dir, 'broker.port'), 'utf8').trim() !== port) return null
    const pid = Number(readFileSync(path.join(dir, 'broker.pid'), 'utf8').trim())
    if (!Number.isInteger(pid) || pid <= 0) return null
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('kafka.Kafka') ? pid : null
  } catch {
    return null
  }
}

/**
 * What the local broker's CPU seconds are at each call (null each time when it is not this machine's: localBrokerPid).
 */
export function localBrokerCpu(brokers: readonly string[]): () => number | null {
  const pid = localBrokerPid(brokers)
  return () => (pid === null ? null : processCpuSeconds([pid]))
}
