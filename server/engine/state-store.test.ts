import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { applyToAggregate, encodeOutputValue, type Aggregate } from '../../lib/records.ts'
import type { ConsumedRecord, LogReader } from '../log/types.ts'
import { KeyValueStore, RestoreIncompleteError, restoreFromChangelog } from './state-store.ts'

const TP = { topic: 'app-store-changelog', partition: 0 }

/** A changelog partition of the given values; read_committed stops at `lso`. */
function changelog(values: [string, string | null][], lso = values.length): LogReader & { reads: number } {
  const records: ConsumedRecord[] = values.map(([key, value], offset) => ({
    ...TP,
    offset,
    key,
    value,
    headers: undefined,
    timestamp: 0,
  }))
  const reader = {
    reads: 0,
    offsets: async () => ({ logStartOffset: 0, lastStableOffset: lso, highWatermark: records.length }),
    read: async (_tp: unknown, from: number, max: number, isolation: string) => {
      reader.reads++
      const to = Math.min(from + max, isolation === 'read_committed' ? lso : records.length)
      return { records: records.slice(from, to), nextOffset: to }
    },
  }
  return reader
}

/** n updates spread over the keys, each the running aggregate of its key. */
function updates(n: number, keys: string[]): { log: [string, string][]; last: Map<string, Aggregate> } {
  const last = new Map<string, Aggregate>()
  const log: [string, string][] = []
  for (let i = 0; i < n; i++) {
    const key = keys[i % keys.length]!
    const agg = applyToAggregate(last.get(key), i)
    last.set(key, agg)
    log.push([key, encodeOutputValue(key, agg, { partition: 0, offset: i })])
  }
  return { log, last }
}

describe('KeyValueStore.aggregate', () => {
  it("keeps each key's aggregate equal to the fold of applyToAggregate over its values, in place", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: -1_000_000, max: 1_000_000 })), {
          maxLength: 200,
        }),
        (updates) => {
          const store = new KeyValueStore()
          const expected = new Map<string, Aggregate>()
          for (const [key, v] of updates) {
            const before = store.get(key)
            const agg = store.aggregate(key, v)
            expected.set(key, applyToAggregate(expected.get(key), v))
            expect(agg).toEqual(expected.get(key))
            expect(store.get(key)).toBe(agg)
            if (before) expect(agg).toBe(before)
          }
          expect(new Map(store.entries())).toEqual(expected)
        },
      ),
    )
  })
})

describe('restoring a store from its changelog', () => {
  it("holds each key's last value, counts every update, and lets other work run between batches", async () => {
    const { log, last } = updates(25_001, ['a', 'b', 'c'])
    const store = new KeyValueStore()
    let yields = 0
    const r = await restoreFromChangelog(store, changelog(log), TP, 'read_committed', async () => void yields++)
    expect(r).toEqual({ records: 25_001, fromOffset: 0, toOffset: 25_001 })
    expect(Object.fromEntries(store.entries())).toEqual(Object.fromEntries(last))
    // 10,000 records a batch: three batches, two turns given away between them.
    expect(yields).toBe(2)
  })

  it('stops at the last stable offset under read_committed, at the high watermark under read_uncommitted', async () => {
    const { log, last } = updates(10, ['a'])
    const pending = updates(12, ['a']).log.slice(10)
    const committed = new KeyValueStore()
    await restoreFromChangelog(committed, changelog([...log, ...pending], 10), TP, 'read_committed')
    expect(committed.get('a')).toEqual(last.get('a'))
    const uncommitted = new KeyValueStore()
    await restoreFromChangelog(uncommitted, changelog([...log, ...pending], 10), TP, 'read_uncommitted')
    expect(uncommitted.get('a')!.count).toBe(12)
  })

  const keepsLastDecodableValue =
    "keeps a key's last value that decodes when its very last one does not (a corrupt record), and skips " +
    'tombstones'
  it(keepsLastDecodableValue, async () => {
    const { log, last } = updates(6, ['a', 'b'])
    const store = new KeyValueStore()
    const r = await restoreFromChangelog(
      store,
      changelog([...log, ['a', '{not json'], ['b', null]]),
      TP,
      'read_committed',
    )
    expect(store.get('a')).toEqual(last.get('a'))
    expect(store.get('b')).toEqual(last.get('b'))
    expect(r.records).toBe(6)
  })

  const shortReadFails =
    'fails retriably, never returns a short store, when a read comes back empty below the end offset (a new ' +
    "leader's high watermark behind the old one's)"
  it(shortReadFails, async () => {
    const { log } = updates(30, ['a', 'b'])
    const reader = changelog(log)
    // The leader that answered the offsets knew 30 records; the one that answers reads has 12 so far.
    const lagging: LogReader = {
      offsets: reader.offsets,
      read: async (tp, from, max, isolation) => {
        const r = await reader.read(tp, from, Math.min(max, Math.max(0, 12 - from)), isolation)
        return from >= 12 ? { records: [], nextOffset: from } : r
      },
    }
    const store = new KeyValueStore()
    const failed = await restoreFromChangelog(store, lagging, TP, 'read_committed').catch((e: unknown) => e)
    expect(failed).toBeInstanceOf(RestoreIncompleteError)
    expect((failed as RestoreIncompleteError).retriable).toBe(true)
    expect((failed as Error).message).toMatch(/read nothing at offset 12, below its end offset 30/)
    // Nothing put: the task's creation starts again from its fence with an empty store.
    expect([...store.entries()]).toEqual([])
  })
})
