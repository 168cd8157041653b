// CPU time of processes, as the kernel counts it (/proc/<pid>/stat: user + system time, this
// process's own threads, garbage collector and JIT threads included). bench:kafka reads it at both
// ends of a run's window to say how much CPU each record cost the engine and the broker: a figure
// that a busy machine moves far less than throughput, since it counts work, not waiting.

import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

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
 * The inodes of the sockets listening on TCP `port`, from /proc/net/tcp and tcp6 (state 0A is
 * LISTEN; the local address is hex ADDR:PORT).
 */
export function listeningInodes(tables: readonly string[], port: number): Set<string> {
  const inodes = new Set<string>()
  for (const table of tables)
    for (const line of table.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length < 10 || f[3] !== '0A') continue
      const local = f[1]!.split(':')
      if (Number.parseInt(local[local.length - 1]!, 16) === port) inodes.add(f[9]!)
    }
  return inodes
}

/** The pid of the process holding one of these socket inodes open (/proc/<pid>/fd), else null. */
function pidHolding(inodes: ReadonlySet<string>): number | null {
  if (inodes.size === 0) return null
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${entry}/fd`)
    } catch {
      continue // another user's process, or gone
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`))
        if (m && inodes.has(m[1]!)) return Number(entry)
      } catch {}
    }
  }
  return null
}

/** The pid of the process listening on TCP `port` on this machine, else null (found through /proc). */
export function pidListeningOn(port: number): number | null {
  const tables: string[] = []
  for (const t of ['/proc/net/tcp', '/proc/net/tcp6'])
    try {
      tables.push(readFileSync(t, 'utf8'))
    } catch {}
  return pidHolding(listeningInodes(tables, port))
}

/**
 * The pid of the Kafka broker `brokers` names when it is one broker on a loopback address of this
 * machine: the process listening on its port, whatever the port, the directory or the way it was
 * started, when that process is a Kafka broker; else null (a remote broker, or a proxy in front of
 * one: its CPU is not this machine's broker's to count).
 */
export function localBrokerPid(brokers: readonly string[]): number | null {
  if (brokers.length !== 1) return null
  const [host, port] = brokers[0]!.split(':')
  if (!['127.0.0.1', 'localhost', '::1'].includes(host ?? '')) return null
  const pid = pidListeningOn(Number(port))
  if (pid === null) return null
  try {
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
