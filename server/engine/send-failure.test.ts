// A send whose connection is lost after the broker appended the batch (what the ack-drop proxy's
// cut connection does to a kafkajs producer on Kafka): the worker must not fail. The task is
// corrupted: under exactly_once its transaction is aborted and it is reprocessed from its
// committed offsets, so nothing is doubled or lost; under at_least_once nothing is lost. (Found on
// Kafka: both workers of an exactly_once run failed on "Broker not connected" and the run stalled.)

import { describe, expect, it } from 'vitest'
import { validateRun } from '../validator/validator.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { smallLab } from './__fixtures__/small-lab.ts'

async function runWithLostConnections(guarantee: ProcessingGuarantee) {
  const { lab, time } = smallLab(guarantee)
  const corrupted: string[] = []
  const failures: string[] = []
  lab.onEvent((e) => {
    if (e.type === 'task-migrated' && e.reason.startsWith('task corrupted')) corrupted.push(...e.taskIds)
    if (e.type === 'worker-failed') failures.push(e.workerId)
  })
  await lab.start()
  await time.runFor(600)
  lab.workerFaults.sendFailures.arm(3)
  await time.runUntil(() => lab.caughtUp(), 60_000, 20)
  await time.runUntilSettled(lab.stop())
  const report = await validateRun(lab.connection.inspector(), {
    groupId: lab.groupId,
    inputTopic: 'input',
    outputTopic: 'output',
    changelogTopic: lab.topics.changelog,
    dlqTopic: lab.topics.deadLetter,
  })
  return { corrupted, failures, report }
}

describe('a send whose connection is lost after the broker appended it', () => {
  it('exactly_once: the task is corrupted, its transaction aborted, and nothing is doubled or lost', async () => {
    const { corrupted, failures, report } = await runWithLostConnections('exactly_once')
    expect(failures).toEqual([])
    expect(corrupted.length).toBeGreaterThanOrEqual(1)
    expect(report.inputRecords).toBe(6_000)
    expect({
      lost: report.lost,
      duplicates: report.duplicates,
      stateMismatches: report.stateMismatches,
      abortedReads: report.abortedReads,
      openTransactions: report.openTransactions,
    }).toEqual({ lost: 0, duplicates: 0, stateMismatches: 0, abortedReads: 0, openTransactions: 0 })
  })

  it('at_least_once: the worker goes on and nothing is lost', async () => {
    const { corrupted, failures, report } = await runWithLostConnections('at_least_once')
    expect(failures).toEqual([])
    expect(corrupted.length).toBeGreaterThanOrEqual(1)
    expect(report.lost).toBe(0)
  })
})
