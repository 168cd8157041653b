// One `eoscope worker` process in a slot of the worker-process runtime: its command line (the
// settings every member of the group shares), its stderr kept (the last lines, shown when it
// fails), and its exit.

import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { StreamsConfig } from '../../../lib/streams-config.ts'
import type { Logger } from '../../logging.ts'
import { lineText } from './kafka-log.ts'
import type { KafkaWorkerView } from './worker-telemetry.ts'

const BIN = fileURLToPath(new URL('../../../bin/eoscope.mjs', import.meta.url))
const STDERR_LINES = 40
/** How long a worker gets to stop cleanly (commit, close, leave) before it is SIGKILLed. */
const STOP_GRACE_MS = 20_000

export type KafkaProcessState = 'starting' | 'running' | 'paused' | 'killed' | 'exited'

export interface KafkaSlot {
  slotId: string
  incarnation: number
  /** stopAsked: the runtime asked this process to stop (SIGTERM): its exit is no crash (worker-exit.ts). */
  process: { state: KafkaProcessState; stopAsked?: boolean }
  worker: KafkaWorkerView | null
  child: ChildProcess | null
  startedAtMs: number
  exited: Promise<void>
  /** The last lines the process wrote to stderr. */
  stderr: string[]
}

export function workerArgs(
  brokers: readonly string[],
  c: StreamsConfig,
  partitions: number,
  slotId: string,
  workerId: string,
): string[] {
  return [
    'worker',
    '--brokers',
    brokers.join(','),
    '--application-id',
    c['application.id'],
    '--slot-id',
    slotId,
    '--worker-id',
    workerId,
    '--guarantee',
    c['processing.guarantee'],
    '--commit-interval-ms',
    String(c['commit.interval.ms']),
    '--session-timeout-ms',
    String(c['session.timeout.ms']),
    '--transaction-timeout-ms',
    String(c['transaction.timeout.ms']),
    '--idempotence',
    c['enable.idempotence'] ? 'on' : 'off',
    '--partitions',
    String(partitions),
    '--max-poll-records',
    String(c['max.poll.records']),
  ]
}

/** Where a worker's stderr goes besides the slot's last lines: this process's log, or nowhere. */
export type WorkerLogs = 'forward' | 'keep'

export type SpawnWorker = typeof spawnWorker

/** Starts the process of a slot's new incarnation; `onExit` runs once it has exited. */
export function spawnWorker(
  slot: KafkaSlot,
  args: string[],
  logs: WorkerLogs,
  log: Logger,
  onExit: (code: number | null, signal: NodeJS.Signals | null) => void,
): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  slot.child = child
  slot.stderr = []
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (line.length === 0) continue
      slot.stderr.push(lineText(line))
      if (slot.stderr.length > STDERR_LINES) slot.stderr.shift()
      if (logs === 'forward') log.info({ slotId: slot.slotId }, lineText(line))
    }
  })
  slot.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      onExit(code, signal)
      resolve()
    })
  })
  return child
}

/** Stops these slots' live processes cleanly (SIGCONT first if paused, then SIGTERM), SIGKILL after a grace. */
export async function stopProcesses(slots: readonly KafkaSlot[]): Promise<void> {
  const live = slots.filter((s) => s.child && (s.process.state === 'running' || s.process.state === 'paused'))
  for (const s of live) {
    s.process.stopAsked = true
    if (s.process.state === 'paused') s.child!.kill('SIGCONT')
    s.child!.kill('SIGTERM')
  }
  await Promise.all(
    live.map(async (s) => {
      const timer = setTimeout(() => s.child?.kill('SIGKILL'), STOP_GRACE_MS)
      await s.exited
      clearTimeout(timer)
    }),
  )
}

/** Every partition owned by a running task, and every one of these slots' workers owning at least one. */
export function everyPartitionOwned(live: readonly KafkaSlot[], partitions: number): boolean {
  const owned = new Set<number>()
  for (const s of live)
    for (const t of s.worker?.tasks.values() ?? []) if (t.state === 'running') owned.add(t.partition)
  return owned.size === partitions && live.every((s) => (s.worker?.tasks.size ?? 0) > 0)
}

/**
 * Signals an own worker's process in state `from` (SIGSTOP, SIGCONT) and moves it to
 * `to`; false when there is none in that state.
 */
export function signalSlot(
  slot: KafkaSlot | undefined,
  m: { from: KafkaProcessState; signal: NodeJS.Signals; to: KafkaProcessState },
): boolean {
  if (!slot?.child || slot.process.state !== m.from) return false
  slot.child.kill(m.signal)
  slot.process.state = m.to
  return true
}
