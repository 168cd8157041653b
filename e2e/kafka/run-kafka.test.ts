// `eoscope run --backend kafka` against a real broker (npm run test:kafka starts one), with worker
// processes killed by SIGKILL and paused by SIGSTOP. The validator reads the real topics.
// Each run uses a fresh application.id, so its topics and group are its own.

import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { defaultStreamsConfig } from '../../lib/streams-config.ts'
import { WorkerProcessRuntime } from '../../server/runtime/kafka/worker-process-runtime.ts'
import { SystemTime } from '../../server/log/time.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'
import { validateRun } from '../../server/validator/validator.ts'
import { defaultRunTimeoutMs } from '../../server/runs/headless-run.ts'
import { untilProgress, waitFor } from '../progress.ts'
import { validationTarget } from '../../server/runtime/runtime-common.ts'

const brokers = inject('kafkaBrokers')
const BIN = fileURLToPath(new URL('../../bin/eoscope.mjs', import.meta.url))
const run = randomUUID().slice(0, 8)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/**
 * How long one run with kills may take: the run's own deadline (max(300 s, 60 × session.timeout.ms),
 * each kill costing up to a session timeout of detection) and a minute to start and validate. A run
 * that makes no progress is ended earlier by its own stall watchdog (exit 3), which reports where it
 * stood: that, not this bound, is what fails a stuck run; a slow one on a busy machine goes on.
 */
/** A state reached after a failure (a kill detected, partitions moved): a few session timeouts. */
const STATE_BOUND_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs + 60_000
/** How long a committed total may stay still, work remaining, before a wait on it fails. */
const STALL_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs
const RUN_BOUND_MS = defaultRunTimeoutMs({ 'session.timeout.ms': KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs }) + 60_000

async function eoscopeRun(args: string[]): Promise<Record<string, unknown> & { code: number }> {
  if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [BIN, 'run', '--backend', 'kafka', '--brokers', brokers, '--json', ...args],
      { timeout: RUN_BOUND_MS, maxBuffer: 16 * 1024 * 1024 },
    )
    return { ...JSON.parse(stdout.trim().split('\n').pop()!), code: 0 }
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string }
    throw new Error(`eoscope run failed (exit ${err.code}): ${err.stdout ?? ''}\n${err.stderr ?? ''}`)
  }
}

describe('eoscope run --backend kafka', () => {
  // exactly_once: one transactional producer per task, fenced by epoch; exactly_once_v2: one per
  // worker, its offsets fenced by the group's generation (KIP-447).
  it.each([
    ['exactly_once', 'eos'],
    ['exactly_once_v2', 'eosv2'],
  ] as const)(
    '%s with SIGKILL kills: 0 in every correctness figure',
    { timeout: RUN_BOUND_MS + 30_000 },
    async (guarantee, id) => {
      const r = await eoscopeRun([
        '--guarantee',
        guarantee,
        '--workers',
        '3',
        '--partitions',
        '6',
        '--records',
        '30000',
        '--rate',
        '3000',
        '--kill-every',
        '2000',
        '--application-id',
        `eoscope-e2e-${id}-${run}`,
      ])
      expect(r.completed).toBe(true)
      expect(r.backend).toBe('kafka')
      expect(r.kills as number).toBeGreaterThanOrEqual(2)
      expect({
        duplicates: r.duplicates,
        lost: r.lost,
        abortedReads: r.abortedReads,
        stateMismatches: r.stateMismatches,
        openTransactions: r.openTransactions,
      }).toEqual({
        duplicates: 0,
        lost: 0,
        abortedReads: 0,
        stateMismatches: 0,
        openTransactions: 0,
      })
      expect(r.outputRecords).toBe(30000)
      expect(r.droppedAcks).toBe(0)
      // From the ABORT markers the log holds: the broker's aborts of killed workers' transactions too.
      const txns = r.transactions as { committed: number; aborted: number }
      const reported = r.transactionsReported as { committed: number; aborted: number }
      expect(txns.aborted).toBeGreaterThanOrEqual(reported.aborted)
      expect(txns.committed).toBeGreaterThan(0)
      expect((r.definitions as Record<string, string>).transactions).toContain('ABORT markers')
    },
  )

  it('at_least_once with kills at step 5 (after the ack, before the commit): duplicates, nothing lost', {
    timeout: RUN_BOUND_MS + 30_000,
  }, async () => {
    const r = await eoscopeRun([
      '--guarantee',
      'at_least_once',
      '--workers',
      '3',
      '--partitions',
      '6',
      '--records',
      '30000',
      '--rate',
      '4000',
      '--kill-every',
      '2000',
      '--kill-at-step',
      '5',
      '--application-id',
      `eoscope-e2e-alos-${run}`,
    ])
    expect(r.completed).toBe(true)
    expect(r.kills as number).toBeGreaterThanOrEqual(1)
    expect(r.duplicates as number).toBeGreaterThan(0)
    expect(r.lost).toBe(0)
    expect(r.abortedReads).toBe(0)
  })

  const dropAcksThroughProxy =
    '--drop-acks through the ack-drop proxy: without enable.idempotence the retried batches are duplicates; with ' +
    'exactly_once none, the workers 2 ms away from the broker (--network-latency-ms) and their acks lost there too'
  it(dropAcksThroughProxy, {
    timeout: 2 * RUN_BOUND_MS + 30_000,
  }, async () => {
    const plain = await eoscopeRun([
      '--guarantee',
      'at_least_once',
      '--idempotence',
      'off',
      '--workers',
      '2',
      '--partitions',
      '4',
      '--records',
      '6000',
      '--rate',
      '2000',
      '--drop-acks',
      '3',
      '--application-id',
      `eoscope-e2e-acks-plain-${run}`,
    ])
    expect(plain.completed).toBe(true)
    expect(plain.droppedAcks).toBe(3)
    expect(plain.duplicates as number).toBeGreaterThan(0)
    expect(plain.lost).toBe(0)
    const eos = await eoscopeRun([
      '--guarantee',
      'exactly_once',
      '--workers',
      '2',
      '--partitions',
      '4',
      '--records',
      '6000',
      '--rate',
      '2000',
      '--drop-acks',
      '3',
      '--network-latency-ms',
      '2',
      '--network-jitter-ms',
      '1',
      '--application-id',
      `eoscope-e2e-acks-eos-${run}`,
    ])
    expect(eos.completed).toBe(true)
    expect(eos.network).toEqual({ oneWayLatencyMs: 2, jitterMs: 1 })
    expect(eos.droppedAcks).toBe(3)
    expect({
      duplicates: eos.duplicates,
      lost: eos.lost,
      abortedReads: eos.abortedReads,
      stateMismatches: eos.stateMismatches,
    }).toEqual({ duplicates: 0, lost: 0, abortedReads: 0, stateMismatches: 0 })
    expect(eos.outputRecords).toBe(6000)
  })
})

describe('a paused worker on Kafka', () => {
  let lab: WorkerProcessRuntime | null = null
  afterAll(async () => {
    await lab?.close()
  })

  // exactly_once fences the zombie's producer by epoch (the next owner's initTransactions);
  // exactly_once_v2 by generation (its offsets, TxnOffsetCommit v3, refused by the group).
  it.each(['exactly_once', 'exactly_once_v2'] as const)(
    '%s: SIGSTOP past session.timeout.ms, then SIGCONT: it is fenced and nothing it writes becomes visible',
    { timeout: RUN_BOUND_MS + 3 * STATE_BOUND_MS },
    async (guarantee) => {
      if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
      await lab?.close()
      const config = defaultStreamsConfig(guarantee, `eoscope-e2e-pause-${guarantee}-${run}`)
      lab = new WorkerProcessRuntime(new SystemTime(), {
        client: { brokers: [brokers], clientId: `eoscope-e2e-pause-${run}` },
        config,
        workers: 2,
        partitions: 4,
        ratePerSec: 2_000,
        maxRecords: 24_000,
        keys: 50,
        seed: 7,
        restartAfterMs: null,
      })
      await lab.start()
      const slot = lab.slots[0]!
      // States reached within a few session timeouts of detection and rebalance; the catch-up waits on
      // the committed total, failing only when it stops moving.
      const until = (what: string, ok: () => boolean) => waitFor(ok, what, { boundMs: STATE_BOUND_MS, everyMs: 20 })
      // Paused while it owns tasks with committed progress and, most likely, an open transaction.
      await until('worker-1 to process records', () =>
        [...(slot.worker?.tasks.values() ?? [])].some((t) => (t.committedOffset ?? 0) > 0),
      )
      const zombie = slot.worker!
      expect(lab.pause(zombie.id)).toBe(true)
      await sleep(150) // its last status, sent just before the stop, has arrived
      const zombieProducers = new Set(zombie.producers.map((p) => `${p.producerId}/${p.epoch}`))
      expect(zombieProducers.size).toBeGreaterThan(0)
      const outputEndsAtPause = await Promise.all(
        [0, 1, 2, 3].map((p) => lab!.connection.inspector().offsets({ topic: lab!.topics.output, partition: p })),
      )

      // Past session.timeout.ms: the group drops it and its partitions move to worker-2.
      const other = lab.slots[1]!.worker!
      await until('worker-2 to own all partitions', () => other.tasks.size === 4)
      const migratedBefore = lab.fenced
      expect(lab.resume(zombie.id)).toBe(true)
      // Back from SIGSTOP, its producers are fenced (or its partitions lost): it reports a migration.
      await until('the zombie to report its tasks migrated', () => lab!.fenced > migratedBefore)

      await untilProgress({
        what: 'all input committed',
        read: () => lab!.committedTotal(),
        done: () => lab!.caughtUp(),
        stallMs: STALL_MS,
        boundMs: RUN_BOUND_MS,
      })
      await lab.stop()
      const report = await validateRun(lab.connection.inspector(), validationTarget(lab))
      expect({
        duplicates: report.duplicates,
        lost: report.lost,
        abortedReads: report.abortedReads,
        stateMismatches: report.stateMismatches,
        openTransactions: report.openTransactions,
      }).toEqual({
        duplicates: 0,
        lost: 0,
        abortedReads: 0,
        stateMismatches: 0,
        openTransactions: 0,
      })
      // Nothing the zombie's producers wrote after the pause is committed.
      const inspector = lab.connection.inspector()
      let visibleFromZombie = 0
      for (let p = 0; p < 4; p++) {
        const tp = { topic: lab.topics.output, partition: p }
        const end = (await inspector.offsets(tp)).highWatermark
        const records = await inspector.readRaw(tp, outputEndsAtPause[p]!.highWatermark, end, 100_000)
        visibleFromZombie += records.filter(
          (r) =>
            r.control === null &&
            r.txnOutcome === 'committed' &&
            zombieProducers.has(`${r.producerId}/${r.producerEpoch}`),
        ).length
      }
      expect(visibleFromZombie).toBe(0)
    },
  )
})
