// Engine errors, named after what the caller must do.

import { isLogError } from '../log/errors.ts'

/** An error about some of a worker's tasks: the caller acts on those tasks. */
abstract class TaskError extends Error {
  constructor(
    readonly taskIds: readonly string[],
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/**
 * The task's partition has moved or its producer was fenced: close the task dirty (no commit,
 * state discarded), rejoin the group, and let the next assignment decide where it runs.
 */
export class TaskMigratedError extends TaskError {
  readonly name = 'TaskMigratedError'
}

/** The task's local state cannot be trusted: wipe it and restore it from the changelog. */
export class TaskCorruptedError extends TaskError {
  readonly name = 'TaskCorruptedError'
}

/** Fatal for the worker: stop it and show the cause. */
export class StreamsError extends Error {
  readonly name = 'StreamsError'
}

/** Log errors that mean "another owner has taken over": handled as a migrated task. */
export function isMigrationError(e: unknown): boolean {
  return (
    isLogError(e, 'PRODUCER_FENCED') ||
    isLogError(e, 'UNKNOWN_MEMBER_ID') ||
    isLogError(e, 'ILLEGAL_GENERATION') ||
    isLogError(e, 'INVALID_TXN_STATE')
  )
}

/**
 * Log errors after which a send's outcome is unknown (the connection went, or the
 * request timed out): handled as a corrupted task.
 */
export function isSendOutcomeUnknown(e: unknown): boolean {
  return isLogError(e, 'BROKER_NOT_AVAILABLE') || isLogError(e, 'REQUEST_TIMED_OUT')
}
