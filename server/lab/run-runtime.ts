// What a headless run (headless-run.ts) needs from a runtime. LabRuntime (embedded log) satisfies
// it as it is; KafkaLabRuntime (server/lab/kafka) implements it with worker processes on Kafka.

import type { Step } from '../../lib/lab-protocol.ts'
import type { TaskTopics } from '../engine/stream-task.ts'
import type { SeededRandom, Time } from '../log/time.ts'
import type { LogInspector } from '../log/types.ts'
import type { LabEvent } from './lab-runtime.ts'
import type { Recovery } from './recovery-tracker.ts'

export interface RunSlotView {
  process: { readonly state: string }
  worker: { readonly id: string; readonly tasks: { readonly size: number } } | null
}

export interface RunRuntime {
  readonly time: Time
  readonly random: SeededRandom
  readonly generator: { readonly finished: boolean }
  readonly tracker: { readonly recoveries: readonly Recovery[] }
  readonly topics: TaskTopics
  readonly groupId: string
  readonly connection: { inspector(): LogInspector }
  readonly kills: number
  readonly droppedAcks: number
  readonly fenced: number
  onEvent(listener: (e: LabEvent) => void): void
  start(): Promise<void>
  liveSlots(): RunSlotView[]
  kill(workerId: string, step?: Step | null): boolean
  dropAcks(n: number): void
  /** All input produced and committed by the group. */
  caughtUp(): boolean
  committedTotal(): number
  /** Stops the load and every worker cleanly. */
  stop(): Promise<void>
  /** Set by runtimes other than the embedded one. */
  readonly backend?: 'embedded' | 'kafka'
  /** What this runtime measures differently from the embedded one, or cannot measure. */
  readonly notes?: readonly string[]
  /** While true, scheduled kills go on (default: while the generator still feeds). */
  faultWindowOpen?(): boolean
  /** Transactions as the runtime counts them (default: the broker's txn-ended events). */
  transactionCounts?(): { committed: number; aborted: number }
  /** Releases connections and processes after the run was validated. */
  close?(): Promise<void>
}
