import { describe, expect, it } from 'vitest'
import { LogError } from './errors.ts'
import { conditionOf, CountedWarnings, type Schedule } from './counted-warnings.ts'

/** A schedule driven by the test: advance(ms) runs what falls due. */
function fakeSchedule() {
  let now = 0
  let timers: { at: number; run: () => void }[] = []
  const schedule: Schedule = (ms, run) => {
    const t = { at: now + ms, run }
    timers.push(t)
    return () => {
      timers = timers.filter((x) => x !== t)
    }
  }
  const advance = (ms: number) => {
    const until = now + ms
    for (;;) {
      const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0]
      if (!due) break
      timers = timers.filter((t) => t !== due)
      now = due.at
      due.run()
    }
    now = until
  }
  return { schedule, advance }
}

describe('CountedWarnings', () => {
  it('writes the first occurrence, then one line per 10 s window with the count, and nothing once it stops', () => {
    const { schedule, advance } = fakeSchedule()
    const lines: string[] = []
    const w = new CountedWarnings((l) => lines.push(l), 10_000, schedule)
    const fail = (broker: number) =>
      w.warn(
        conditionOf('telemetry not read', new LogError('BROKER_NOT_AVAILABLE', `Broker ${broker} not found`)),
        `telemetry not read: Broker ${broker} not found`,
      )
    // A failure every 50 ms for 25 s: 500 occurrences.
    for (let i = 0; i < 500; i++) {
      fail(i < 250 ? 3 : 1)
      advance(50)
    }
    expect(lines).toEqual([
      'telemetry not read: Broker 3 not found',
      'telemetry not read: Broker 3 not found (199 more times in the last 10 s)',
      'telemetry not read: Broker 1 not found (200 more times in the last 10 s)',
    ])
    advance(10_000)
    expect(lines.at(-1)).toBe('telemetry not read: Broker 1 not found (100 more times in the last 10 s)')
    advance(60_000)
    expect(lines).toHaveLength(4)
    fail(2)
    expect(lines.at(-1), 'a new occurrence after a quiet window is written at once').toBe(
      'telemetry not read: Broker 2 not found',
    )
  })

  it('counts conditions apart, and flush writes what is counted', () => {
    const { schedule } = fakeSchedule()
    const lines: string[] = []
    const w = new CountedWarnings((l) => lines.push(l), 10_000, schedule)
    w.warn('a', 'a failed')
    w.warn('b', 'b failed')
    w.warn('a', 'a failed again')
    w.flush()
    expect(lines).toEqual(['a failed', 'b failed', 'a failed again (1 more time in the last 10 s)'])
  })

  it('conditionOf: the code of a LogError, the name of another error, never the message', () => {
    expect(conditionOf('x', new LogError('REQUEST_TIMED_OUT', 'after 30000 ms'))).toBe('x: REQUEST_TIMED_OUT')
    const e = new Error('Connection error: connect ECONNREFUSED 127.0.0.1:29192')
    e.name = 'KafkaJSConnectionError'
    expect(conditionOf('x', e)).toBe('x: KafkaJSConnectionError')
    // A client error named by its code: a reset and a refused connection are the same condition.
    expect(conditionOf('x', e, () => 'BROKER_NOT_AVAILABLE')).toBe('x: BROKER_NOT_AVAILABLE')
  })
})
