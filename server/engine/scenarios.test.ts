// Engine scenarios on the embedded log, driven by a virtual clock: a worker killed between the
// broker's ack and the offset commit, a dropped ack with and without idempotence, and a paused
// worker that wakes up as a zombie after its session expired. Outcomes come from the validator,
// which reads only the logs.

import { describe, expect, it } from 'vitest'
import { defaultStreamsConfig, type ProcessingGuarantee, type StreamsConfig } from '../../lib/streams-config.ts'
import { MockTime } from '../log/time.ts'
import type { LabEvent } from '../runtime/lab-runtime.ts'
import { InProcessRuntime as LabRuntime } from '../runtime/in-process-runtime.ts'
import { runHeadless } from '../runs/headless-run.ts'
import { phaseDurations } from '../runtime/recovery-tracker.ts'
import { validateRun } from '../validator/validator.ts'
import type { ValidationReport } from '../validator/report.ts'

/** Virtual time allowed for any one scenario before it counts as stuck. */
const MAX_VIRTUAL_MS = 120_000

interface Lab {
  lab: LabRuntime
  time: MockTime
  events: LabEvent[]
}

function newLab(
  config: StreamsConfig,
  options: { records: number; ratePerSec: number; restartAfterMs?: number | null; workers?: number },
): Lab {
  const time = new MockTime()
  const lab = new LabRuntime(time, {
    config,
    workers: options.workers ?? 2,
    partitions: 2,
    ratePerSec: options.ratePerSec,
    maxRecords: options.records,
    keys: 10,
    seed: 42,
    latency: 'default',
    restartAfterMs: options.restartAfterMs ?? null,
    deserializationPolicy: 'log-and-continue',
    traceIntervalMs: 1_000,
  })
  const events: LabEvent[] = []
  lab.onEvent((e) => events.push(e))
  return { lab, time, events }
}

/** Runs until every input record is produced and committed, stops cleanly and validates. */
async function finish({ lab, time }: Lab): Promise<ValidationReport> {
  await time.runUntil(() => lab.caughtUp(), MAX_VIRTUAL_MS, 20)
  await time.runUntilSettled(lab.stop(), MAX_VIRTUAL_MS)
  return validateRun(lab.connection.inspector(), {
    groupId: lab.groupId,
    inputTopic: lab.topics.input,
    outputTopic: lab.topics.output,
    changelogTopic: lab.topics.changelog,
    dlqTopic: lab.topics.deadLetter,
  })
}

function abortedTxns(events: readonly LabEvent[]): number {
  return events.filter((e) => 'source' in e && e.type === 'txn-ended' && e.outcome === 'aborted').length
}

/** The kill's recovery was measured to the end, and its phases add up to t1 - t0. */
function expectRecoveryMeasured(lab: LabRuntime): void {
  expect(lab.tracker.recoveries).toHaveLength(1)
  const r = lab.tracker.recoveries[0]!
  expect(r.t1).not.toBeNull()
  const phases = Object.values(phaseDurations(r))
  expect(phases.every((p) => p !== null && p >= 0)).toBe(true)
  expect(phases.reduce<number>((a, b) => a + b!, 0)).toBe(r.t1! - r.t0)
  if (r.guarantee === 'at_least_once') expect(phaseDurations(r).fence).toBe(0)
}

function config(guarantee: ProcessingGuarantee, overrides: Partial<StreamsConfig> = {}): StreamsConfig {
  return { ...defaultStreamsConfig(guarantee), ...overrides }
}

/** Starts a lab, waits until worker-1 has tasks and input is flowing, then arms a kill at step 5. */
async function killAtStep5(l: Lab): Promise<void> {
  await l.lab.start()
  await l.time.runUntil(
    () => (l.lab.slotOf('worker-1')?.worker?.tasks.size ?? 0) > 0 && l.lab.generator.sent > 20,
    10_000,
  )
  expect(l.lab.kill('worker-1', 5)).toBe(true)
  await l.time.runUntil(() => l.lab.kills === 1, 10_000)
}

/** What exactly-once promises, whatever happened during the run. */
function expectExactlyOnce(report: ValidationReport): void {
  const { duplicates, lost, stateMismatches, abortedReads, openTransactions } = report
  expect({ duplicates, lost, stateMismatches, abortedReads, openTransactions }).toEqual({
    duplicates: 0,
    lost: 0,
    stateMismatches: 0,
    abortedReads: 0,
    openTransactions: 0,
  })
}

describe('a worker killed after the broker acked its writes and before it committed its offsets (step 5)', () => {
  it('under at_least_once leaves duplicates the validator reports, and loses nothing', async () => {
    const l = newLab(config('at_least_once'), { records: 300, ratePerSec: 200 })
    await killAtStep5(l)
    const report = await finish(l)
    expect(report.lost).toBe(0)
    expect(report.duplicates).toBeGreaterThan(0)
    expect(report.abortedReads).toBe(0)
    expectRecoveryMeasured(l.lab)
  })

  it.each(['exactly_once', 'exactly_once_v2'] as const)(
    'under %s leaves no duplicates, nothing lost, no state mismatch, and aborts the open transaction',
    async (guarantee) => {
      const l = newLab(config(guarantee, { 'transaction.timeout.ms': 3_000 }), {
        records: 300,
        ratePerSec: 200,
        restartAfterMs: 500,
      })
      await killAtStep5(l)
      const report = await finish(l)
      expectExactlyOnce(report)
      expect(abortedTxns(l.events)).toBeGreaterThanOrEqual(1)
      expectRecoveryMeasured(l.lab)
    },
  )
})

describe('a dropped produce ack: the producer times out and sends the same request again', () => {
  it.each([
    { idempotence: false, doubled: true },
    { idempotence: true, doubled: false },
  ])('with enable.idempotence=$idempotence the write is doubled: $doubled', async ({ idempotence, doubled }) => {
    const l = newLab(config('at_least_once', { 'enable.idempotence': idempotence }), { records: 200, ratePerSec: 200 })
    await l.lab.start()
    await l.time.runUntil(() => l.lab.generator.sent > 20, 10_000)
    l.lab.dropAcks(1)
    await l.time.runUntil(() => l.lab.droppedAcks === 1, 10_000)
    const report = await finish(l)
    expect(report.lost).toBe(0)
    if (doubled) expect(report.duplicates).toBeGreaterThan(0)
    else expect(report.duplicates).toBe(0)
  })

  it('runHeadless on the virtual clock reports the doubled write without idempotence', async () => {
    const time = new MockTime()
    const result = await time.runUntilSettled(
      runHeadless(
        {
          guarantee: 'at_least_once',
          workers: 1,
          partitions: 2,
          records: 150,
          rate: 150,
          seed: 7,
          killEveryMs: null,
          killAtStep: null,
          restartAfterMs: 500,
          dropAcks: 2,
          idempotence: false,
          latency: 'default',
          keys: 10,
        },
        time,
      ),
      MAX_VIRTUAL_MS,
    )
    expect(result.completed).toBe(true)
    expect(result.droppedAcks).toBe(2)
    expect(result.lost).toBe(0)
    expect(result.duplicates).toBeGreaterThan(0)
  })
})

describe('a paused worker that wakes up after session.timeout.ms', () => {
  it.each(['exactly_once', 'exactly_once_v2'] as const)(
    'under %s is fenced, and nothing it writes as a zombie becomes visible',
    async (guarantee) => {
      const c = config(guarantee)
      const l = newLab(c, { records: 300, ratePerSec: 200 })
      const { lab, time, events } = l
      await lab.start()
      const zombie = lab.slotOf('worker-1')!.worker!
      const outputLogs = [0, 1].map((partition) => lab.cluster.partitionLog({ topic: lab.topics.output, partition }))
      // Pause it while its transaction holds records in the output topic.
      const openIdentity = () =>
        zombie.producers().find((id) => outputLogs.some((log) => log.hasOngoingTxn(id.producerId))) ?? null
      await time.runUntil(() => lab.generator.sent > 40 && openIdentity() !== null, 10_000, 1)
      const open = openIdentity()!
      const memberBefore = zombie.memberId
      expect(lab.pause('worker-1')).toBe(true)
      await time.runUntil(
        () =>
          events.some(
            (e) =>
              'source' in e &&
              e.type === 'group' &&
              e.event.type === 'member-expired' &&
              e.event.memberId === memberBefore,
          ),
        c['session.timeout.ms'] * 5,
      )
      await time.runFor(c['session.timeout.ms'])
      expect(lab.resume('worker-1')).toBe(true)
      const report = await finish(l)

      expect(events.some((e) => e.type === 'task-migrated' && e.workerId === zombie.id)).toBe(true)
      // Every record of the transaction the zombie had open, before and after its pause, is aborted.
      const zombieRecords = []
      for (const topic of [lab.topics.output, lab.topics.changelog]) {
        for (const partition of [0, 1]) {
          const log = lab.cluster.partitionLog({ topic, partition })
          for (const r of log.readRaw(0, log.highWatermark, Number.MAX_SAFE_INTEGER)) {
            if (r.control === null && r.producerId === open.producerId && r.producerEpoch === open.epoch)
              zombieRecords.push(r)
          }
        }
      }
      expect(zombieRecords.length).toBeGreaterThan(0)
      expect(zombieRecords.every((r) => r.txnOutcome === 'aborted')).toBe(true)
      expectExactlyOnce(report)
    },
  )
})
