// An offset commit refused while the group's coordinator is away (what killed a worker on a
// three-node cluster under at_least_once: "BROKER_NOT_AVAILABLE: commit offsets of group ...:
// Broker 3 not found in the cached metadata", a retriable error) is retried until
// default.api.timeout.ms, and past it the worker goes on with its tasks corrupted: no worker dies
// of a retriable error. Embedded log, virtual clock, the log's commit fault points.

import { describe, expect, it } from 'vitest'
import { validateRun } from '../validator/validator.ts'
import type { InProcessRuntime } from '../lab/in-process-runtime.ts'
import { smallLab } from './__fixtures__/small-lab.ts'

function watch(lab: InProcessRuntime) {
  const seen = { failed: [] as string[], corrupted: 0 }
  lab.onEvent((e) => {
    if (e.type === 'worker-failed') seen.failed.push(`${e.workerId}: ${e.error}`)
    if (e.type === 'task-migrated' && e.reason.includes('retriable')) seen.corrupted++
  })
  return seen
}

function validate(lab: InProcessRuntime) {
  return validateRun(lab.connection.inspector(), {
    groupId: lab.groupId,
    inputTopic: 'input',
    outputTopic: 'output',
    changelogTopic: lab.topics.changelog,
    dlqTopic: lab.topics.deadLetter,
  })
}

describe('an offset commit refused while the coordinator is away (at_least_once)', () => {
  it('is retried: the worker goes on, every commit lands, nothing is lost', async () => {
    const { lab, time } = smallLab('at_least_once')
    const seen = watch(lab)
    await lab.start()
    await time.runFor(600)
    lab.workerFaults.commitFailures.arm(12)
    await time.runUntil(() => lab.caughtUp(), 60_000, 20)
    await time.runUntilSettled(lab.stop())
    expect(lab.workerFaults.commitFailures.pending(), 'every refusal was met by a retry').toBe(0)
    expect(seen.failed).toEqual([])
    // Retried inside the commit's deadline: no task had to be corrupted for it.
    expect(seen.corrupted).toBe(0)
    const report = await validate(lab)
    expect(report.lost).toBe(0)
    expect(report.duplicates).toBe(0)
  })

  it('away past default.api.timeout.ms: the tasks are corrupted and restored, the worker goes on', async () => {
    const { lab, time } = smallLab('at_least_once')
    const seen = watch(lab)
    await lab.start()
    await time.runFor(600)
    // Two workers, a try a second each once backed off: 240 refusals outlast a commit's 60 s deadline.
    lab.workerFaults.commitFailures.arm(240)
    await time.runUntil(() => lab.caughtUp(), 400_000, 50)
    await time.runUntilSettled(lab.stop())
    expect(lab.caughtUp()).toBe(true)
    expect(seen.failed).toEqual([])
    expect(seen.corrupted).toBeGreaterThanOrEqual(1)
    expect((await validate(lab)).lost).toBe(0)
  })
})
