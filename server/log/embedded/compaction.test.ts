import { describe, expect, it } from 'vitest'
import { PartitionLog, PLAIN_BATCH } from './partition-log.ts'

const rec = (key: string | null, value: string | null) => ({ key, value })

function fill(log: PartitionLog, n: number, keys: number, now = 0): void {
  for (let i = 0; i < n; i++) log.append(PLAIN_BATCH, [rec(`k${i % keys}`, `v${i}`)], now)
}

describe('compaction (cleanup.policy=compact)', () => {
  it('keeps the latest record of each key, with its original offset, and reads skip the gaps', () => {
    const log = new PartitionLog('changelog', 0)
    fill(log, 20_000, 10)
    expect(log.maybeCompact()).toBe(20_000 - 10)
    expect(log.storedRecords).toBe(10)
    expect(log.highWatermark).toBe(20_000)
    const all = log.read(0, 100, 'read_committed')
    expect(all.records.map((r) => r.offset)).toEqual(Array.from({ length: 10 }, (_, i) => 19_990 + i))
    expect(all.records.map((r) => r.value)).toEqual(Array.from({ length: 10 }, (_, i) => `v${19_990 + i}`))
    expect(all.nextOffset).toBe(20_000)
    // A read from inside a gap starts at the next stored record.
    expect(log.read(5, 1, 'read_uncommitted').records[0]!.offset).toBe(19_990)
    expect(log.entryAt(5)).toBeUndefined()
    expect(log.entryAt(19_995)!.value).toBe('v19995')
  })

  it('appends after compaction get the next offsets', () => {
    const log = new PartitionLog('changelog', 0)
    fill(log, 10_000, 3)
    log.maybeCompact()
    const r = log.append(PLAIN_BATCH, [rec('k0', 'new')], 0)
    expect(r.baseOffset).toBe(10_000)
    expect(log.read(9_999, 10, 'read_committed').records.map((x) => [x.offset, x.value])).toEqual([
      [9_999, 'v9999'],
      [10_000, 'new'],
    ])
  })

  it('keeps the COMMIT marker of a transaction whose record it keeps, so readers can still tell its outcome', () => {
    const log = new PartitionLog('changelog', 0)
    fill(log, 10_000, 2)
    log.append({ producerId: 7, producerEpoch: 0, baseSequence: 0, transactional: true }, [rec('k0', 'in-txn')], 0)
    log.writeMarker(7, 1, 'COMMIT', 0)
    log.append(
      { producerId: 7, producerEpoch: 1, baseSequence: 0, transactional: true },
      [rec('k9', 'later-aborted')],
      0,
    )
    log.writeMarker(7, 2, 'ABORT', 0)
    log.maybeCompact()
    const stored = log.readRaw(0, log.highWatermark, 100)
    expect(stored.map((r) => (r.control ? `${r.control}` : r.value))).toEqual(['v9999', 'in-txn', 'COMMIT'])
  })

  it('never compacts at or past the last stable offset, and drops aborted records and markers below it', () => {
    const log = new PartitionLog('changelog', 0)
    fill(log, 10_000, 2)
    log.append({ producerId: 7, producerEpoch: 0, baseSequence: 0, transactional: true }, [rec('k0', 'aborted')], 0)
    log.writeMarker(7, 1, 'ABORT', 0)
    log.append(
      { producerId: 8, producerEpoch: 0, baseSequence: 0, transactional: true },
      [rec('k1', 'pending-a'), rec('k1', 'pending-b')],
      0,
    )
    const lso = log.lastStableOffset
    log.maybeCompact()
    const stored = log.readRaw(0, log.highWatermark, 100)
    expect(stored.map((r) => r.value)).toEqual(['v9998', 'v9999', 'pending-a', 'pending-b'])
    expect(log.lastStableOffset).toBe(lso)
    expect(log.read(0, 100, 'read_committed').records.map((r) => r.value)).toEqual(['v9998', 'v9999'])
  })

  it('does not compact again until the log has doubled', () => {
    const log = new PartitionLog('changelog', 0)
    fill(log, 10_000, 5_000)
    expect(log.maybeCompact()).toBe(5_000)
    fill(log, 100, 5)
    expect(log.maybeCompact()).toBe(0)
  })
})

describe('retention by size', () => {
  it('drops the oldest records and moves the log start offset; reads below it are out of range', () => {
    const log = new PartitionLog('input', 0)
    fill(log, 1_000, 10)
    expect(log.applyRetention({ maxRecords: 100 }, 0)).toBe(900)
    expect(log.logStartOffset).toBe(900)
    expect(log.read(900, 1, 'read_uncommitted').records[0]!.value).toBe('v900')
    expect(() => log.read(10, 1, 'read_uncommitted')).toThrow(/OFFSET_OUT_OF_RANGE/)
  })
})
