// The chaos soak on a real Kafka broker: steady load from an idempotent producer that retries
// across outages, worker processes (`eoscope worker`), and a seeded random mix of faults:
// SIGKILL, kill at a step through the commands topic, SIGSTOP past session.timeout.ms then
// SIGCONT (zombies), commit.interval.ms changes (every worker restarted cleanly with the new
// interval) and broker restarts (the local broker stopped and started again mid-run, at least one
// in every 50 faults). The validator reads the real topics periodically and at the end.
//
// What the Kafka backend cannot inject is counted as 0 and said so in the notes: dropped acks (a
// real broker cannot be told to drop one) and guarantee changes (exactly_once_v2 is unavailable
// on kafkajs, KIP-447).

import { execFile } from 'node:child_process'
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Step } from '../../../lib/lab-protocol.ts'
import { defaultStreamsConfig, type ProcessingGuarantee } from '../../../lib/streams-config.ts'
import { SystemTime } from '../../log/time.ts'
import { validateRun } from '../../validator/validator.ts'
import type { ValidationReport } from '../../validator/report.ts'
import { soakViolations, type CorrectnessRow, type SoakMode } from '../soak.ts'
import { KAFKA_CAPABILITIES } from '../../log/kafka/capabilities.ts'
import { WorkerProcessRuntime as KafkaLabRuntime } from './worker-process-runtime.ts'
import { retrying } from './kafka-worker.ts'
import { RetryingLoadProducer } from './retrying-load-producer.ts'

export { RetryingLoadProducer }

export type KafkaFaultKind = 'kill' | 'killAtStep' | 'pause' | 'droppedAck' | 'guaranteeChange' | 'commitIntervalChange' | 'brokerRestart'

export interface KafkaSoakOptions {
  mode: SoakMode
  faults: number
  /** Keep going at least this long, even after the faults are done. */
  minMs?: number
  seed: number
  ratePerSec: number
  brokers: string[]
  /** Stops the broker and starts it again (default: scripts/kafka-broker.sh stop, then start, on the brokers' port). */
  restartBroker?: () => Promise<void>
  /** Validate the topics this often while running. */
  validateEveryMs?: number
  workers?: number
  partitions?: number
  /** Worker processes' stderr to this process's stderr. */
  workerLogs?: boolean
  /** Delete the run's topics at the end (default true). */
  deleteTopics?: boolean
  onProgress?: (p: KafkaSoakProgress) => void
  onFault?: (kind: KafkaFaultKind, detail: string, elapsedMs: number) => void
}

export interface KafkaSoakProgress {
  elapsedMs: number
  faults: Record<KafkaFaultKind, number>
  lastCheck: CorrectnessRow | null
}

export interface KafkaSoakResult {
  backend: 'kafka'
  mode: SoakMode
  seed: number
  ratePerSec: number
  durationMs: number
  applicationId: string
  faults: Record<KafkaFaultKind, number> & { total: number }
  guaranteesVisited: ProcessingGuarantee[]
  commitIntervalsVisited: number[]
  brokerRestarts: { atMs: number; outageMs: number }[]
  /** Worker processes that exited with an error (mostly during broker outages) and were replaced. */
  workerFailures: number
  input: { sentRecords: number; retriedSends: number; replacedProducers: number; failedSends: number; failedRecords: number }
  periodicChecks: CorrectnessRow[]
  final: CorrectnessRow & { outputRecords: number; abortedReadsUncommitted: number; poison: number }
  passed: boolean
  violations: string[]
  notes: string[]
}

export const KAFKA_SOAK_NOTES = [
  'droppedAck is always 0 on Kafka: a real broker cannot be made to drop a produce acknowledgement (the embedded soak injects them).',
  `guaranteeChange is always 0 on Kafka and the exactly-once mode runs exactly_once only: ${KAFKA_CAPABILITIES.unavailable.exactly_once_v2}`,
  'brokerRestart stops the local broker (scripts/kafka-broker.sh stop: SIGTERM, controlled shutdown) and starts it again mid-run, with the load and the workers running; the load generator retries its sends across the outage (a send that fails for good is a violation), and worker processes that fail during the outage are replaced.',
  'commitIntervalChange restarts every worker process cleanly (SIGTERM: commit, leave the group) with the new commit.interval.ms, as reconfigure does on the embedded backend.',
  'pause is SIGSTOP for session.timeout.ms plus 0.1 to 1.5 s, then SIGCONT: the worker comes back as a zombie.',
]

const COMMIT_INTERVALS = [50, 100, 250, 500, 1_000]
const SCRIPT = fileURLToPath(new URL('../../../scripts/kafka-broker.sh', import.meta.url))

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port })
    s.setTimeout(1_000)
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
    s.once('timeout', () => {
      s.destroy()
      resolve(false)
    })
  })
}

/** scripts/kafka-broker.sh stop, then start, for the broker on `hostPort`; refuses one the script did not start. */
export function scriptBrokerRestart(hostPort: string): () => Promise<void> {
  const [host, portText] = [hostPort.slice(0, hostPort.lastIndexOf(':')), hostPort.slice(hostPort.lastIndexOf(':') + 1)]
  const env = { ...process.env, KAFKA_PORT: portText }
  const run = (cmd: 'stop' | 'start') => promisify(execFile)('bash', [SCRIPT, cmd], { env, timeout: 180_000 })
  return async () => {
    await run('stop')
    if (await portOpen(host || '127.0.0.1', Number(portText))) {
      throw new Error(`the broker on ${hostPort} is still up after scripts/kafka-broker.sh stop: a broker restart needs the local broker started by that script (unset KAFKA_BROKERS)`)
    }
    await run('start')
  }
}

function row(report: ValidationReport, atMs: number, guarantee: ProcessingGuarantee): CorrectnessRow {
  return {
    atMs: Math.round(atMs),
    guarantee,
    inputRecords: report.inputRecords,
    duplicates: report.duplicates,
    lost: report.lost,
    abortedReads: report.abortedReads,
    stateMismatches: report.stateMismatches,
    openTransactions: report.openTransactions,
  }
}

/** Faults numbered from 0: the broker restarts fall one at a seeded place in each block of 50. */
function brokerRestartPlan(faults: number, pick: (lo: number, hi: number) => number): Set<number> {
  const plan = new Set<number>()
  for (let block = 0; block * 50 < faults; block++) {
    const lo = block * 50
    const hi = Math.min(faults, lo + 50)
    // Not the very first fault of the run: the group forms first.
    plan.add(pick(Math.max(lo, 3 < hi ? Math.min(3, hi - 1) : lo), hi))
  }
  return plan
}

export async function runKafkaSoak(o: KafkaSoakOptions): Promise<KafkaSoakResult> {
  const time = new SystemTime()
  const guarantee: ProcessingGuarantee = o.mode === 'exactly-once' ? 'exactly_once' : 'at_least_once'
  const applicationId = `eoscope-soak-${o.mode === 'exactly-once' ? 'eos' : 'alos'}-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`
  const partitions = o.partitions ?? 6
  let loadProducer: RetryingLoadProducer | null = null
  const lab = new KafkaLabRuntime(time, {
    client: { brokers: o.brokers, clientId: applicationId },
    config: defaultStreamsConfig(guarantee, applicationId),
    workers: o.workers ?? 3,
    partitions,
    ratePerSec: o.ratePerSec,
    maxRecords: Number.POSITIVE_INFINITY,
    keys: 100,
    seed: o.seed,
    restartAfterMs: 300,
    restartFailed: true,
    workerLogs: o.workerLogs,
    wrapLoadProducer: (make) => (loadProducer = new RetryingLoadProducer(make)),
  })
  const restartBroker = o.restartBroker ?? scriptBrokerRestart(o.brokers[0]!)
  const rng = lab.random
  const faults: Record<KafkaFaultKind, number> = { kill: 0, killAtStep: 0, pause: 0, droppedAck: 0, guaranteeChange: 0, commitIntervalChange: 0, brokerRestart: 0 }
  const total = () => Object.values(faults).reduce((a, b) => a + b, 0)
  const visitedI = new Set<number>([lab.config['commit.interval.ms']])
  const restarts: { atMs: number; outageMs: number }[] = []
  const checks: CorrectnessRow[] = []
  const violations: string[] = []
  const plan = brokerRestartPlan(o.faults, (lo, hi) => rng.int(lo, hi))
  const start = time.now()
  const topics = { groupId: lab.groupId, inputTopic: lab.topics.input, outputTopic: lab.topics.output, changelogTopic: lab.topics.changelog, dlqTopic: lab.topics.deadLetter }
  const validate = () => validateRun(lab.connection.inspector(), topics)
  const fault = (kind: KafkaFaultKind, detail: string) => {
    faults[kind]++
    o.onFault?.(kind, detail, time.now() - start)
  }
  // The lab's background sends (a kill command, say) must not end the process during an outage.
  const clientErrors: string[] = []
  const onUnhandled = (e: unknown) => {
    if (clientErrors.length < 20) clientErrors.push(e instanceof Error ? e.message : String(e))
  }
  process.on('unhandledRejection', onUnhandled)

  let generatorError: Error | null = null
  try {
    await lab.start()
    lab.generator.done.catch((e: Error) => {
      generatorError = e
    })
    const inspector = lab.connection.inspector()
    const inputEnds = () => Promise.all(Array.from({ length: partitions }, (_, p) => inspector.offsets({ topic: lab.topics.input, partition: p }).then((x) => x.highWatermark)))
    /** Waits until the group's committed offsets reach the input's end offsets (read once, at the call). */
    const caughtUp = async (ms: number): Promise<boolean> => {
      await sleep(200) // the generator's last batch lands
      // Right after a broker restart the partitions answer "not hosted here" for a while.
      const ends = await retrying(inputEnds, 60_000)
      const deadline = time.now() + ms
      while (!ends.every((e, p) => (lab.committedOffsets()[p] ?? 0) >= e)) {
        if (time.now() > deadline) return false
        await sleep(100)
      }
      return true
    }
    const settled = async (ms: number) => {
      const deadline = time.now() + ms
      while (!lab.groupSettled() && time.now() < deadline) await sleep(100)
    }
    await settled(60_000)
    let lastCheck = time.now()
    const paused = new Set<string>()

    while ((total() < o.faults || time.now() - start < (o.minMs ?? 0)) && generatorError === null) {
      await sleep(rng.int(300, 900))
      const live = lab.liveSlots().filter((s) => s.process.state === 'running' && (s.worker?.tasks.size ?? 0) > 0)
      const roll = rng.next()
      if (plan.has(total()) || (total() >= o.faults && roll < 0.02)) {
        for (const id of paused) lab.resume(id)
        paused.clear()
        const t = time.now()
        await restartBroker()
        restarts.push({ atMs: Math.round(t - start), outageMs: Math.round(time.now() - t) })
        fault('brokerRestart', `outage ${Math.round(time.now() - t)} ms`)
        plan.delete(total() - 1)
        await settled(60_000)
      } else if (roll < 0.45 && live.length > 1) {
        const victim = rng.pick(live).worker!.id
        if (rng.next() < 0.5) {
          if (lab.kill(victim)) fault('kill', victim)
        } else {
          const step = rng.int(1, 6) as Step
          const sent = await lab.sendCommand({ target: victim, command: 'kill-at-step', step, issuedAtMs: time.now() }).then(
            () => true,
            () => false,
          )
          if (sent) fault('killAtStep', `${victim} at step ${step}`)
        }
      } else if (roll < 0.75 && live.length > 1 && paused.size === 0) {
        const victim = rng.pick(live).worker!.id
        if (lab.pause(victim)) {
          paused.add(victim)
          fault('pause', victim)
          // Wake it up past its session timeout, as a zombie.
          const wakeAfter = lab.config['session.timeout.ms'] + rng.int(100, 1_500)
          void sleep(wakeAfter).then(() => {
            lab.resume(victim)
            paused.delete(victim)
          })
        }
      } else if (roll >= 0.75) {
        const interval = rng.pick(COMMIT_INTERVALS.filter((i) => i !== lab.config['commit.interval.ms']))
        paused.clear()
        await lab.restartWorkers({ 'commit.interval.ms': interval })
        visitedI.add(interval)
        fault('commitIntervalChange', String(interval))
      }
      if (time.now() - lastCheck >= (o.validateEveryMs ?? 30_000)) {
        // A live check reads the committed offsets, then the changelog: transactions committed in
        // between would show as state ahead of its offsets. The load pauses until the group has
        // committed every input record, so the check reads one consistent point.
        const rate = lab.generator.rate
        lab.generator.setRate(0)
        const quiet = await caughtUp(60_000)
        const r = row(await retrying(validate, 60_000), time.now() - start, lab.config['processing.guarantee'])
        lab.generator.setRate(rate)
        lastCheck = time.now()
        if (!quiet) violations.push(`at ${r.atMs} ms: the group did not commit its input within 60 s of the load pausing`)
        checks.push(r)
        for (const v of soakViolations(o.mode, r, false)) violations.push(`at ${r.atMs} ms: ${v}`)
        o.onProgress?.({ elapsedMs: time.now() - start, faults: { ...faults }, lastCheck: r })
      }
    }

    // Drain: no more input, every paused worker awake, everything processed and committed.
    lab.generator.stop()
    await lab.generator.done.catch(() => {})
    if (generatorError) violations.push(`the load generator stopped: ${(generatorError as Error).message}`)
    for (const s of lab.slots) if (s.process.state === 'paused' && s.worker) lab.resume(s.worker.id)
    if (!(await caughtUp(180_000))) violations.push(`the workers did not commit all input within 180 s after the faults stopped (committed ${JSON.stringify(lab.committedOffsets())})`)
    await lab.stop()
    const report = await retrying(validate, 60_000)
    const final = { ...row(report, time.now() - start, lab.config['processing.guarantee']), outputRecords: report.outputRecords, abortedReadsUncommitted: report.abortedReadsUncommitted, poison: report.poison }
    for (const v of soakViolations(o.mode, final, true)) violations.push(`final: ${v}`)
    const lp = loadProducer as RetryingLoadProducer | null
    if (lp && lp.failedSends > 0) violations.push(`${lp.failedSends} input sends (${lp.failedRecords} records) failed for good`)
    const passed = violations.length === 0
    if (passed && o.deleteTopics !== false) await lab.deleteTopics().catch(() => {})
    return {
      backend: 'kafka',
      mode: o.mode,
      seed: o.seed,
      ratePerSec: o.ratePerSec,
      durationMs: Math.round(time.now() - start),
      applicationId,
      faults: { ...faults, total: total() },
      guaranteesVisited: [guarantee],
      commitIntervalsVisited: [...visitedI].sort((a, b) => a - b),
      brokerRestarts: restarts,
      workerFailures: lab.failedExits,
      input: { sentRecords: lp?.sentRecords ?? 0, retriedSends: lp?.retriedSends ?? 0, replacedProducers: lp?.replacedProducers ?? 0, failedSends: lp?.failedSends ?? 0, failedRecords: lp?.failedRecords ?? 0 },
      periodicChecks: checks,
      final,
      passed,
      violations,
      notes: [...KAFKA_SOAK_NOTES, ...(clientErrors.length ? [`background client errors during the run (retried): ${clientErrors.join(' | ')}`] : [])],
    }
  } finally {
    await lab.close().catch(() => {})
    process.off('unhandledRejection', onUnhandled)
  }
}
