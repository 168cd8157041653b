import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { groupByPartition, offsetsOf } from './partition-groups.ts'

const rec = (topic: string, partition: number, key: string) => ({ topic, partition, key })

describe('groupByPartition', () => {
  it('groups by topic and partition in order of first appearance, each group in the call\'s order, with each record\'s place', () => {
    const records = [rec('out', 0, 'a'), rec('log', 0, 'b'), rec('out', 1, 'c'), rec('out', 0, 'd'), rec('log', 0, 'e'), rec('log', 0, 'f')]
    expect(groupByPartition(records).map((g) => [g.key, g.records.map((r) => r.key), g.indexes])).toEqual([
      ['out-0', ['a', 'd'], [0, 3]],
      ['log-0', ['b', 'e', 'f'], [1, 4, 5]],
      ['out-1', ['c'], [2]],
    ])
  })

  it('keeps every record exactly once, and offsetsOf puts each one\'s offset back at its place', () => {
    const arb = fc.array(fc.record({ topic: fc.constantFrom('out', 'log', 'o-1'), partition: fc.integer({ min: 0, max: 3 }), key: fc.string() }), { maxLength: 60 })
    fc.assert(fc.property(arb, (records) => {
      const groups = groupByPartition(records)
      expect(groups.reduce((a, g) => a + g.records.length, 0)).toBe(records.length)
      for (const g of groups) g.records.forEach((r, j) => expect(records[g.indexes[j]!]).toBe(r))
      const bases = groups.map((_, i) => 1000 * (i + 1))
      const offsets = offsetsOf(groups, bases, records.length)
      // Per partition, the call's records get consecutive offsets from the base, in the call's order.
      const next = new Map<string, number>()
      records.forEach((r, i) => {
        const g = groups.findIndex((x) => x.topic === r.topic && x.partition === r.partition)
        const k = `${r.topic}/${r.partition}`
        const expected = next.get(k) ?? bases[g]!
        expect(offsets[i]).toEqual({ topic: r.topic, partition: r.partition, offset: expected })
        next.set(k, expected + 1)
      })
    }))
  })
})
