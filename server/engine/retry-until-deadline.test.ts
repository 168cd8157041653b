import { describe, expect, it } from 'vitest'
import { LogError } from '../log/errors.ts'
import { MockTime } from '../log/time.ts'
import { isRetriable, retryRetriableUntilDeadline } from './retry-until-deadline.ts'

const coordinatorGone = () =>
  new LogError('BROKER_NOT_AVAILABLE', 'commit offsets of group g: Broker 3 not found in the cached metadata')

describe('retryRetriableUntilDeadline', () => {
  it('tries a retriable failure again, backing off 50 ms doubling to 1 s, until the call works', async () => {
    const time = new MockTime()
    const waits: number[] = []
    let calls = 0
    const done = retryRetriableUntilDeadline(
      time,
      { deadlineMs: 60_000, onRetry: (_e, _n, w) => waits.push(w) },
      () => {
        calls++
        if (calls <= 7) return Promise.reject(coordinatorGone())
        return Promise.resolve('committed')
      },
    )
    await time.runFor(10_000)
    expect(await done).toBe('committed')
    expect(calls).toBe(8)
    expect(waits).toEqual([50, 100, 200, 400, 800, 1_000, 1_000])
  })

  it('throws the last retriable failure once the deadline has passed, never waiting past it', async () => {
    const time = new MockTime()
    const t0 = time.now()
    let calls = 0
    let lastCallAt = 0
    const failed = retryRetriableUntilDeadline(time, { deadlineMs: 5_000 }, () => {
      calls++
      lastCallAt = time.now()
      return Promise.reject(coordinatorGone())
    }).catch((e: unknown) => e)
    await time.runFor(20_000)
    const e = await failed
    expect(e).toBeInstanceOf(LogError)
    expect((e as LogError).code).toBe('BROKER_NOT_AVAILABLE')
    expect(lastCallAt - t0).toBe(5_000)
    expect(calls).toBeGreaterThan(5)
  })

  it('throws an error that is not retriable at once', async () => {
    const time = new MockTime()
    let calls = 0
    const e = await retryRetriableUntilDeadline(time, { deadlineMs: 60_000 }, () => {
      calls++
      return Promise.reject(new LogError('PRODUCER_FENCED', 'a newer epoch'))
    }).catch((x: unknown) => x)
    expect((e as LogError).code).toBe('PRODUCER_FENCED')
    expect(calls).toBe(1)
  })

  it('retries a client error by its own retriable flag; a stop asked for ends it with the failure', async () => {
    const time = new MockTime()
    let stop = false
    let calls = 0
    const flagged = Object.assign(new Error('The coordinator is not available'), { retriable: true })
    const failed = retryRetriableUntilDeadline(time, { deadlineMs: 60_000, stopped: () => stop }, () => {
      calls++
      return Promise.reject(flagged)
    }).catch((x: unknown) => x)
    await time.runFor(300)
    stop = true
    await time.runFor(2_000)
    expect(await failed).toBe(flagged)
    expect(calls).toBeGreaterThan(1)
  })

  it('isRetriable: the LogError flag, or an error object that says retriable: true; nothing else', () => {
    expect(isRetriable(coordinatorGone())).toBe(true)
    expect(isRetriable(new LogError('REQUEST_TIMED_OUT', 'timed out'))).toBe(true)
    expect(isRetriable(new LogError('ILLEGAL_GENERATION', 'rebalanced'))).toBe(false)
    expect(isRetriable({ retriable: false })).toBe(false)
    expect(isRetriable(new Error('bug'))).toBe(false)
    expect(isRetriable('BROKER_NOT_AVAILABLE')).toBe(false)
  })
})
