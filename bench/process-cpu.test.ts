import { describe, expect, it } from 'vitest'
import { cpuTicksOfStat, processCpuSeconds } from './process-cpu.ts'

// /proc/<pid>/stat lines as the kernel writes them: pid, (comm), state, ... utime (14), stime (15) ...
const JAVA = '25277 (java) S 25250 25250 19453 0 -1 4194560 160215 0 0 0 942 91 0 0 20 0 60 0 3604561 5047418880 104571'
const ODD_NAME = '4242 (a) b (c)) R 1 4242 4242 0 -1 4194304 121 0 0 0 17 4 0 0 20 0 1 0 3635068 3133440 390'

describe('CPU time from /proc/<pid>/stat', () => {
  it('adds utime and stime (fields 14 and 15)', () => {
    expect(cpuTicksOfStat(JAVA)).toBe(942 + 91)
  })

  it('counts fields after the last parenthesis, whatever the command name holds', () => {
    expect(cpuTicksOfStat(ODD_NAME)).toBe(17 + 4)
  })

  it('refuses a line that is not a stat line instead of reading a wrong field', () => {
    expect(() => cpuTicksOfStat('not a stat line')).toThrow('not a /proc/<pid>/stat line')
    expect(() => cpuTicksOfStat('1 (x) S 1 2')).toThrow('no utime/stime')
  })

  it('reads a live process, and says it cannot when one of them is gone', () => {
    const before = processCpuSeconds([process.pid])
    if (process.platform !== 'linux') return expect(before).toBeNull()
    let x = 0
    for (let i = 0; i < 3e7; i++) x += i % 7
    expect(x).toBeGreaterThan(0)
    expect(processCpuSeconds([process.pid])!).toBeGreaterThan(before!)
    expect(processCpuSeconds([process.pid, 2 ** 22 + 7])).toBeNull()
    expect(processCpuSeconds([])).toBeNull()
  })
})
