// A task created while its changelog's partition has no leader yet (a broker just restarted: its
// ListOffsets answers NOT_LEADER for a few seconds) is retried, not the worker failed: a failed
// worker costs a process restart on Kafka. Embedded log, virtual clock, an explicit fault point.

import { describe, expect, it } from 'vitest'
import { LogError } from '../log/errors.ts'
import { MockTime } from '../log/time.ts'
import { validateRun } from '../validator/validator.ts'
import { smallLab } from './__fixtures__/small-lab.ts'
import { retryingNotNow } from './not-now-retry.ts'

describe('a broker that answers "not now" while a task is created', () => {
  it.each(['at_least_once', 'exactly_once', 'exactly_once_v2'] as const)(
    'under %s: the task is created once the leader is back, no worker fails, nothing lost or doubled',
    async (guarantee) => {
      const { lab, time } = smallLab(guarantee, { workers: 3 })
      const failures: string[] = []
      const created: string[] = []
      lab.onEvent((e) => {
        if (e.type === 'worker-failed') failures.push(`${e.workerId}: ${e.error}`)
        if (e.type === 'task-created') created.push(e.taskId)
      })
      await lab.start()
      await time.runFor(600)
      const before = created.length
      // The survivors take the killed worker's partitions: each new task reads its changelog's offsets.
      lab.workerFaults.offsetReadFailures.arm(6)
      expect(lab.kill('worker-1')).toBe(true)
      await time.runUntil(() => lab.caughtUp(), 60_000, 20)
      await time.runUntilSettled(lab.stop())
      expect(lab.workerFaults.offsetReadFailures.pending(), 'every NOT_LEADER answer was met').toBe(0)
      expect(failures).toEqual([])
      expect(created.length).toBeGreaterThan(before)
      const report = await validateRun(lab.connection.inspector(), {
        groupId: lab.groupId,
        inputTopic: 'input',
        outputTopic: 'output',
        changelogTopic: lab.topics.changelog,
        dlqTopic: lab.topics.deadLetter,
      })
      expect(report.lost).toBe(0)
      // A kill under at_least_once redoes work (duplicates, aggregates counted twice): exactly-once has neither.
      if (guarantee !== 'at_least_once')
        expect({ duplicates: report.duplicates, stateMismatches: report.stateMismatches }).toEqual({
          duplicates: 0,
          stateMismatches: 0,
        })
    },
  )

  it('gives up after its bound, and never retries an error that is not retriable', async () => {
    const time = new MockTime()
    let calls = 0
    const o = { boundMs: 5_000, stopped: () => false, whenStopped: () => 'stopped' }
    const notLeader = () =>
      retryingNotNow(time, o, async () => {
        calls++
        throw new LogError('BROKER_NOT_AVAILABLE', 'not the leader')
      })
    const failed = notLeader().catch((e: unknown) => e)
    await time.runFor(10_000)
    expect(await failed).toBeInstanceOf(LogError)
    expect(calls).toBeGreaterThan(3)
    calls = 0
    const fenced = await retryingNotNow(time, o, async () => {
      calls++
      throw new LogError('PRODUCER_FENCED', 'fenced')
    }).catch((e: unknown) => e)
    expect((fenced as LogError).code).toBe('PRODUCER_FENCED')
    expect(calls).toBe(1)
  })

  it('ends with the stop value, not the error, when a stop is asked for while it retries', async () => {
    const time = new MockTime()
    let stop = false
    let calls = 0
    const retried = retryingNotNow(
      time,
      { boundMs: 60_000, stopped: () => stop, whenStopped: () => 'stopped cleanly' },
      async () => {
        calls++
        throw new LogError('BROKER_NOT_AVAILABLE', 'connect ECONNREFUSED')
      },
    )
    await time.runFor(500)
    stop = true
    await time.runFor(2_000)
    expect(await retried).toBe('stopped cleanly')
    expect(calls).toBeGreaterThan(1)
  })
})
