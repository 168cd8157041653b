// GroupAnswer: after a task migrated, the Kafka consumer's next poll waits for the group to answer
// (an accepted heartbeat, or a completed join), at most a bound. Virtual clock; the answers come
// at chosen instants.

import { describe, expect, it } from 'vitest'
import { MockTime } from '../time.ts'
import { GroupAnswer } from './group-answer.ts'

function setup() {
  const time = new MockTime()
  const answer = new GroupAnswer()
  let joins = 0
  let stopped = false
  const wait = () =>
    answer.await(() => joins, {
      boundMs: 30_000,
      everyMs: 50,
      stopped: () => stopped,
      sleep: (ms) => time.sleep(ms),
      now: () => time.now(),
    })
  return { time, answer, join: () => joins++, stop: () => (stopped = true), wait }
}

describe('GroupAnswer', () => {
  it('is asked once: the ask is spent by the wait', async () => {
    const { answer, time, wait, join } = setup()
    expect(answer.asked()).toBe(false)
    answer.ask()
    expect(answer.asked()).toBe(true)
    const waited = wait()
    expect(answer.asked()).toBe(false)
    join()
    await time.runUntilSettled(waited)
  })

  it('ends at the first heartbeat the coordinator accepts after the ask: the assignment stands', async () => {
    const { answer, time, wait } = setup()
    answer.heartbeatAccepted()
    answer.ask()
    const t0 = time.now()
    let outcome: string | null = null
    void wait().then((o) => (outcome = o))
    await time.runFor(2_000)
    expect(outcome, 'a heartbeat before the ask does not count').toBeNull()
    answer.heartbeatAccepted()
    await time.runFor(100)
    expect(outcome).toBe('heartbeat')
    expect(time.now() - t0).toBeLessThan(2_200)
  })

  it('ends when a join completes: the member was dropped or a rebalance began, and its losses run first', async () => {
    const { answer, time, wait, join } = setup()
    answer.ask()
    let outcome: string | null = null
    void wait().then((o) => (outcome = o))
    await time.runFor(8_000)
    expect(outcome).toBeNull()
    join()
    await time.runFor(100)
    expect(outcome).toBe('join')
  })

  it('goes on after its bound when the group never answers', async () => {
    const { answer, time, wait } = setup()
    answer.ask()
    const t0 = time.now()
    const outcome = await time.runUntilSettled(wait())
    expect(outcome).toBe('bound')
    expect(time.now() - t0).toBeGreaterThanOrEqual(30_000)
    expect(time.now() - t0).toBeLessThan(30_200)
  })

  it('stops waiting when the consumer closes or crashes', async () => {
    const { answer, time, wait, stop } = setup()
    answer.ask()
    let outcome: string | null = null
    void wait().then((o) => (outcome = o))
    await time.runFor(1_000)
    stop()
    await time.runFor(100)
    expect(outcome).toBe('stopped')
  })
})
