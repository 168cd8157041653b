import { describe, expect, it } from 'vitest'
import { FaultBudget } from './client-faults.ts'

describe('FaultBudget', () => {
  it('fires exactly as many times as it was armed, then never', () => {
    const b = new FaultBudget()
    expect(b.take()).toBe(false)
    b.arm(2)
    b.arm(1)
    expect(b.pending()).toBe(3)
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([true, true, true, false])
    expect(b.pending()).toBe(0)
  })
  it('refuses a negative or fractional count and keeps what was armed', () => {
    const b = new FaultBudget()
    b.arm(2)
    expect(() => b.arm(-1)).toThrow(RangeError)
    expect(() => b.arm(0.5)).toThrow(/non-negative integer/)
    expect(b.pending()).toBe(2)
  })
  it('disarm forgets what was not spent', () => {
    const b = new FaultBudget()
    b.arm(4)
    b.take()
    b.disarm()
    expect(b.pending()).toBe(0)
    expect(b.take()).toBe(false)
  })
})
