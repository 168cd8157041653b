// What a round of per-task requests made at once (exactly_once: each task on its own producer)
// leaves the worker with: the tasks whose request succeeded, and one failure for the rest.

import { TaskCorruptedError, TaskMigratedError } from './errors.ts'

export interface TaskRequestOutcome<T> {
  tasks: T[]
  outcome: PromiseSettledResult<unknown>
}

/**
 * The tasks whose request succeeded, in order, and the failure of the others: migrated ones
 * first (a corrupted task left with unacknowledged records is found again at the next commit),
 * each kind's task ids gathered into one error. Any other failure (the worker killed, a bug) is
 * thrown as it is.
 */
export function taskOutcomes<T extends { id: string }>(
  requests: readonly TaskRequestOutcome<T>[],
): { sent: T[]; failed: TaskMigratedError | TaskCorruptedError | null } {
  let migrated: TaskMigratedError | null = null
  let corrupted: TaskCorruptedError | null = null
  const sent: T[] = []
  for (const { tasks, outcome } of requests) {
    if (outcome.status === 'fulfilled') {
      sent.push(...tasks)
      continue
    }
    const e: unknown = outcome.reason
    if (e instanceof TaskMigratedError)
      migrated = new TaskMigratedError([...(migrated?.taskIds ?? []), ...e.taskIds], e.message, { cause: e })
    else if (e instanceof TaskCorruptedError)
      corrupted = new TaskCorruptedError([...(corrupted?.taskIds ?? []), ...e.taskIds], e.message, { cause: e })
    else throw e
  }
  return { sent, failed: migrated ?? corrupted }
}
