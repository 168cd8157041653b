import { describe, expect, it } from 'vitest'
import { bareLoopInput, bareLoopPass, measureBareLoop } from './bare-loop.ts'

describe('the bare-loop baseline', () => {
  it('does the work for every record and reports each pass and the best one', () => {
    const r = measureBareLoop(20_000, 2)
    expect(r.passes).toHaveLength(2)
    for (const rate of r.passes) expect(rate).toBeGreaterThan(0)
    expect(r.bestPerSec).toBe(Math.max(...r.passes))
  })

  it('serialises every output value to its UTF-8 bytes, counted independently of the loop', () => {
    const { keyOf, valueTextOf } = bareLoopInput(5_000, 100, 3)
    // The same aggregates by a plain reading of the topology: per partition (record i goes to i mod 3) and key.
    const aggregates = new Map<string, { count: number; sum: number; min: number; max: number }>()
    let expected = 0
    for (let i = 0; i < keyOf.length; i++) {
      const id = `${i % 3}/${keyOf[i]}`
      const v = Number(valueTextOf[i])
      const a = aggregates.get(id)
      const next = a
        ? { count: a.count + 1, sum: a.sum + v, min: Math.min(a.min, v), max: Math.max(a.max, v) }
        : { count: 1, sum: v, min: v, max: v }
      aggregates.set(id, next)
      expected += Buffer.byteLength(JSON.stringify({ key: keyOf[i], ...next, source: { partition: i % 3, offset: i } }))
    }
    // Enough bytes that the reused buffer starts over many times.
    expect(expected).toBeGreaterThan(4 * 65_536)
    expect(bareLoopPass(keyOf, valueTextOf, 3)).toEqual({ records: 10_000, bytes: expected })
  })
})
