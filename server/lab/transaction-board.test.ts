import { describe, expect, it } from 'vitest'
import { TransactionBoard } from './transaction-board.ts'
import type { TxnEnded } from '../log/embedded/transaction-coordinator.ts'
import type { TxnEndEvent } from '../engine/telemetry.ts'

const begin = (workerId: string, tid: string, producerId: number, epoch: number, localTxnId: number, atMs: number) =>
  ({ type: 'txn-begin', workerId, transactionalId: tid, producerId, epoch, localTxnId, atMs }) as const
const end = (
  workerId: string,
  tid: string,
  producerId: number,
  epoch: number,
  localTxnId: number,
  outcome: 'committed' | 'aborted',
  endMs: number,
): TxnEndEvent => ({
  type: 'txn-end',
  workerId,
  transactionalId: tid,
  producerId,
  epoch,
  localTxnId,
  outcome,
  reason: null,
  partitions: ['output-0'],
  outputRecords: 3,
  changelogRecords: 3,
  offsetsCommitted: 1,
  beginMs: 0,
  endMs,
})
const coordinatorAbort = (tid: string, producerId: number, reason: 'fenced' | 'timeout', endMs: number): TxnEnded => ({
  transactionalId: tid,
  producerId,
  epoch: 0,
  txnSeq: 1,
  partitions: [],
  groups: [],
  outcome: 'aborted',
  reason,
  startMs: 0,
  endMs,
})

describe('TransactionBoard', () => {
  it('follows a transaction from begin to commit with its record counts, and counts it', () => {
    const board = new TransactionBoard(() => false)
    board.onEngineEvent(begin('w1', 'app-0_0', 1000, 3, 1, 10))
    expect(board.totals()).toEqual({ committed: 0, aborted: 0, open: 1 })
    board.onEngineEvent(end('w1', 'app-0_0', 1000, 3, 1, 'committed', 110))
    const [t] = board.transactions()
    expect(t).toMatchObject({
      id: '1000.3.1',
      outcome: 'committed',
      endMs: 110,
      outputRecords: 3,
      changelogRecords: 3,
      offsetsCommitted: 1,
      abortReason: null,
    })
    expect(board.totals()).toEqual({ committed: 1, aborted: 0, open: 0 })
  })

  const labelsCoordinatorAbort =
    'labels a coordinator abort a crash when the worker that ran it was killed, a fencing when it lives on, a ' +
    'timeout when it timed out'
  it(labelsCoordinatorAbort, () => {
    const killed = new Set(['w1'])
    const board = new TransactionBoard((w) => killed.has(w))
    board.onEngineEvent(begin('w1', 'app-0_0', 1000, 3, 1, 10))
    board.onEngineEvent(begin('w2', 'app-0_1', 1001, 5, 1, 10))
    board.onEngineEvent(begin('w3', 'app-0_2', 1002, 7, 1, 10))
    board.onCoordinatorTxnEnded(coordinatorAbort('app-0_0', 1000, 'fenced', 50))
    board.onCoordinatorTxnEnded(coordinatorAbort('app-0_1', 1001, 'fenced', 60))
    board.onCoordinatorTxnEnded(coordinatorAbort('app-0_2', 1002, 'timeout', 70))
    const reasons = Object.fromEntries(board.transactions().map((t) => [t.transactionalId, t.abortReason]))
    expect(reasons).toEqual({ 'app-0_0': 'crash', 'app-0_1': 'fenced', 'app-0_2': 'timeout' })
    expect(board.totals().aborted).toBe(3)
    expect(board.producerTimelines().every((tl) => tl.fencings.length === 1)).toBe(true)
  })

  it('keeps the latest aborts in view after many newer transactions', () => {
    const board = new TransactionBoard(() => true)
    board.onEngineEvent(begin('w1', 'app-0_0', 1000, 1, 1, 0))
    board.onCoordinatorTxnEnded(coordinatorAbort('app-0_0', 1000, 'fenced', 5))
    for (let i = 2; i < 300; i++) {
      board.onEngineEvent(begin('w2', 'app-0_0', 1000, i, i, i * 10))
      board.onEngineEvent(end('w2', 'app-0_0', 1000, i, i, 'committed', i * 10 + 5))
    }
    const shown = board.transactions()
    expect(shown.length).toBeLessThanOrEqual(41)
    expect(shown.some((t) => t.outcome === 'aborted' && t.abortReason === 'crash')).toBe(true)
    expect(board.totals()).toEqual({ committed: 298, aborted: 1, open: 0 })
  })

  const keepsKilledWorkerTransaction =
    "keeps a killed worker's open transaction through the session timeout, however many others end meanwhile, " +
    "and aborts it at the new owner's init"
  it(keepsKilledWorkerTransaction, () => {
    // On Kafka the new owner initialises the transactional.id a session timeout (10 s) after the
    // kill: 4 tasks committing 10 transactions a second end 400 in between. Evicting by age dropped
    // the open one, and the kill's abort was never counted (the Kafka dashboard showed 0 aborts).
    const killed = new Set<string>()
    const board = new TransactionBoard((w) => killed.has(w))
    board.onEngineEvent({
      type: 'producer-init',
      workerId: 'w1',
      transactionalId: 'app-0_1',
      producerId: 7,
      epoch: 1,
      atMs: 0,
    })
    board.onEngineEvent(begin('w1', 'app-0_1', 7, 1, 48, 1))
    killed.add('w1')
    for (let i = 1; i <= 400; i++) {
      board.onEngineEvent(begin('w2', 'app-0_0', 5, 0, i, 1 + i))
      board.onEngineEvent(end('w2', 'app-0_0', 5, 0, i, 'committed', 2 + i))
    }
    board.onEngineEvent({
      type: 'producer-init',
      workerId: 'w3',
      transactionalId: 'app-0_1',
      producerId: 7,
      epoch: 3,
      atMs: 10_000,
    })
    expect(board.totals()).toEqual({ committed: 400, aborted: 1, open: 0 })
    expect(board.transactions().find((t) => t.transactionalId === 'app-0_1')).toMatchObject({
      outcome: 'aborted',
      abortReason: 'crash',
      endMs: 10_000,
    })
  })

  it('bounds the open transactions too, for ends that never arrive', () => {
    const board = new TransactionBoard(() => false)
    for (let i = 1; i <= 1_000; i++) board.onEngineEvent(begin('w1', `app-0_${i}`, i, 0, 1, i))
    expect(board.totals().open).toBeLessThanOrEqual(256)
  })

  it('records a fencing when another worker initialises a transactional.id, and the epochs it went through', () => {
    const board = new TransactionBoard(() => false)
    board.onEngineEvent({
      type: 'producer-init',
      workerId: 'w1',
      transactionalId: 'app-0_0',
      producerId: 1000,
      epoch: 0,
      atMs: 0,
    })
    board.onEngineEvent(begin('w1', 'app-0_0', 1000, 0, 1, 1))
    board.onEngineEvent({
      type: 'producer-init',
      workerId: 'w2',
      transactionalId: 'app-0_0',
      producerId: 1000,
      epoch: 2,
      atMs: 9,
    })
    const [tl] = board.producerTimelines()
    expect(tl!.epochs.map((e) => e.epoch)).toEqual([0, 2])
    expect(tl!.fencings).toEqual([{ atMs: 9, reason: "w2 called initTransactions: epoch 2 fences w1's epoch 0" }])
  })

  const endsPreviousOwnerTransaction =
    "ends the previous owner's open transaction as aborted when a new owner initialises the transactional.id " +
    '(what a Kafka client can know of it)'
  it(endsPreviousOwnerTransaction, () => {
    const killed = new Set(['w1'])
    const board = new TransactionBoard((w) => killed.has(w))
    board.onEngineEvent({
      type: 'producer-init',
      workerId: 'w1',
      transactionalId: 'app-0_0',
      producerId: 1000,
      epoch: 0,
      atMs: 0,
    })
    board.onEngineEvent(begin('w1', 'app-0_0', 1000, 0, 1, 1))
    board.onEngineEvent({
      type: 'producer-init',
      workerId: 'w1',
      transactionalId: 'app-0_1',
      producerId: 1001,
      epoch: 0,
      atMs: 0,
    })
    board.onEngineEvent(begin('w1', 'app-0_1', 1001, 0, 1, 1))
    board.onEngineEvent({
      type: 'producer-init',
      workerId: 'w2',
      transactionalId: 'app-0_0',
      producerId: 1000,
      epoch: 1,
      atMs: 9,
    })
    expect(board.totals()).toEqual({ committed: 0, aborted: 1, open: 1 })
    const aborted = board.transactions().find((t) => t.transactionalId === 'app-0_0')!
    expect(aborted).toMatchObject({ outcome: 'aborted', abortReason: 'crash', endMs: 9 })
    // The same worker initialising again (a restart of its own producer) aborts nothing.
    board.onEngineEvent({
      type: 'producer-init',
      workerId: 'w1',
      transactionalId: 'app-0_1',
      producerId: 1001,
      epoch: 1,
      atMs: 10,
    })
    expect(board.totals().open).toBe(1)
  })

  it("lists what the broker says a crashed worker's aborted transaction held", () => {
    const board = new TransactionBoard(
      (w) => w === 'w1',
      undefined,
      (topic) => topic.endsWith('-changelog'),
    )
    board.onEngineEvent(begin('w1', 'app-0_0', 1000, 0, 1, 1))
    const held = [
      { topic: 'output', partition: 0, firstOffset: 10, lastOffset: 14, records: 5 },
      { topic: 'app-counts-changelog', partition: 0, firstOffset: 3, lastOffset: 7, records: 5 },
      { topic: '__consumer_offsets', partition: 0, firstOffset: 1, lastOffset: 1, records: 1 },
    ]
    board.onCoordinatorTxnEnded({ ...coordinatorAbort('app-0_0', 1000, 'fenced', 9), held, offsets: 1 })
    expect(board.transactions()[0]).toMatchObject({
      outcome: 'aborted',
      abortReason: 'crash',
      partitions: ['output-0', 'app-counts-changelog-0'],
      outputRecords: 5,
      changelogRecords: 5,
      offsetsCommitted: 1,
    })
  })

  it("aborts what a teardown leaves open as the teardown's, never as a fault or a timeout", () => {
    const ended: string[] = []
    const board = new TransactionBoard(() => false, {
      ended: (t) => ended.push(`${t.transactionalId}:${t.abortReason}`),
      counts: () => ({ committed: 0, aborted: 0 }),
    })
    board.onEngineEvent(begin('w1', 'app-0_0', 1000, 0, 1, 1))
    board.onEngineEvent(begin('w1', 'app-0_1', 1001, 0, 1, 1))
    board.teardown(5)
    board.onCoordinatorTxnEnded(coordinatorAbort('app-0_1', 1001, 'timeout', 60_000))
    expect(ended).toEqual(['app-0_0:teardown', 'app-0_1:teardown'])
    expect(board.totals()).toEqual({ committed: 0, aborted: 0, open: 0 })
    // Nothing the teardown ended is pinned among the aborts shown.
    expect(board.transactions().every((t) => t.abortReason === 'teardown')).toBe(true)
    const own = new TransactionBoard(() => false)
    own.onEngineEvent(begin('w1', 'app-0_0', 1000, 0, 1, 1))
    own.teardown(5)
    expect(own.totals()).toEqual({ committed: 0, aborted: 0, open: 0 })
  })
})
