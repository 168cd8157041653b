// An offset commit refused while the group's coordinator is away (what killed a worker on a
// three-node cluster under at_least_once: "BROKER_NOT_AVAILABLE: commit offsets of group ...:
// Broker 3 not found in the cached metadata", a retriable error) is retried until
// default.api.timeout.ms, and past it the worker goes on with its tasks corrupted: no worker dies
// of a retriable error. A refusal no retry cures fails the worker: the runtime reports the crash
// with its cause and replaces the worker after restartAfterMs, as it does a killed one.
// Embedded log, virtual clock, the log's commit fault points.

import { describe, expect, it } from 'vitest'
import { validateRun } from '../validator/validator.ts'
import type { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import type { LabEvent } from '../runtime/lab-runtime.ts'
import { smallLab } from './__fixtures__/small-lab.ts'
import { runHeadless } from '../runs/headless-run.ts'
import { MockTime } from '../log/time.ts'

function watch(lab: InProcessRuntime) {
  const seen = { failed: [] as string[], crashed: [] as Extract<LabEvent, { type: 'worker-crashed' }>[], corrupted: 0 }
  lab.onEvent((e) => {
    if (e.type === 'worker-failed') seen.failed.push(`${e.workerId}: ${e.error}`)
    if (e.type === 'worker-crashed') seen.crashed.push(e)
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
    expect(seen.crashed).toEqual([])
    expect(lab.crashes).toEqual([])
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
    expect(lab.crashes).toEqual([])
    expect(seen.corrupted).toBeGreaterThanOrEqual(1)
    expect((await validate(lab)).lost).toBe(0)
  })
})

describe('a fatal error: the crash is reported with its cause and the worker replaced', () => {
  it('in process: worker-crashed with its error, a new worker in the slot after restartAfterMs', async () => {
    const { lab, time } = smallLab('at_least_once', { restartAfterMs: 500, restartFailed: true })
    const seen = watch(lab)
    await lab.start()
    await time.runFor(600)
    lab.workerFaults.fatalCommitFailures.arm(1)
    await time.runUntil(() => seen.crashed.length > 0, 10_000, 20)
    const crash = seen.crashed[0]!
    expect(crash.cause).toContain('INVALID_REQUEST')
    expect(crash.cause).toContain('refused for good')
    const { type: _type, ...reported } = crash
    expect(lab.crashes).toEqual([reported])
    const slot = lab.slots.find((s) => s.slotId === crash.slotId)!
    expect(slot.worker!.id).toBe(crash.workerId)
    await time.runFor(600)
    expect(slot.worker!.id, 'replaced in its slot').not.toBe(crash.workerId)
    expect(lab.liveSlots()).toHaveLength(2)
    // What it held was recovered by the group, as after a kill.
    expect(lab.tracker.recoveries.map((r) => r.workerId)).toContain(crash.workerId)
    await time.runUntil(() => lab.caughtUp(), 60_000, 20)
    await time.runUntilSettled(lab.stop())
    expect((await validate(lab)).lost).toBe(0)
  })

  it('without restartFailed the crash is reported and the slot stays empty', async () => {
    const { lab, time } = smallLab('at_least_once', { restartAfterMs: 500 })
    const seen = watch(lab)
    await lab.start()
    await time.runFor(600)
    lab.workerFaults.fatalCommitFailures.arm(1)
    await time.runUntil(() => seen.crashed.length > 0, 10_000, 20)
    await time.runFor(2_000)
    expect(lab.crashes).toHaveLength(1)
    expect(lab.liveSlots()).toHaveLength(1)
    await time.runUntilSettled(lab.close())
  })

  it('a headless run lists the crash beside the kills and ends with every worker live', async () => {
    const time = new MockTime()
    const run = runHeadless(
      {
        guarantee: 'at_least_once',
        workers: 2,
        partitions: 4,
        records: 4_000,
        rate: 2_000,
        seed: 5,
        killEveryMs: null,
        killAtStep: null,
        restartAfterMs: 500,
        dropAcks: 0,
        idempotence: true,
        latency: 'default',
      },
      time,
      (r) => {
        void r.time.sleep(800).then(() => (r as InProcessRuntime).workerFaults.fatalCommitFailures.arm(1))
      },
    )
    const result = await time.runUntilSettled(run, 200_000)
    expect(result.completed).toBe(true)
    expect(result.kills).toBe(0)
    expect(result.crashes).toHaveLength(1)
    expect(result.crashes[0]!.cause).toContain('refused for good')
    expect(result.crashes[0]!.t).toBeGreaterThan(0)
    expect(result.crashHandler).toBe('REPLACE_THREAD')
    expect(result.workers).toEqual({ started: 2, liveAtEnd: 2 })
    expect(result.warnings).toBeUndefined()
    expect(result.lost).toBe(0)
    expect(result.definitions.crashes).toContain('replaced')
  })
})
