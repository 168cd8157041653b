import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ConsumedRecord } from '../log/types.ts'
import { batchOfPoll } from './poll-batch.ts'

const rec = (partition: number, offset: number): ConsumedRecord => ({
  topic: 'input',
  partition,
  offset,
  key: 'k',
  value: '1',
  headers: undefined,
  timestamp: 0,
})

describe('batchOfPoll', () => {
  it("hands each task its partition's records in offset order, and none of a partition it may not take", () => {
    const records = [rec(0, 5), rec(0, 6), rec(2, 1), rec(1, 9), rec(1, 10), rec(0, 7)]
    const batch = batchOfPoll(records, (p) => (p === 2 ? null : `task-${p}`))
    expect([...batch.entries()].map(([t, rs]) => [t, rs.map((r) => r.offset)])).toEqual([
      ['task-0', [5, 6, 7]],
      ['task-1', [9, 10]],
    ])
  })

  it("keeps every taken record once, in the poll's order per task (property)", () => {
    const poll = fc
      .array(fc.record({ partition: fc.integer({ min: 0, max: 3 }), length: fc.integer({ min: 1, max: 6 }) }), {
        maxLength: 10,
      })
      .map((runs) => {
        let offset = 0
        return runs.flatMap((r) => Array.from({ length: r.length }, () => rec(r.partition, offset++)))
      })
    fc.assert(
      fc.property(poll, fc.integer({ min: 0, max: 3 }), (records, refused) => {
        const batch = batchOfPoll(records, (p) => (p === refused ? null : p))
        expect(batch.has(refused)).toBe(false)
        for (const p of [0, 1, 2, 3].filter((x) => x !== refused)) {
          const expected = records.filter((r) => r.partition === p)
          expect(batch.get(p) ?? []).toEqual(expected)
        }
      }),
    )
  })
})
