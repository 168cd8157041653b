import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { acksOf, groupByPartition } from './partition-groups.ts'

const rec = (topic: string, partition: number, key: string) => ({ topic, partition, key })

describe('groupByPartition', () => {
  it("groups by topic and partition in order of first appearance, each group in the call's order", () => {
    const records = [
      rec('out', 0, 'a'),
      rec('log', 0, 'b'),
      rec('out', 1, 'c'),
      rec('out', 0, 'd'),
      rec('log', 0, 'e'),
      rec('log', 0, 'f'),
    ]
    expect(groupByPartition(records).map((g) => [g.key, g.records.map((r) => r.key)])).toEqual([
      ['out-0', ['a', 'd']],
      ['log-0', ['b', 'e', 'f']],
      ['out-1', ['c']],
    ])
    expect(acksOf(groupByPartition(records), [10, 20, 30])).toEqual([
      { topic: 'out', partition: 0, baseOffset: 10, records: 2 },
      { topic: 'log', partition: 0, baseOffset: 20, records: 3 },
      { topic: 'out', partition: 1, baseOffset: 30, records: 1 },
    ])
  })

  const scattered = fc.array(
    fc.record({
      topic: fc.constantFrom('out', 'log', 'o-1'),
      partition: fc.integer({ min: 0, max: 3 }),
      key: fc.string(),
    }),
    { maxLength: 60 },
  )
  // Runs of one partition, as a task sends them (its output records, then its changelog
  // records), a partition's runs possibly apart.
  const runs = fc
    .array(
      fc.record({
        topic: fc.constantFrom('out', 'log'),
        partition: fc.integer({ min: 0, max: 2 }),
        length: fc.integer({ min: 1, max: 8 }),
      }),
      { maxLength: 12 },
    )
    .map((rs) =>
      rs.flatMap((r, i) => Array.from({ length: r.length }, (_, j) => rec(r.topic, r.partition, `${i}.${j}`))),
    )
  it.each([
    ['scattered', scattered],
    ['in runs', runs],
  ] as const)("keeps every record exactly once, each partition's records in the call's order (%s)", (_, arb) => {
    fc.assert(
      fc.property(arb, (records) => {
        const groups = groupByPartition(records)
        // One group per partition, and each group is exactly the call's records of its partition, in order.
        expect(new Set(groups.map((g) => g.key)).size).toBe(groups.length)
        for (const g of groups)
          expect(g.records).toEqual(records.filter((r) => r.topic === g.topic && r.partition === g.partition))
        expect(groups.reduce((a, g) => a + g.records.length, 0)).toBe(records.length)
        // In order of first appearance.
        const firsts = groups.map((g) => records.findIndex((r) => r.topic === g.topic && r.partition === g.partition))
        expect(firsts).toEqual([...firsts].sort((a, b) => a - b))
      }),
    )
  })
})
