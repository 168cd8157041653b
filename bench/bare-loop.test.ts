import { describe, expect, it } from 'vitest'
import { measureBareLoop } from './bare-loop.ts'

describe('the bare-loop baseline', () => {
  it('does the work for every record and reports each pass and the best one', () => {
    const r = measureBareLoop(20_000, 2)
    expect(r.passes).toHaveLength(2)
    for (const rate of r.passes) expect(rate).toBeGreaterThan(0)
    expect(r.bestPerSec).toBe(Math.max(...r.passes))
  })
})
