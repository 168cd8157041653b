// A commit whose EndTxn answer is lost after the coordinator committed (a broker's connection cut,
// or a timeout, while it wrote the markers): the client cannot tell whether the transaction
// committed, and its producer may neither commit again nor abort. The worker must not fail (on a
// three-broker cluster it did, and a new process cost a session timeout): its tasks are corrupted,
// its producer replaced, and they restart from the offsets the coordinator holds. Nothing is
// doubled or lost, and nothing stays open.

import { describe, expect, it } from 'vitest'
import { validateRun } from '../validator/validator.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { smallLab } from './__fixtures__/small-lab.ts'

async function runWithLostCommitAnswers(guarantee: ProcessingGuarantee) {
  const { lab, time } = smallLab(guarantee)
  const corrupted: string[] = []
  const failures: string[] = []
  lab.onEvent((e) => {
    if (e.type === 'task-migrated' && e.reason.startsWith('task corrupted') && e.reason.includes('outcome unknown')) corrupted.push(...e.taskIds)
    if (e.type === 'worker-failed') failures.push(e.workerId)
  })
  await lab.start()
  await time.runFor(600)
  lab.workerFaults.commitAnswersLost.arm(3)
  await time.runUntil(() => lab.caughtUp(), 60_000, 20)
  await time.runUntilSettled(lab.stop())
  const report = await validateRun(lab.connection.inspector(), { groupId: lab.groupId, inputTopic: 'input', outputTopic: 'output', changelogTopic: lab.topics.changelog, dlqTopic: lab.topics.deadLetter })
  return { corrupted, failures, report, left: lab.workerFaults.commitAnswersLost.pending() }
}

describe('a commit whose answer is lost after the coordinator committed', () => {
  it.each([['exactly_once'], ['exactly_once_v2']] as const)('%s: the tasks are corrupted, the producer replaced, and nothing is doubled, lost or left open', async (guarantee) => {
    const { corrupted, failures, report, left } = await runWithLostCommitAnswers(guarantee)
    expect(left, 'every armed fault was met').toBe(0)
    expect(failures).toEqual([])
    expect(corrupted.length).toBeGreaterThanOrEqual(3)
    expect(report.inputRecords).toBe(6_000)
    expect({ lost: report.lost, duplicates: report.duplicates, stateMismatches: report.stateMismatches, abortedReads: report.abortedReads, openTransactions: report.openTransactions }).toEqual({ lost: 0, duplicates: 0, stateMismatches: 0, abortedReads: 0, openTransactions: 0 })
  })
})
