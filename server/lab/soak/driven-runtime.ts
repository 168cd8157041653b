// What the soak and the sweep drive on either backend: a RunRuntime (run-runtime.ts) with the few
// members both runtimes, LabRuntime (in-process workers) and KafkaLabRuntime (worker processes),
// already offer: the config, the partition count, the load generator's rate, pausing a worker,
// the group's committed offsets and the connection's capabilities. Nothing here asks which backend
// it is: what a backend can do is read from `connection.capabilities`.

import type { Step } from '../../../lib/lab-protocol.ts'
import type { StreamsConfig } from '../../../lib/streams-config.ts'
import type { LogCapabilities } from '../../log/capabilities.ts'
import type { Time } from '../../log/time.ts'
import type { LogInspector, LogReader } from '../../log/types.ts'
import { validateRun, type ValidateOptions } from '../../validator/validator.ts'
import type { ValidationReport } from '../../validator/report.ts'
import type { RunRuntime } from '../run-runtime.ts'

export interface DrivenTask {
  readonly state: string
  readonly partition: number
  /** The next input offset the task will process. */
  readonly consumedOffset: number
}

export interface DrivenSlot {
  process: { readonly state: string }
  worker: { readonly id: string; readonly tasks: ReadonlyMap<number, DrivenTask> } | null
}

export interface DrivenRuntime extends RunRuntime {
  readonly config: Readonly<StreamsConfig>
  readonly options: { readonly partitions: number }
  readonly connection: { inspector(): LogInspector; reader(): LogReader; readonly capabilities: LogCapabilities }
  readonly generator: { readonly finished: boolean; readonly rate: number; readonly done: Promise<void>; setRate(ratePerSec: number): void; stop(): void }
  liveSlots(): DrivenSlot[]
  /** Freezes a worker (at a step where the runtime can place one, else as a whole). */
  pause(workerId: string, step?: Step | null): boolean
  resume(workerId: string): boolean
  /** The group's committed input offsets, per partition (null: none yet). */
  committedOffsets(): readonly (number | null)[]
}

/** Live workers with at least one task, running (not paused). */
export function busyWorkers(lab: DrivenRuntime): DrivenSlot[] {
  return lab.liveSlots().filter((s) => s.process.state === 'running' && (s.worker?.tasks.size ?? 0) > 0)
}

/** Every input partition has a running task, and every live worker owns at least one. */
export function groupSettled(lab: DrivenRuntime): boolean {
  const live = lab.liveSlots()
  const owned = new Set<number>()
  for (const s of live) for (const t of s.worker?.tasks.values() ?? []) if (t.state === 'running') owned.add(t.partition)
  return owned.size === lab.options.partitions && live.every((s) => (s.worker?.tasks.size ?? 0) > 0)
}

/** Every partition's committed offset has reached `ends`. */
export function committedUpTo(lab: DrivenRuntime, ends: readonly number[]): boolean {
  const committed = lab.committedOffsets()
  return ends.every((e, p) => (committed[p] ?? 0) >= e)
}

/** What the validator reads for this runtime's application. */
export function validationTopics(lab: RunRuntime): ValidateOptions {
  return { groupId: lab.groupId, inputTopic: lab.topics.input, outputTopic: lab.topics.output, changelogTopic: lab.topics.changelog, dlqTopic: lab.topics.deadLetter }
}

export function validateRuntime(lab: RunRuntime): Promise<ValidationReport> {
  return validateRun(lab.connection.inspector(), validationTopics(lab))
}

/**
 * Calls again every 100 ms of `time` while the call throws (a remote log right after an outage),
 * until maxMs have passed; then the last error is thrown.
 */
export async function untilAnswered<T>(time: Time, call: () => Promise<T>, maxMs: number): Promise<T> {
  const deadline = time.now() + maxMs
  for (;;) {
    const outcome = await call().then(
      (value) => ({ answered: true as const, value }),
      (error: unknown) => ({ answered: false as const, error }),
    )
    if (outcome.answered) return outcome.value
    if (time.now() > deadline) throw outcome.error
    await time.sleep(100)
  }
}

/** Waits until `done` holds, checking every stepMs; false after maxMs. */
export async function waitUntil(time: Time, done: () => boolean, maxMs: number, stepMs = 100): Promise<boolean> {
  const deadline = time.now() + maxMs
  while (!done()) {
    if (time.now() > deadline) return false
    await time.sleep(stepMs)
  }
  return true
}
