// What the soak and the sweep ask of the lab's runtime port (lab-runtime.ts), whichever runtime
// implements it: busy workers, a settled group, committed offsets, validation. Nothing here asks
// which backend it is: what a backend can do is read from `connection.capabilities`.

import type { Time } from '../log/time.ts'
import { validateRun, type ValidateOptions } from '../validator/validator.ts'
import type { ValidationReport } from '../validator/report.ts'
import type { LabRuntime, RuntimeSlot } from './lab-runtime.ts'

/** Live workers with at least one task, running (not paused). */
export function busyWorkers(lab: LabRuntime): RuntimeSlot[] {
  return lab.liveSlots().filter((s) => s.process.state === 'running' && (s.worker?.tasks.size ?? 0) > 0)
}

/** Every input partition has a running task, and every live worker owns at least one. */
export function groupSettled(lab: LabRuntime): boolean {
  const live = lab.liveSlots()
  const owned = new Set<number>()
  for (const s of live)
    for (const t of s.worker?.tasks.values() ?? []) if (t.state === 'running') owned.add(t.partition)
  return owned.size === lab.partitions && live.every((s) => (s.worker?.tasks.size ?? 0) > 0)
}

/** Every partition's committed offset has reached `ends`. */
export function committedUpTo(lab: LabRuntime, ends: readonly number[]): boolean {
  const committed = lab.committedOffsets()
  return ends.every((e, p) => (committed[p] ?? 0) >= e)
}

/** What the validator reads for this runtime's application. */
export function validationTopics(lab: LabRuntime): ValidateOptions {
  return {
    groupId: lab.groupId,
    inputTopic: lab.topics.input,
    outputTopic: lab.topics.output,
    changelogTopic: lab.topics.changelog,
    dlqTopic: lab.topics.deadLetter,
  }
}

export function validateRuntime(lab: LabRuntime): Promise<ValidationReport> {
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
