// Telemetry leaves the engine as typed, aggregated events: one per batch, commit or lifecycle
// change, never one per record. Step counters are plain numbers on each task, read by the lab.

import type { Step } from '../../lib/five-steps.ts'

export interface TxnEndEvent {
  type: 'txn-end'
  workerId: string
  transactionalId: string
  producerId: number
  epoch: number
  localTxnId: number
  outcome: 'committed' | 'aborted'
  reason: 'error' | 'fenced' | null
  partitions: string[]
  outputRecords: number
  changelogRecords: number
  offsetsCommitted: number
  beginMs: number
  endMs: number
  /**
   * The EndTxn request's latency: the producer's commitTransaction or abortTransaction, ms
   * (absent from worker processes of older versions).
   */
  endTxnMs?: number
  /** sendOffsetsToTransaction's latency, ms; absent when the transaction sent no offsets. */
  sendOffsetsMs?: number
}

export type EngineEvent =
  | {
      type: 'producer-init'
      workerId: string
      transactionalId: string | null
      producerId: number
      epoch: number
      atMs: number
    }
  | {
      type: 'txn-begin'
      workerId: string
      transactionalId: string
      producerId: number
      epoch: number
      localTxnId: number
      atMs: number
    }
  | TxnEndEvent
  | { type: 'offsets-committed'; workerId: string; offsets: { partition: number; offset: number }[]; atMs: number }
  | { type: 'task-created'; workerId: string; taskId: string; atMs: number }
  | { type: 'task-closed'; workerId: string; taskId: string; clean: boolean; atMs: number }
  | { type: 'restore-start'; workerId: string; taskId: string; fromOffset: number; toOffset: number; atMs: number }
  /** fromOffset/toOffset: the changelog offsets restored (absent from worker processes of older versions). */
  | {
      type: 'restore-end'
      workerId: string
      taskId: string
      records: number
      fromOffset?: number
      toOffset?: number
      atMs: number
    }
  | { type: 'fence-complete'; workerId: string; taskId: string; atMs: number }
  | { type: 'task-migrated'; workerId: string; taskIds: string[]; reason: string; atMs: number }
  | {
      type: 'poison-record'
      workerId: string
      taskId: string
      partition: number
      offset: number
      policy: 'log-and-continue' | 'fail'
      atMs: number
    }
  | { type: 'worker-failed'; workerId: string; error: string; atMs: number }
  | {
      type: 'trace'
      workerId: string
      taskId: string
      key: string
      partition: number
      offset: number
      step: Step
      atMs: number
    }

export interface TelemetrySink {
  emit(event: EngineEvent): void
}

export const NO_TELEMETRY: TelemetrySink = { emit: () => {} }
