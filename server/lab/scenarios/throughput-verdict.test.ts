import { describe, expect, it } from 'vitest'
import { higherThroughput } from './throughput-verdict.ts'

const names = { low: '100 ms', high: '5000 ms' }

describe('higher throughput, judged by intervals', () => {
  it('holds when the higher interval lies wholly above the lower', () => {
    const v = higherThroughput([100, 105, 110, 98, 102], [150, 160, 155, 149, 158], names)
    expect(v).toMatchObject({ decided: true, holds: true })
  })

  it('fails when it lies wholly below', () => {
    expect(higherThroughput([150, 160, 155, 149, 158], [100, 105, 110, 98, 102], names)).toMatchObject({
      decided: true,
      holds: false,
    })
  })

  it('never holds on overlapping intervals: +1.7% inside a twofold spread is not distinguishable', () => {
    // The figures a commit-interval run reported as HOLDS: medians 135,928 and 138,306 records/s.
    const v = higherThroughput(
      [91_671, 120_004, 135_928, 150_311, 184_202],
      [97_732, 131_250, 138_306, 160_870, 199_942],
      names,
    )
    expect(v.decided).toBe(false)
    if (!v.decided)
      expect(v.why).toBe(
        'not distinguishable on this machine: their 93.75% intervals overlap ' +
          '(100 ms: 91671–184202, 5000 ms: 97732–199942 records/s)',
      )
  })

  it('with identical runs (the model), decides on the medians', () => {
    expect(higherThroughput([500, 500, 500], [900, 900, 900], names)).toMatchObject({ decided: true, holds: true })
  })
})
