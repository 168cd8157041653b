// pollUntil, the one way a scenario waits on something it must ask the log for: it answers the
// reading that satisfied it, counts a failed read as "not yet", and gives up past its bound.

import { describe, expect, it } from 'vitest'
import { MockTime } from '../../log/time.ts'
import { pollUntil } from './scenario.ts'

describe('pollUntil', () => {
  it('answers the first reading that satisfies it, asking again every everyMs', async () => {
    const time = new MockTime()
    const asked: number[] = []
    let n = 0
    const read = async () => {
      asked.push(time.now())
      return ++n
    }
    const v = await time.runUntilSettled(
      pollUntil(time, read, (x) => x >= 3, { everyMs: 100, boundMs: 10_000, what: 'three' }),
    )
    expect(v).toBe(3)
    expect(asked.map((t) => t - asked[0]!)).toEqual([0, 100, 200])
  })

  it('takes a failed read for "not yet"', async () => {
    const time = new MockTime()
    let n = 0
    const read = async () => {
      if (++n < 3) throw new Error('not the leader')
      return n
    }
    expect(
      await time.runUntilSettled(pollUntil(time, read, () => true, { everyMs: 10, boundMs: 1_000, what: 'an answer' })),
    ).toBe(3)
  })

  it('fails past its bound, naming what it waited for', async () => {
    const time = new MockTime()
    const waited = pollUntil(
      time,
      async () => 0,
      (x) => x > 0,
      { everyMs: 50, boundMs: 500, what: 'the last stable offset to move' },
    )
    await expect(time.runUntilSettled(waited)).rejects.toThrow(
      /gave up waiting for the last stable offset to move after \d+ ms/,
    )
  })
})
