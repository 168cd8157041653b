import { describe, expect, it } from 'vitest'
import { coresTaken, startCpuHogs } from './cpu-hogs.ts'

describe('coresTaken', () => {
  it('is CPU seconds over wall seconds', () => {
    expect(coresTaken(10, 13, 2000)).toBe(1.5)
    expect(coresTaken(0, 0.333, 1000)).toBe(0.33)
  })
  it('is null when either reading is unknown or no time passed', () => {
    expect(coresTaken(null, 3, 1000)).toBeNull()
    expect(coresTaken(1, null, 1000)).toBeNull()
    expect(coresTaken(1, 2, 0)).toBeNull()
  })
})

describe('startCpuHogs', () => {
  it('runs busy processes whose CPU time grows, until stopped', async () => {
    const hogs = startCpuHogs(1)
    try {
      const first = hogs.cpuSeconds()
      expect(first).not.toBeNull()
      // Waits on progress: the hog's CPU time moving past its first reading (ticks of 10 ms).
      let now = first
      while (now !== null && now <= first!) {
        await new Promise((r) => setTimeout(r, 20))
        now = hogs.cpuSeconds()
      }
      expect(now).toBeGreaterThan(first!)
    } finally {
      hogs.stop()
    }
    // A stopped hog's process is gone: its CPU time can no longer be read.
    let after: number | null = 0
    while (after !== null) {
      await new Promise((r) => setTimeout(r, 20))
      after = hogs.cpuSeconds()
    }
    expect(after).toBeNull()
  })

  it('with no hogs has nothing to read', () => {
    const hogs = startCpuHogs(0)
    expect(hogs.cpuSeconds()).toBeNull()
    hogs.stop()
  })
})
