import { describe, expect, it } from 'vitest'
import { errorCode } from '../fixtures/error-code.ts'
import { MockTime } from '../time.ts'
import type { TopicPartition } from '../types.ts'
import { EmbeddedCluster, OFFSETS_TOPIC } from './embedded-cluster.ts'
import {
  type MarkerWriter,
  TransactionCoordinator,
  type TxnEnded,
  type TxnState,
  VALID_PREVIOUS_STATES,
} from './transaction-coordinator.ts'

const TID = 'app-0_0'
const GROUP = 'app'
const TIMEOUT_MS = 1_000
const OUT0: TopicPartition = { topic: 'out', partition: 0 }
const OUT1: TopicPartition = { topic: 'out', partition: 1 }
const IN0: TopicPartition = { topic: 'in', partition: 0 }

function setup() {
  const time = new MockTime()
  const cluster = new EmbeddedCluster(time)
  cluster.createTopic({ topic: 'out', partitions: 2 })
  cluster.createTopic({ topic: 'in', partitions: 1 })
  const ended: TxnEnded[] = []
  cluster.onEvent((e) => {
    if (e.type === 'txn-ended') ended.push(e)
  })
  return { time, cluster, ended }
}

type Setup = ReturnType<typeof setup>

/** One transactional write of `values` to tp with the producer's next sequence there. */
function write(
  s: Setup,
  p: { producerId: number; epoch: number },
  tp: TopicPartition,
  values: string[],
  sequence = 0,
): void {
  s.cluster.addPartitionsToTxn(TID, p.producerId, p.epoch, [tp])
  s.cluster.produce({
    producerId: p.producerId,
    epoch: p.epoch,
    transactionalId: TID,
    batches: [{ ...tp, baseSequence: sequence, records: values.map((v) => ({ key: v, value: v })) }],
  })
}

function markers(s: Setup, tp: TopicPartition) {
  const log = s.cluster.partitionLog(tp)
  return log.readRaw(0, log.highWatermark, 1_000).filter((r) => r.control !== null)
}

function committedValues(s: Setup, tp: TopicPartition): (string | null)[] {
  return s.cluster.fetch(tp, 0, 1_000, 'read_committed').records.map((r) => r.value)
}

describe('TransactionCoordinator InitProducerId', () => {
  it('bumps the epoch of a known transactional.id and fences every older epoch', () => {
    const s = setup()
    const first = s.cluster.initProducerId(TID, TIMEOUT_MS)
    expect(first.epoch).toBe(0)
    const second = s.cluster.initProducerId(TID, TIMEOUT_MS)
    expect(second).toEqual({ producerId: first.producerId, epoch: 1 })
    expect(errorCode(() => s.cluster.addPartitionsToTxn(TID, first.producerId, first.epoch, [OUT0]))).toBe(
      'PRODUCER_FENCED',
    )
    expect(errorCode(() => s.cluster.endTxn(TID, first.producerId, first.epoch, 'COMMIT'))).toBe('PRODUCER_FENCED')
    expect(errorCode(() => s.cluster.endTxn(TID, first.producerId, first.epoch, 'ABORT'))).toBe('PRODUCER_FENCED')
    // The current epoch works.
    write(s, second, OUT0, ['a'])
    expect(s.cluster.endTxn(TID, second.producerId, second.epoch, 'COMMIT').epoch).toBe(2)
    expect(committedValues(s, OUT0)).toEqual(['a'])
  })

  it('aborts the open transaction of the previous epoch, with an ABORT marker in every partition it touched', () => {
    const s = setup()
    const old = s.cluster.initProducerId(TID, TIMEOUT_MS)
    write(s, old, OUT0, ['a', 'b'])
    write(s, old, OUT1, ['c'])
    expect(s.cluster.partitionLog(OUT0).lastStableOffset).toBe(0)
    const next = s.cluster.initProducerId(TID, TIMEOUT_MS)
    for (const tp of [OUT0, OUT1]) {
      expect(markers(s, tp).map((m) => m.control)).toEqual(['ABORT'])
      expect(committedValues(s, tp)).toEqual([])
      const log = s.cluster.partitionLog(tp)
      expect(log.lastStableOffset).toBe(log.highWatermark)
    }
    expect(s.ended).toMatchObject([{ transactionalId: TID, outcome: 'aborted', reason: 'fenced', epoch: old.epoch }])
    // The zombie's late write is fenced at the partition too.
    expect(
      errorCode(() =>
        s.cluster.produce({
          producerId: old.producerId,
          epoch: old.epoch,
          transactionalId: TID,
          batches: [{ ...OUT0, baseSequence: 2, records: [{ key: 'z', value: 'z' }] }],
        }),
      ),
    ).toBe('PRODUCER_FENCED')
    expect(next.epoch).toBeGreaterThan(old.epoch)
  })
  it.each([
    { what: 'with its transaction open (aborted by the fence)', open: true },
    { what: 'after committing its last transaction', open: false },
  ])(
    'refuses the EndTxn of a producer fenced $what instead of answering it as a retry with the new epoch',
    ({ open }) => {
      const s = setup()
      const zombie = s.cluster.initProducerId(TID, TIMEOUT_MS)
      write(s, zombie, OUT0, ['a'])
      let zombieEpoch = zombie.epoch
      if (!open) zombieEpoch = s.cluster.endTxn(TID, zombie.producerId, zombie.epoch, 'COMMIT').epoch
      const owner = s.cluster.initProducerId(TID, TIMEOUT_MS)
      expect(owner.epoch).toBe(zombieEpoch + 1)
      expect(errorCode(() => s.cluster.endTxn(TID, zombie.producerId, zombieEpoch, 'ABORT'))).toBe('PRODUCER_FENCED')
      expect(errorCode(() => s.cluster.endTxn(TID, zombie.producerId, zombieEpoch, 'COMMIT'))).toBe('PRODUCER_FENCED')
    },
  )
})

describe('TransactionCoordinator timeout', () => {
  it('aborts a transaction open longer than transaction.timeout.ms and fences its producer', async () => {
    const s = setup()
    const p = s.cluster.initProducerId(TID, TIMEOUT_MS)
    write(s, p, OUT0, ['a'])
    s.cluster.addOffsetsToTxn(TID, p.producerId, p.epoch, GROUP)
    s.cluster.txnOffsetCommit(TID, p.producerId, p.epoch, GROUP, [{ ...IN0, offset: 1 }], null)
    await s.time.runFor(TIMEOUT_MS) // exactly at the timeout: still open
    s.cluster.tick()
    expect(s.cluster.txnCoordinator.metadata(TID)!.state).toBe('Ongoing')
    await s.time.runFor(1)
    s.cluster.tick()
    expect(s.ended).toMatchObject([{ outcome: 'aborted', reason: 'timeout' }])
    expect(markers(s, OUT0).map((m) => m.control)).toEqual(['ABORT'])
    expect(s.cluster.group(GROUP).fetchCommittedStable([IN0]).get('in-0')).toBeNull()
    expect(errorCode(() => s.cluster.addPartitionsToTxn(TID, p.producerId, p.epoch, [OUT0]))).toBe('PRODUCER_FENCED')
    expect(errorCode(() => s.cluster.endTxn(TID, p.producerId, p.epoch, 'COMMIT'))).toBe('PRODUCER_FENCED')
    expect(
      errorCode(() =>
        s.cluster.produce({
          producerId: p.producerId,
          epoch: p.epoch,
          transactionalId: TID,
          batches: [{ ...OUT0, baseSequence: 1, records: [{ key: 'b', value: 'b' }] }],
        }),
      ),
    ).toBe('PRODUCER_FENCED')
    expect(committedValues(s, OUT0)).toEqual([])
  })
})

describe('TransactionCoordinator offsets in a transaction', () => {
  const offsetsVisibleOnCommit =
    'makes offsets visible to the group only when the transaction commits, and answers UNSTABLE_OFFSET_COMMIT ' +
    'while pending'
  it(offsetsVisibleOnCommit, () => {
    const s = setup()
    const group = s.cluster.group(GROUP)
    const p = s.cluster.initProducerId(TID, TIMEOUT_MS)
    write(s, p, OUT0, ['a'])
    s.cluster.addOffsetsToTxn(TID, p.producerId, p.epoch, GROUP)
    s.cluster.txnOffsetCommit(TID, p.producerId, p.epoch, GROUP, [{ ...IN0, offset: 5 }], null)
    expect(group.fetchCommitted([IN0]).get('in-0')).toBeNull()
    expect(errorCode(() => group.fetchCommittedStable([IN0]))).toBe('UNSTABLE_OFFSET_COMMIT')
    expect(committedValues(s, OUT0)).toEqual([])
    const next = s.cluster.endTxn(TID, p.producerId, p.epoch, 'COMMIT')
    expect(group.fetchCommittedStable([IN0]).get('in-0')).toBe(5)
    expect(committedValues(s, OUT0)).toEqual(['a'])
    expect(markers(s, { topic: OFFSETS_TOPIC, partition: 0 }).map((m) => m.control)).toEqual(['COMMIT'])

    // An aborted transaction's offsets never become visible.
    write(s, { producerId: p.producerId, epoch: next.epoch }, OUT0, ['b'])
    s.cluster.addOffsetsToTxn(TID, p.producerId, next.epoch, GROUP)
    s.cluster.txnOffsetCommit(TID, p.producerId, next.epoch, GROUP, [{ ...IN0, offset: 9 }], null)
    s.cluster.endTxn(TID, p.producerId, next.epoch, 'ABORT')
    expect(group.fetchCommittedStable([IN0]).get('in-0')).toBe(5)
    expect(committedValues(s, OUT0)).toEqual(['a'])
  })

  it('refuses a TxnOffsetCommit for a group not added to the transaction', () => {
    const s = setup()
    const p = s.cluster.initProducerId(TID, TIMEOUT_MS)
    write(s, p, OUT0, ['a'])
    expect(
      errorCode(() => s.cluster.txnOffsetCommit(TID, p.producerId, p.epoch, GROUP, [{ ...IN0, offset: 1 }], null)),
    ).toBe('INVALID_TXN_STATE')
  })
})

describe('TransactionCoordinator state machine', () => {
  const throwsInvalidTxnState =
    'throws INVALID_TXN_STATE for a commit with no ongoing transaction and for a write to a partition not added'
  it(throwsInvalidTxnState, () => {
    const s = setup()
    const p = s.cluster.initProducerId(TID, TIMEOUT_MS)
    expect(errorCode(() => s.cluster.endTxn(TID, p.producerId, p.epoch, 'COMMIT'))).toBe('INVALID_TXN_STATE')
    // An abort with nothing written is a no-op.
    expect(s.cluster.endTxn(TID, p.producerId, p.epoch, 'ABORT').epoch).toBe(p.epoch)
    write(s, p, OUT0, ['a'])
    expect(
      errorCode(() =>
        s.cluster.produce({
          producerId: p.producerId,
          epoch: p.epoch,
          transactionalId: TID,
          batches: [{ ...OUT1, baseSequence: 0, records: [{ key: 'b', value: 'b' }] }],
        }),
      ),
    ).toBe('INVALID_TXN_STATE')
    expect(errorCode(() => s.cluster.addPartitionsToTxn('unknown', p.producerId, p.epoch, [OUT0]))).toBe(
      'INVALID_TXN_STATE',
    )
  })

  it('allows exactly the transitions of VALID_PREVIOUS_STATES', () => {
    const states = Object.keys(VALID_PREVIOUS_STATES) as TxnState[]
    const noMarkers: MarkerWriter = { writeMarker: () => {}, completeGroupTxn: () => {} }
    for (const from of states) {
      for (const to of states) {
        const c = new TransactionCoordinator(noMarkers, () => 0)
        c.initProducerId(TID, TIMEOUT_MS)
        const meta = c.metadata(TID) as { state: TxnState }
        meta.state = from
        const transition = (c as unknown as { transition(m: unknown, to: TxnState): void }).transition.bind(c)
        const code = errorCode(() => transition(meta, to))
        expect({ from, to, ok: code === undefined }).toEqual({ from, to, ok: VALID_PREVIOUS_STATES[to].includes(from) })
        if (code !== undefined) expect(code).toBe('INVALID_TXN_STATE')
      }
    }
  })

  it('bumps the epoch on every EndTxn and answers a retried EndTxn with the same outcome', () => {
    const s = setup()
    const p = s.cluster.initProducerId(TID, TIMEOUT_MS)
    write(s, p, OUT0, ['a'])
    const after = s.cluster.endTxn(TID, p.producerId, p.epoch, 'COMMIT')
    expect(after.epoch).toBe(p.epoch + 1)
    // The response was lost; the retry with the old epoch gets the same answer and writes no second marker.
    expect(s.cluster.endTxn(TID, p.producerId, p.epoch, 'COMMIT').epoch).toBe(after.epoch)
    expect(markers(s, OUT0)).toHaveLength(1)
    // A retry asking for the other outcome is fenced.
    expect(errorCode(() => s.cluster.endTxn(TID, p.producerId, p.epoch, 'ABORT'))).toBe('PRODUCER_FENCED')
  })
})

describe('TransactionCoordinator and a delayed EndTxn (KIP-890)', () => {
  it.each(['COMMIT', 'ABORT'] as const)(
    'a stale EndTxn(%s) arriving after the producer began its next transaction changes nothing',
    (commit) => {
      const s = setup()
      const p = s.cluster.initProducerId(TID, TIMEOUT_MS)
      write(s, p, OUT0, ['first'])
      const e1 = s.cluster.endTxn(TID, p.producerId, p.epoch, 'COMMIT').epoch
      // The next transaction is open with records.
      write(s, { producerId: p.producerId, epoch: e1 }, OUT0, ['second'])
      const before = s.cluster.partitionLog(OUT0).highWatermark
      expect(errorCode(() => s.cluster.endTxn(TID, p.producerId, p.epoch, commit))).toBe('PRODUCER_FENCED')
      expect(s.cluster.txnCoordinator.metadata(TID)).toMatchObject({ state: 'Ongoing', epoch: e1 })
      expect(s.cluster.partitionLog(OUT0).highWatermark).toBe(before)
      expect(s.cluster.partitionLog(OUT0).hasOngoingTxn(p.producerId)).toBe(true)
      expect(committedValues(s, OUT0)).toEqual(['first'])
      // The later transaction ends only by its own EndTxn.
      s.cluster.endTxn(TID, p.producerId, e1, 'COMMIT')
      expect(committedValues(s, OUT0)).toEqual(['first', 'second'])
    },
  )
})
