// Stalls of the process left out of a member's silence: the meter on a clock the test moves, the
// coordinator expelling a silent member but not members silent only while the process stood still,
// and the meter on the real clock against a real synchronous stall.

import { describe, expect, it } from 'vitest'
import { GroupCoordinator, type OffsetsLogWriter } from './embedded/group-coordinator.ts'
import { STALL_MS, StallMeter, TICK_MS } from './stall-meter.ts'
import { SystemTime } from './time.ts'

const NO_LOG: OffsetsLogWriter = {
  appendOffsets: () => {},
  offsetsPartition: () => ({ topic: '__consumer_offsets', partition: 0 }),
}

describe('StallMeter', () => {
  it('counts a gap between observations longer than STALL_MS, less one tick, and nothing shorter', () => {
    let now = 1_000
    const meter = new StallMeter(() => now)
    for (let i = 0; i < 10; i++) {
      now += TICK_MS
      meter.observe()
    }
    expect(meter.frozenSince(0)).toBe(0)
    now += STALL_MS // not longer than STALL_MS: a slow tick, not a stall
    meter.observe()
    expect(meter.frozenSince(0)).toBe(0)
    const before = now
    now += 1_500
    expect(meter.frozenSince(before)).toBe(1_500 - TICK_MS)
    // Only the part after `fromMs` counts.
    expect(meter.frozenSince(now - 500)).toBe(500)
    expect(meter.frozenSince(now)).toBe(0)
  })

  it('sees a real synchronous stall on the system clock', () => {
    const time = new SystemTime()
    const from = time.now()
    const end = Date.now() + 600
    while (Date.now() < end) {
      // the process runs nothing else
    }
    expect(time.frozenSince(from)).toBeGreaterThanOrEqual(600 - TICK_MS - 20)
  })
})

describe('GroupCoordinator and stalls of the process', () => {
  it('expels a member silent for longer than its session, but not for a stall of the whole process', () => {
    let now = 0
    let frozen: { from: number; to: number } | null = null
    const frozenSince = (fromMs: number) =>
      frozen && frozen.to > Math.max(frozen.from, fromMs) ? frozen.to - Math.max(frozen.from, fromMs) : 0
    const events: string[] = []
    const g = new GroupCoordinator('g', NO_LOG, () => now, frozenSince)
    g.onEvent((e) => events.push(e.type === 'member-expired' ? `expired ${e.memberId}` : e.type))
    const a = g.join('a', 1_000).memberId
    const b = g.join('b', 1_000).memberId

    // The process stands still for 3 s: nobody could heartbeat, nobody is expelled.
    frozen = { from: 100, to: 3_100 }
    now = 3_200
    g.expireMembers()
    expect(g.memberIds().sort()).toEqual([a, b].sort())
    expect(events.filter((e) => e.startsWith('expired'))).toEqual([])

    // Then b goes silent (killed) while the process runs: b is expelled after its session, a is not.
    g.heartbeat(a)
    now = 3_900
    g.heartbeat(a)
    now = 4_300
    g.heartbeat(a)
    g.expireMembers()
    expect(g.memberIds()).toEqual([a])
    expect(events.filter((e) => e.startsWith('expired'))).toEqual([`expired ${b}`])
  })
})
