// The client side of a transactional producer as data, shared by the embedded and the Kafka
// connection: its states, the transitions between them, and the states each call is legal in
// (after kafkajs' VALID_STATE_TRANSITIONS and Kafka's TransactionManager).
//
//                       initTransactions (a new epoch)
//                              ┌────┐
//                              ▼    │
//   UNINITIALIZED ──init──▶  READY ─┘ ◀───────────── done ──────────────┐
//                              │                                         │
//                      beginTransaction                                  │
//                              ▼                                         │
//                         TRANSACTING ──commit──▶ COMMITTING ──done──────┤
//                          │       │                  │ failed           │
//       send / sendOffsets │       └──abort──┐        ▼                  │
//               failed     ▼                 ▼   FATAL_ERROR ◀─failed─ ABORTING
//                   ABORTABLE_ERROR ──abort──▶ ABORTING ──done───────────┘
//
//   from any open state: PRODUCER_FENCED ──▶ FENCED;   close ──▶ CLOSED (from every state)
//
// `abort` follows Kafka's TransactionManager: ABORTING_TRANSACTION is reached from IN_TRANSACTION
// or ABORTABLE_ERROR only. There is no transaction to abort in READY, a commit in flight
// (COMMITTING) may not be turned into an abort, and a failed EndTxn is fatal: the producer must be
// closed and replaced (a new one fences this epoch and aborts what is left open).

import { LogError, isLogError } from './errors.ts'
import type { ControlType, ProducerOptions } from './types.ts'

export type ProducerState =
  | 'UNINITIALIZED'
  | 'READY'
  | 'TRANSACTING'
  | 'COMMITTING'
  | 'ABORTING'
  | 'ABORTABLE_ERROR'
  | 'FENCED'
  | 'FATAL_ERROR'
  | 'CLOSED'

export const PRODUCER_STATES: readonly ProducerState[] = [
  'UNINITIALIZED',
  'READY',
  'TRANSACTING',
  'COMMITTING',
  'ABORTING',
  'ABORTABLE_ERROR',
  'FENCED',
  'FATAL_ERROR',
  'CLOSED',
]

/** Each state and the states it may move to. */
export const VALID_STATE_TRANSITIONS: Readonly<Record<ProducerState, readonly ProducerState[]>> = {
  UNINITIALIZED: ['READY', 'FENCED', 'CLOSED'],
  READY: ['READY', 'TRANSACTING', 'FENCED', 'CLOSED'],
  TRANSACTING: ['COMMITTING', 'ABORTING', 'ABORTABLE_ERROR', 'FENCED', 'CLOSED'],
  COMMITTING: ['READY', 'FATAL_ERROR', 'FENCED', 'CLOSED'],
  ABORTING: ['READY', 'FATAL_ERROR', 'FENCED', 'CLOSED'],
  ABORTABLE_ERROR: ['ABORTING', 'FENCED', 'CLOSED'],
  FENCED: ['CLOSED'],
  FATAL_ERROR: ['CLOSED'],
  CLOSED: [],
}

export type TransactionalCall = 'initTransactions' | 'beginTransaction' | 'send' | 'sendOffsets' | 'commit' | 'abort'

export const TRANSACTIONAL_CALLS: readonly TransactionalCall[] = [
  'initTransactions',
  'beginTransaction',
  'send',
  'sendOffsets',
  'commit',
  'abort',
]

/** The guard table: each transactional call and the states it is legal in. */
export const LEGAL_STATES: Readonly<Record<TransactionalCall, readonly ProducerState[]>> = {
  initTransactions: ['UNINITIALIZED', 'READY'],
  beginTransaction: ['READY'],
  send: ['TRANSACTING'],
  sendOffsets: ['TRANSACTING'],
  commit: ['TRANSACTING'],
  abort: ['TRANSACTING', 'ABORTABLE_ERROR'],
}

/** Where a call that fails (other than by fencing) leaves the producer; null: where it was. */
export const STATE_AFTER_FAILURE: Readonly<Record<TransactionalCall, ProducerState | null>> = {
  initTransactions: null,
  beginTransaction: null,
  send: 'ABORTABLE_ERROR',
  sendOffsets: 'ABORTABLE_ERROR',
  commit: 'FATAL_ERROR',
  abort: 'FATAL_ERROR',
}

/** The producer's transactional.id (null: not transactional); a transactional producer must be idempotent. */
export function transactionalIdOf(options: ProducerOptions): string | null {
  const id = options.transactionalId ?? null
  if (id !== null && !options.idempotent)
    throw new LogError('INVALID_REQUEST', 'a transactional producer must be idempotent (enable.idempotence=true)')
  return id
}

/** One producer's state, moved only along VALID_STATE_TRANSITIONS and checked against LEGAL_STATES. */
export class ProducerStateMachine {
  private current: ProducerState = 'UNINITIALIZED'

  /** `describe` names the producer in errors (transactional id, producer id). */
  constructor(private readonly describe: () => string) {}

  get state(): ProducerState {
    return this.current
  }

  /** Throws PRODUCER_FENCED, INVALID_REQUEST (closed) or INVALID_TXN_STATE when `call` is not legal now. */
  require(call: TransactionalCall): void {
    this.requireOpen()
    if (this.current === 'FATAL_ERROR') {
      throw new LogError(
        'INVALID_TXN_STATE',
        `producer ${this.describe()} failed while ending a transaction; close it and create a new one`,
      )
    }
    if (!LEGAL_STATES[call].includes(this.current))
      throw new LogError('INVALID_TXN_STATE', `${call} is not legal in state ${this.current} (${this.describe()})`)
  }

  /** For calls outside transactions (a non-transactional send): only a fenced or closed producer refuses. */
  requireOpen(): void {
    if (this.current === 'FENCED')
      throw new LogError(
        'PRODUCER_FENCED',
        `producer ${this.describe()} was fenced by a newer epoch; close it and create a new one`,
      )
    if (this.current === 'CLOSED') throw new LogError('INVALID_REQUEST', `producer ${this.describe()} is closed`)
  }

  transitionTo(next: ProducerState): void {
    if (!VALID_STATE_TRANSITIONS[this.current].includes(next)) {
      throw new LogError(
        'INVALID_TXN_STATE',
        `producer ${this.describe()}: invalid transition from ${this.current} to ${next}`,
      )
    }
    this.current = next
  }

  /** Records that `call` failed with `error` (fenced, or STATE_AFTER_FAILURE), then throws it. */
  fail(call: TransactionalCall, error: unknown): never {
    const next = isLogError(error, 'PRODUCER_FENCED') ? 'FENCED' : STATE_AFTER_FAILURE[call]
    if (next !== null && VALID_STATE_TRANSITIONS[this.current].includes(next)) this.current = next
    throw error
  }

  /**
   * commitTransaction or abortTransaction: the guard, then COMMITTING or ABORTING while `end`
   * runs (EndTxn), then READY; a failure of `end`, as `mapError` names it, moves to its state.
   */
  async endTransaction(
    result: ControlType,
    end: () => Promise<void>,
    mapError: (e: unknown) => unknown = (e) => e,
  ): Promise<void> {
    const call = result === 'COMMIT' ? 'commit' : 'abort'
    this.require(call)
    this.transitionTo(result === 'COMMIT' ? 'COMMITTING' : 'ABORTING')
    try {
      await end()
    } catch (e) {
      this.fail(call, mapError(e))
    }
    this.transitionTo('READY')
  }

  close(): void {
    this.current = 'CLOSED'
  }
}
