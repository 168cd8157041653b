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

describe('the process listening on a port', () => {
  it('reads LISTEN sockets of a port from /proc/net/tcp tables, v4 and v6', async () => {
    const { listeningInodes } = await import('./process-cpu.ts')
    const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode'
    const v4 = [
      header,
      '   0: 0100007F:4A9C 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0',
      '   1: 0100007F:4A9C 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 222 1 0',
      '   2: 0100007F:71A4 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 333 1 0',
    ].join('\n')
    const v6 = [
      header,
      '   0: 00000000000000000000000000000000:4A9C 00000000000000000000000000000000:0000 0A 00000000:00000000 ' +
        '00:00000000 00000000     0        0 444 1 0',
    ].join('\n')
    // 0x4A9C = 19100: the listening sockets of v4 and v6, not the connection (state 01) nor 0x71A4 = 29092.
    expect([...listeningInodes([v4, v6], 19100)]).toEqual(['111', '444'])
    expect([...listeningInodes([v4], 29092)]).toEqual(['333'])
    expect([...listeningInodes([v4], 9092)]).toEqual([])
  })

  it('finds this process listening on a port of its own, whatever the port', async () => {
    const { pidListeningOn } = await import('./process-cpu.ts')
    const { createServer } = await import('node:net')
    const server = createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    const port = (server.address() as { port: number }).port
    try {
      expect(pidListeningOn(port)).toBe(process.pid)
    } finally {
      await new Promise((r) => server.close(r))
    }
    expect(pidListeningOn(port)).toBeNull()
  })
})
