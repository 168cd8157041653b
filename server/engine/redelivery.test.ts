// Input handed to a task below its position (what a consumer whose position went back does) is
// caught before it is processed twice: pure detection with fixtures, then the embedded log's
// positionRewinds fault point under each guarantee, on a virtual clock.

import { describe, expect, it } from 'vitest'
import type { ConsumedRecord } from '../log/types.ts'
import { validateRun } from '../validator/validator.ts'
import { smallLab } from './__fixtures__/small-lab.ts'
import { describeRedeliveries, redeliveries } from './redelivery.ts'

const rec = (partition: number, offset: number): ConsumedRecord => ({
  topic: 'input',
  partition,
  offset,
  key: 'k',
  value: '1',
  headers: undefined,
  timestamp: 0,
})
const task = (id: string, consumedOffset: number) => ({ id, consumedOffset })

describe('redeliveries', () => {
  const nothingRedeliveredPastPosition =
    "finds nothing when every task's records start at or past its position (a gap is markers or aborted records)"
  it(nothingRedeliveredPastPosition, () => {
    const batch = new Map([
      [task('0_0', 10), [rec(0, 10), rec(0, 11)]],
      [task('0_1', 5), [rec(1, 9)]],
    ])
    expect(redeliveries(batch)).toEqual([])
  })

  it('names each task handed records below its position, with their range', () => {
    const batch = new Map([
      [task('0_0', 10), [rec(0, 7), rec(0, 8), rec(0, 9), rec(0, 10)]],
      [task('0_1', 5), [rec(1, 5)]],
      [task('0_2', 3), [rec(2, 0)]],
    ])
    const found = redeliveries(batch)
    expect(found).toEqual([
      { taskId: '0_0', position: 10, from: 7, to: 9, records: 3 },
      { taskId: '0_2', position: 3, from: 0, to: 0, records: 1 },
    ])
    expect(describeRedeliveries(found)).toMatch(
      /0_0 at offset 10 was handed 3 records at 7\.\.9; 0_2 at offset 3 was handed 1 record at 0\.\.0/,
    )
  })
})

describe('a consumer whose position goes back', () => {
  it('hands the same records out again on the next poll (the fault point itself)', async () => {
    const { lab, time } = smallLab('exactly_once_v2', { workers: 1, partitions: 1 })
    const handed: number[][] = []
    lab.onEvent((e) => {
      if (e.type === 'task-migrated' && e.reason.includes('already processed')) handed.push([])
    })
    await lab.start()
    await time.runFor(600)
    lab.workerFaults.positionRewinds.arm(1)
    await time.runUntil(() => lab.workerFaults.positionRewinds.pending() === 0, 10_000, 10)
    await time.runUntil(() => handed.length > 0, 10_000, 10)
    expect(handed).toHaveLength(1)
    await time.runUntilSettled(lab.destroy())
  })

  it.each(['at_least_once', 'exactly_once', 'exactly_once_v2'] as const)(
    'under %s: the worker restores the task instead of processing input twice, and no worker fails',
    async (guarantee) => {
      const { lab, time } = smallLab(guarantee, { workers: 2 })
      const failures: string[] = []
      const caught: string[] = []
      lab.onEvent((e) => {
        if (e.type === 'worker-failed') failures.push(`${e.workerId}: ${e.error}`)
        if (e.type === 'task-migrated' && e.reason.includes('already processed')) caught.push(e.reason)
      })
      await lab.start()
      await time.runFor(600)
      lab.workerFaults.positionRewinds.arm(5)
      await time.runUntil(() => lab.caughtUp(), 60_000, 20)
      await time.runUntilSettled(lab.stop())
      expect(lab.workerFaults.positionRewinds.pending(), 'every rewind happened').toBe(0)
      expect(failures).toEqual([])
      const report = await validateRun(lab.connection.inspector(), {
        groupId: lab.groupId,
        inputTopic: 'input',
        outputTopic: 'output',
        changelogTopic: lab.topics.changelog,
        dlqTopic: lab.topics.deadLetter,
      })
      expect(report.lost).toBe(0)
      // Restoring redoes work since the last commit under at_least_once; exactly-once has neither duplicates nor drift.
      if (guarantee === 'at_least_once') expect(report.duplicates).toBeGreaterThan(0)
      else
        expect({ duplicates: report.duplicates, stateMismatches: report.stateMismatches }).toEqual({
          duplicates: 0,
          stateMismatches: 0,
        })
      // A rewind whose records go to a task created in that poll (it seeks to its committed
      // offset) is no redelivery: at least one is.
      expect(caught.length, 'rewinds caught before processing').toBeGreaterThan(0)
      expect(caught.length).toBeLessThanOrEqual(5)
      expect(caught[0]).toMatch(
        new RegExp(
          'task corrupted: the consumer handed input the task had already processed \\(0_\\d at offset \\d+ was ' +
            'handed \\d+ records? at \\d+\\.\\.\\d+',
        ),
      )
    },
  )
})
