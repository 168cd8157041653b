import { describe, expect, it } from 'vitest'
import { auditAbortedReads, isCommittedRecord, readCommitted, readUncommitted } from './read-committed.ts'
import { ABORT_NOT_FLAGGED, INTERLEAVED, INTERLEAVED_OFFSETS, marker, plain, txnRecord } from './fixtures/records.ts'

const offsetsOf = (records: { offset: number }[]) => records.map((r) => r.offset)

describe('readCommitted', () => {
  const returnsVisibleRecords =
    'returns non-transactional and committed records below the last stable offset, never markers or aborted ' +
    'records'
  it(returnsVisibleRecords, () => {
    expect(offsetsOf(readCommitted(INTERLEAVED, INTERLEAVED_OFFSETS.lastStableOffset))).toEqual([0, 1, 3, 7])
  })

  it('stops at the last stable offset, even before committed records', () => {
    expect(offsetsOf(readCommitted(INTERLEAVED, 2))).toEqual([0, 1])
  })

  it('returns no record of an open transaction, because the LSO sits at its first offset', () => {
    const records = [plain(0), txnRecord(1, 9, 'pending'), plain(2)]
    expect(offsetsOf(readCommitted(records, 1))).toEqual([0])
  })
})

describe('readUncommitted', () => {
  it('returns every data record below the high watermark, aborted and open ones included', () => {
    expect(offsetsOf(readUncommitted(INTERLEAVED, INTERLEAVED_OFFSETS.highWatermark))).toEqual([0, 1, 2, 3, 4, 7, 8])
  })
})

describe('isCommittedRecord', () => {
  it('holds for records outside transactions and of committed transactions only', () => {
    expect(INTERLEAVED.filter(isCommittedRecord).map((r) => r.offset)).toEqual([0, 1, 3, 7])
  })
})

describe('auditAbortedReads', () => {
  it('finds no aborted read in a correct log, and counts what read_uncommitted would deliver', () => {
    expect(auditAbortedReads(INTERLEAVED, INTERLEAVED_OFFSETS)).toEqual({ abortedReads: 0, abortedReadsUncommitted: 2 })
  })

  it('counts the records of an aborted transaction that a broken log delivers to read_committed', () => {
    expect(readCommitted(ABORT_NOT_FLAGGED, INTERLEAVED_OFFSETS.lastStableOffset).map((r) => r.offset)).toContain(2)
    expect(auditAbortedReads(ABORT_NOT_FLAGGED, INTERLEAVED_OFFSETS)).toEqual({
      abortedReads: 2,
      abortedReadsUncommitted: 2,
    })
  })

  it('counts a broken log whose last stable offset lets through an aborted record it flagged pending', () => {
    const records = [txnRecord(0, 5, 'pending'), txnRecord(1, 5, 'pending'), marker(2, 5, 'ABORT')]
    expect(auditAbortedReads(records, { lastStableOffset: 3, highWatermark: 3 })).toEqual({
      abortedReads: 2,
      abortedReadsUncommitted: 2,
    })
  })

  it('does not count a transaction that is still open: it is not aborted yet', () => {
    const records = [txnRecord(0, 5, 'pending'), txnRecord(1, 5, 'pending')]
    expect(auditAbortedReads(records, { lastStableOffset: 2, highWatermark: 2 })).toEqual({
      abortedReads: 0,
      abortedReadsUncommitted: 0,
    })
  })

  it('keeps a producer’s transactions apart: an abort covers only the records since its previous marker', () => {
    const records = [
      txnRecord(0, 5, 'committed'),
      marker(1, 5, 'COMMIT'),
      txnRecord(2, 5, 'aborted'),
      marker(3, 5, 'ABORT'),
    ]
    expect(auditAbortedReads(records, { lastStableOffset: 4, highWatermark: 4 })).toEqual({
      abortedReads: 0,
      abortedReadsUncommitted: 1,
    })
  })

  it('rejects records out of offset order', () => {
    expect(() => auditAbortedReads([plain(1), plain(0)], { lastStableOffset: 2, highWatermark: 2 })).toThrow(
      /offset order/,
    )
  })
})
