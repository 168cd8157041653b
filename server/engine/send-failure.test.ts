// A send whose connection is lost after the broker appended the batch (what the ack-drop proxy's
// cut connection does to a kafkajs producer on Kafka): the worker must not fail. The task is
// corrupted: under exactly_once its transaction is aborted and it is reprocessed from its
// committed offsets, so nothing is doubled or lost; under at_least_once nothing is lost. (Found on
// Kafka: both workers of an exactly_once run failed on "Broker not connected" and the run stalled.)

import { describe, expect, it } from 'vitest'
import { defaultStreamsConfig, type ProcessingGuarantee } from '../../lib/streams-config.ts'
import { MockTime } from '../log/time.ts'
import { InProcessRuntime as LabRuntime } from '../lab/in-process-runtime.ts'
import { validateRun } from '../validator/validator.ts'

async function runWithLostConnections(guarantee: ProcessingGuarantee) {
  const time = new MockTime()
  const lab = new LabRuntime(time, {
    config: defaultStreamsConfig(guarantee),
    workers: 2,
    partitions: 4,
    ratePerSec: 2_000,
    maxRecords: 6_000,
    keys: 20,
    seed: 11,
    latency: 'default',
    restartAfterMs: null,
    deserializationPolicy: 'log-and-continue',
    traceIntervalMs: 1_000,
  })
  const corrupted: string[] = []
  const failures: string[] = []
  lab.onEvent((e) => {
    if (e.type === 'task-migrated' && e.reason.startsWith('task corrupted')) corrupted.push(...e.taskIds)
    if (e.type === 'worker-failed') failures.push(e.workerId)
  })
  await lab.start()
  await time.runFor(600)
  lab.workerFaults.failNextSends(3)
  await time.runUntil(() => lab.caughtUp(), 60_000, 20)
  await time.runUntilSettled(lab.stop())
  const report = await validateRun(lab.connection.inspector(), { groupId: lab.groupId, inputTopic: 'input', outputTopic: 'output', changelogTopic: lab.topics.changelog, dlqTopic: lab.topics.deadLetter })
  return { corrupted, failures, report }
}

describe('a send whose connection is lost after the broker appended it', () => {
  it('exactly_once: the task is corrupted, its transaction aborted, and nothing is doubled or lost', async () => {
    const { corrupted, failures, report } = await runWithLostConnections('exactly_once')
    expect(failures).toEqual([])
    expect(corrupted.length).toBeGreaterThanOrEqual(1)
    expect(report.inputRecords).toBe(6_000)
    expect({ lost: report.lost, duplicates: report.duplicates, stateMismatches: report.stateMismatches, abortedReads: report.abortedReads, openTransactions: report.openTransactions }).toEqual({ lost: 0, duplicates: 0, stateMismatches: 0, abortedReads: 0, openTransactions: 0 })
  })

  it('at_least_once: the worker goes on and nothing is lost', async () => {
    const { corrupted, failures, report } = await runWithLostConnections('at_least_once')
    expect(failures).toEqual([])
    expect(corrupted.length).toBeGreaterThanOrEqual(1)
    expect(report.lost).toBe(0)
  })
})
