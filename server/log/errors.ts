// Errors of the log seam, named by Kafka's protocol error codes, with a retriable flag and a cause.

export type LogErrorCode =
  | 'PRODUCER_FENCED' // INVALID_PRODUCER_EPOCH: a newer epoch of this producer exists
  | 'OUT_OF_ORDER_SEQUENCE_NUMBER'
  | 'INVALID_TXN_STATE'
  | 'CONCURRENT_TRANSACTIONS'
  | 'ILLEGAL_GENERATION'
  | 'UNKNOWN_MEMBER_ID'
  | 'UNSTABLE_OFFSET_COMMIT'
  | 'UNKNOWN_TOPIC_OR_PARTITION'
  | 'TOPIC_ALREADY_EXISTS'
  | 'OFFSET_OUT_OF_RANGE'
  | 'REQUEST_TIMED_OUT'
  | 'INVALID_REQUEST'
  | 'BROKER_NOT_AVAILABLE'
  | 'NOT_ENOUGH_REPLICAS' // fewer in-sync replicas than min.insync.replicas (before or after the append)

const RETRIABLE: ReadonlySet<LogErrorCode> = new Set<LogErrorCode>([
  'CONCURRENT_TRANSACTIONS',
  'UNSTABLE_OFFSET_COMMIT',
  'REQUEST_TIMED_OUT',
  'BROKER_NOT_AVAILABLE',
  'NOT_ENOUGH_REPLICAS',
])

export class LogError extends Error {
  readonly name = 'LogError'
  readonly retriable: boolean
  constructor(
    readonly code: LogErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${code}: ${message}`, options)
    this.retriable = RETRIABLE.has(code)
  }
}

export function isLogError(e: unknown, code?: LogErrorCode): e is LogError {
  return e instanceof LogError && (code === undefined || e.code === code)
}

/**
 * Thrown by every client call of a process that was killed. The process is gone: the caller must
 * stop at once and clean nothing up (no flush, no commit, no abort, no leave-group).
 */
export class ProcessKilledError extends Error {
  readonly name = 'ProcessKilledError'
  constructor(readonly processId: string) {
    super(`process ${processId} was killed`)
  }
}
