import { describe, expect, it } from 'vitest'
import { errorCode } from '../fixtures/error-code.ts'
import { type DataRecord, PartitionLog, PLAIN_BATCH } from './partition-log.ts'

const NOW = 1_000
const PID = 7
const OTHER_PID = 8

function recs(...values: string[]): DataRecord[] {
  return values.map((v) => ({ key: `k-${v}`, value: v }))
}

function values(records: readonly { value: string | null }[]): (string | null)[] {
  return records.map((r) => r.value)
}

/**
 * A fixture log: a non-transactional record (0), an aborted transaction (1, 2, marker 3),
 * a committed one (4, marker 5), then an ongoing one (6, 7) interleaved with a plain record (8).
 */
function mixedLog(): PartitionLog {
  const log = new PartitionLog('t', 0)
  log.append(PLAIN_BATCH, recs('plain-0'), NOW)
  log.append(
    { producerId: PID, producerEpoch: 0, baseSequence: 0, transactional: true },
    recs('aborted-1', 'aborted-2'),
    NOW,
  )
  log.writeMarker(PID, 1, 'ABORT', NOW)
  log.append({ producerId: PID, producerEpoch: 1, baseSequence: 0, transactional: true }, recs('committed-4'), NOW)
  log.writeMarker(PID, 2, 'COMMIT', NOW)
  log.append(
    { producerId: OTHER_PID, producerEpoch: 0, baseSequence: 0, transactional: true },
    recs('open-6', 'open-7'),
    NOW,
  )
  log.append(PLAIN_BATCH, recs('plain-8'), NOW)
  return log
}

describe('PartitionLog idempotent append', () => {
  it('acknowledges a retried batch with the same base offset and does not append it again', () => {
    const log = new PartitionLog('t', 0)
    expect(
      log.append({ producerId: PID, producerEpoch: 0, baseSequence: 0, transactional: false }, recs('a', 'b'), NOW),
    ).toEqual({ baseOffset: 0, duplicate: false })
    expect(
      log.append({ producerId: PID, producerEpoch: 0, baseSequence: 2, transactional: false }, recs('c'), NOW),
    ).toEqual({ baseOffset: 2, duplicate: false })
    expect(
      log.append({ producerId: PID, producerEpoch: 0, baseSequence: 0, transactional: false }, recs('a', 'b'), NOW),
    ).toEqual({ baseOffset: 0, duplicate: true })
    expect(
      log.append({ producerId: PID, producerEpoch: 0, baseSequence: 2, transactional: false }, recs('c'), NOW),
    ).toEqual({ baseOffset: 2, duplicate: true })
    expect(log.highWatermark).toBe(3)
    expect(log.lastSequence(PID)).toBe(2)
    expect(values(log.read(0, 100, 'read_uncommitted').records)).toEqual(['a', 'b', 'c'])
  })

  it('recognises a retry among the last five batches of the producer', () => {
    const log = new PartitionLog('t', 0)
    for (let s = 0; s < 6; s++)
      log.append({ producerId: PID, producerEpoch: 0, baseSequence: s, transactional: false }, recs(`v${s}`), NOW)
    expect(
      log.append({ producerId: PID, producerEpoch: 0, baseSequence: 1, transactional: false }, recs('v1'), NOW),
    ).toEqual({ baseOffset: 1, duplicate: true })
    expect(log.highWatermark).toBe(6)
  })

  it('rejects a sequence gap with OUT_OF_ORDER_SEQUENCE_NUMBER and appends nothing', () => {
    const log = new PartitionLog('t', 0)
    log.append({ producerId: PID, producerEpoch: 0, baseSequence: 0, transactional: false }, recs('a'), NOW)
    expect(
      errorCode(() =>
        log.append({ producerId: PID, producerEpoch: 0, baseSequence: 2, transactional: false }, recs('c'), NOW),
      ),
    ).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(log.highWatermark).toBe(1)
  })

  it('requires an unknown producer and a new epoch to start at sequence 0', () => {
    const log = new PartitionLog('t', 0)
    expect(
      errorCode(() =>
        log.append({ producerId: PID, producerEpoch: 0, baseSequence: 3, transactional: false }, recs('a'), NOW),
      ),
    ).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    log.append({ producerId: PID, producerEpoch: 0, baseSequence: 0, transactional: false }, recs('a'), NOW)
    expect(
      errorCode(() =>
        log.append({ producerId: PID, producerEpoch: 1, baseSequence: 1, transactional: false }, recs('b'), NOW),
      ),
    ).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER')
    expect(
      log.append({ producerId: PID, producerEpoch: 1, baseSequence: 0, transactional: false }, recs('b'), NOW),
    ).toEqual({ baseOffset: 1, duplicate: false })
  })

  it('fences a write from an older epoch with PRODUCER_FENCED', () => {
    const log = new PartitionLog('t', 0)
    log.append({ producerId: PID, producerEpoch: 0, baseSequence: 0, transactional: false }, recs('a'), NOW)
    log.append({ producerId: PID, producerEpoch: 1, baseSequence: 0, transactional: false }, recs('b'), NOW)
    expect(
      errorCode(() =>
        log.append({ producerId: PID, producerEpoch: 0, baseSequence: 1, transactional: false }, recs('c'), NOW),
      ),
    ).toBe('PRODUCER_FENCED')
    // A retry of the old epoch's batch is fenced too, not acknowledged.
    expect(
      errorCode(() =>
        log.append({ producerId: PID, producerEpoch: 0, baseSequence: 0, transactional: false }, recs('a'), NOW),
      ),
    ).toBe('PRODUCER_FENCED')
    expect(log.highWatermark).toBe(2)
  })

  it('fences the older epoch once a marker carried a newer one', () => {
    const log = new PartitionLog('t', 0)
    log.append({ producerId: PID, producerEpoch: 0, baseSequence: 0, transactional: true }, recs('a'), NOW)
    log.writeMarker(PID, 1, 'ABORT', NOW)
    expect(
      errorCode(() =>
        log.append({ producerId: PID, producerEpoch: 0, baseSequence: 1, transactional: true }, recs('late'), NOW),
      ),
    ).toBe('PRODUCER_FENCED')
  })

  it('appends every copy of a batch without a producer id (idempotence off)', () => {
    const log = new PartitionLog('t', 0)
    log.append(PLAIN_BATCH, recs('a'), NOW)
    expect(log.append(PLAIN_BATCH, recs('a'), NOW)).toEqual({ baseOffset: 1, duplicate: false })
    expect(values(log.read(0, 10, 'read_uncommitted').records)).toEqual(['a', 'a'])
  })
})

describe('PartitionLog batch values', () => {
  const readsBackAsciiAndOthers =
    'reads back a batch of ASCII values, and batches holding non-ASCII, empty or null values, record by record'
  it(readsBackAsciiAndOthers, () => {
    const log = new PartitionLog('t', 0)
    const batches: DataRecord[][] = [
      recs('a', '', '{"key":"k","count":1}'),
      [
        { key: 'k', value: 'naïve' },
        { key: 'k', value: 'plain' },
        { key: 'k', value: '€ 5' },
      ],
      [
        { key: 'k', value: 'before' },
        { key: 'k', value: null },
        { key: null, value: 'after' },
      ],
      [{ key: 'x', value: '😀' }],
      recs(...Array.from({ length: 3_000 }, (_, i) => `value-${i}`)),
    ]
    for (const b of batches) log.append(PLAIN_BATCH, b, NOW)
    const read = log.read(0, 10_000, 'read_uncommitted').records
    expect(read.map((r) => [r.key, r.value])).toEqual(batches.flat().map((r) => [r.key, r.value]))
    expect(read.map((r) => r.offset)).toEqual(read.map((_, i) => i))
  })
})

describe('PartitionLog last stable offset and isolation', () => {
  it('stops the LSO at the first offset of the earliest ongoing transaction', () => {
    const log = mixedLog()
    expect(log.offsets()).toEqual({ logStartOffset: 0, lastStableOffset: 6, highWatermark: 9 })
    log.writeMarker(OTHER_PID, 1, 'COMMIT', NOW)
    expect(log.offsets()).toEqual({ logStartOffset: 0, lastStableOffset: 10, highWatermark: 10 })
  })

  it('reads committed data only up to the LSO, skipping aborted records and markers', () => {
    const log = mixedLog()
    const r = log.read(0, 100, 'read_committed')
    expect(values(r.records)).toEqual(['plain-0', 'committed-4'])
    expect(r.nextOffset).toBe(6)
    // Reading on from the LSO yields nothing until the open transaction ends.
    expect(log.read(6, 100, 'read_committed')).toEqual({ records: [], nextOffset: 6 })
  })

  it('shows aborted and open records to read_uncommitted, but never markers', () => {
    const log = mixedLog()
    const r = log.read(0, 100, 'read_uncommitted')
    expect(values(r.records)).toEqual([
      'plain-0',
      'aborted-1',
      'aborted-2',
      'committed-4',
      'open-6',
      'open-7',
      'plain-8',
    ])
    expect(r.nextOffset).toBe(9)
  })

  it('delivers the open transaction to read_committed once it commits, and never once it aborts', () => {
    const committed = mixedLog()
    committed.writeMarker(OTHER_PID, 1, 'COMMIT', NOW)
    expect(values(committed.read(6, 100, 'read_committed').records)).toEqual(['open-6', 'open-7', 'plain-8'])
    const aborted = mixedLog()
    aborted.writeMarker(OTHER_PID, 1, 'ABORT', NOW)
    expect(values(aborted.read(6, 100, 'read_committed').records)).toEqual(['plain-8'])
    expect(aborted.abortedTxns).toEqual([
      { producerId: PID, firstOffset: 1, lastOffset: 3 },
      { producerId: OTHER_PID, firstOffset: 6, lastOffset: 9 },
    ])
  })

  it('stamps the transaction outcome on its batches when the marker is written', () => {
    const log = mixedLog()
    const outcome = (o: number) => log.readRaw(o, o + 1, 1)[0]!
    expect([1, 2, 3, 4, 5, 6].map((o) => outcome(o).txnOutcome)).toEqual([
      'aborted',
      'aborted',
      'aborted',
      'committed',
      'committed',
      'pending',
    ])
    expect([0, 8].map((o) => outcome(o).txnOutcome)).toEqual([null, null])
    expect(outcome(3).control).toBe('ABORT')
    expect(outcome(5).control).toBe('COMMIT')
    log.writeMarker(OTHER_PID, 1, 'COMMIT', NOW)
    expect([6, 7].map((o) => outcome(o).txnOutcome)).toEqual(['committed', 'committed'])
  })

  it('respects maxRecords and resumes where the previous read stopped', () => {
    const log = mixedLog()
    const first = log.read(0, 1, 'read_uncommitted')
    expect(values(first.records)).toEqual(['plain-0'])
    expect(values(log.read(first.nextOffset, 2, 'read_uncommitted').records)).toEqual(['aborted-1', 'aborted-2'])
  })
})

describe('PartitionLog retention', () => {
  it('never drops records at or after the last stable offset', () => {
    const log = mixedLog()
    expect(log.applyRetention({ maxRecords: 0 }, NOW)).toBe(6)
    expect(log.offsets()).toEqual({ logStartOffset: 6, lastStableOffset: 6, highWatermark: 9 })
    expect(values(log.read(6, 100, 'read_uncommitted').records)).toEqual(['open-6', 'open-7', 'plain-8'])
    expect(errorCode(() => log.read(5, 100, 'read_committed'))).toBe('OFFSET_OUT_OF_RANGE')
  })

  it('drops by age only below the LSO and below keepFrom, and forgets aborted transactions it dropped', () => {
    const log = mixedLog()
    expect(log.applyRetention({ maxAgeMs: 10 }, NOW + 100, 4)).toBe(4)
    expect(log.logStartOffset).toBe(4)
    expect(log.abortedTxns).toEqual([])
    expect(log.applyRetention({ maxAgeMs: 10 }, NOW + 100)).toBe(2)
    expect(log.logStartOffset).toBe(6)
  })
})
