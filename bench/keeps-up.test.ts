import { describe, expect, it } from 'vitest'
import { keepsUp } from './keeps-up.ts'

const BOUNDS = { fedRatio: 0.95, processedRatio: 0.95, lagSeconds: 1 }
const ok = { fedPerSec: 19_900, processedPerSec: 19_850, inputLagRecords: 3_000 }

describe('keepsUp', () => {
  it('is met when every window fed the rate, committed what was fed and ended with a small lag', () => {
    const v = keepsUp(20_000, [ok, ok, { ...ok, inputLagRecords: 20_000 }], BOUNDS)
    expect(v).toMatchObject({ met: true, reasons: [] })
    expect(v.worst).toEqual({ fedRatio: 0.995, processedRatio: 0.997, lagSeconds: 1 })
  })

  it('is not met when one window fell behind, even if the median did not', () => {
    const v = keepsUp(20_000, [ok, { ...ok, processedPerSec: 15_000 }, ok], BOUNDS)
    expect(v.met).toBe(false)
    expect(v.reasons).toEqual(['window 2: committed 15000/s of 19900/s fed'])
  })

  it('is not met when the generator could not feed the rate (the lab would look as if it kept up with less)', () => {
    const v = keepsUp(20_000, [{ fedPerSec: 12_000, processedPerSec: 12_000, inputLagRecords: 100 }], BOUNDS)
    expect(v.met).toBe(false)
    expect(v.reasons[0]).toMatch(/fed 12000\/s/)
  })

  it('is not met when the lag grows past a second of input, or is not reported', () => {
    expect(keepsUp(20_000, [{ ...ok, inputLagRecords: 20_001 }], BOUNDS).reasons).toEqual([
      'window 1: input lag 20001 records, over 1 s of input',
    ])
    const none = keepsUp(20_000, [{ ...ok, inputLagRecords: null }], BOUNDS)
    expect(none.met).toBe(false)
    expect(none.worst?.lagSeconds).toBe(Infinity)
  })

  it('says it could not judge without windows, and refuses a rate that is not positive', () => {
    expect(keepsUp(20_000, [], BOUNDS)).toMatchObject({ met: null, reasons: ['no window was measured'] })
    expect(() => keepsUp(0, [ok], BOUNDS)).toThrow(RangeError)
  })
})
