import { describe, expect, it } from 'vitest'
import { FailureStreak } from './failure-streak.ts'

function recorder() {
  const lines: string[] = []
  return {
    lines,
    log: { warn: (_o: object, m: string) => lines.push(`warn ${m}`), info: (m: string) => lines.push(`info ${m}`) },
  }
}

describe('FailureStreak', () => {
  it('logs the first failure of a streak only, backs off doubling to the cap, and logs the recovery once', () => {
    const { lines, log } = recorder()
    const s = new FailureStreak('commands not read', log, 50, 1_000)
    expect(s.succeeded()).toBe(50)
    const waits = Array.from({ length: 7 }, () => s.failed(new Error('Connection error: ECONNREFUSED')))
    expect(waits).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000])
    expect(lines).toEqual(['warn commands not read: Connection error: ECONNREFUSED (retrying, backing off to 1000 ms)'])
    expect(s.succeeded()).toBe(50)
    expect(s.succeeded()).toBe(50)
    expect(lines.slice(1)).toEqual(['info commands not read: working again after 7 failed tries'])
  })
  it('streaks that come and go warn once per 10 s, with a count of the streaks between', () => {
    const { lines, log } = recorder()
    let due: (() => void) | null = null
    const s = new FailureStreak('telemetry not published', log, 100, 2_000, (_ms, run) => {
      due = run
      return () => {}
    })
    for (let i = 0; i < 5; i++) {
      s.failed('timeout')
      s.succeeded()
    }
    expect(lines.filter((l) => l.startsWith('warn'))).toEqual([
      'warn telemetry not published: timeout (retrying, backing off to 2000 ms)',
    ])
    expect(lines[1]).toBe('info telemetry not published: working again after 1 failed try')
    ;(due as unknown as () => void)()
    expect(lines.filter((l) => l.startsWith('warn')).at(-1)).toBe(
      'warn telemetry not published: timeout (retrying, backing off to 2000 ms) (4 more times in the last 10 s)',
    )
  })
})
