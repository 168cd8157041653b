// The commit-interval sweep: for each commit.interval.ms and guarantee, R repetitions of
//
//   1. throughput (a fresh lab, saturated load): every worker is kept its share of `backlogRecords`
//      ahead of what it has consumed, so it never waits for input; after a warm-up, processed
//      throughput over a window of max(minWindowMs, windowCommits × commit.interval.ms);
//   2. latency (a second fresh lab, steady load at `steadyRatePerSec`, well below capacity): after a
//      warm-up, end-to-end latency p50/p99 over a window of the same length, read_committed;
//   3. recovery (the same lab, same load): one worker killed at a seeded random moment within one
//      commit interval after the latency window (so it lands anywhere in the commit cycle); t1 − t0
//      and its five phases from the RecoveryTracker; then a clean stop and the validator counts
//      the duplicates (the kill is the lab's only fault, so every duplicate is the kill's).
//
// Throughput needs saturated load (at a fixed rate below capacity every guarantee processes just
// the offered rate); latency and recovery need steady load below capacity (a backlog would add
// queueing time to latency and make catch-up a measure of the backlog). Hence the two labs.
// The clock is injected: on MockTime with the latency model on, the shapes are deterministic.
//
// Both backends run the same procedure through a SweepLab (sweep-lab.ts): the embedded log's
// LabRuntime, or KafkaLabRuntime's worker processes on a real cluster (system clock only; a fresh
// application.id, group and topics for every lab; exactly_once_v2 refused, KIP-447). On Kafka the
// recovery phases are the ones KafkaLabRuntime observes (see its header and KAFKA_SWEEP_NOTES).

import { cpus } from 'node:os'
import {
  cellOf,
  type CellResult,
  type ExperimentProgress,
  type ExperimentRecord,
  type PhaseDurations,
  type RepetitionResult,
  type SweepRequest,
  type SweepSettings,
} from '../../lib/experiment-protocol.ts'
import { defaultStreamsConfig, type ProcessingGuarantee, type StreamsConfig } from '../../lib/streams-config.ts'
import { MockTime, SeededRandom, SystemTime, type Time } from '../log/time.ts'
import { guaranteeRefusal } from '../log/capabilities.ts'
import { KAFKA_CAPABILITIES } from '../log/kafka/capabilities.ts'
import { phaseDurations, redone } from '../lab/recovery-tracker.ts'
import { validateRun } from '../validator/validator.ts'
import { commitRate, type CommitSample } from './commit-rate.ts'
import { LatencyWindow } from './latency-window.ts'
import { newEmbeddedSweepLab, newKafkaSweepLab, sweepApplicationId, type SweepKafkaTarget, type SweepLab } from './sweep-lab.ts'

export { KAFKA_SWEEP_NOTES, type SweepKafkaTarget } from './sweep-lab.ts'

export const DEFAULT_SWEEP_SETTINGS: SweepSettings = Object.freeze({
  workers: 3,
  partitions: 6,
  keys: 10_000,
  latencyModel: 'default',
  steadyRatePerSec: 5_000,
  warmupMs: 1_000,
  minWindowMs: 2_000,
  windowCommits: 4,
  backlogRecords: 20_000,
  sessionTimeoutMs: 1_000,
  maxPollRecords: 1_000,
  recoveryTimeoutMs: 30_000,
  visibilityPollMs: 5,
})

export class SweepCancelledError extends Error {
  readonly name = 'SweepCancelledError'
  constructor() {
    super('experiment cancelled')
  }
}

export class BackendUnavailableError extends Error {
  readonly name = 'BackendUnavailableError'
}

/**
 * On Kafka, worker processes and the broker share the machine, so: the steady load is lower (well
 * below what exactly_once at the shortest interval processes there); the saturated backlog is larger
 * (worker positions are known only every ~100 ms); max.poll.records is smaller (with 1,000 a task
 * committed only every few seconds, whatever commit.interval.ms said, because one batch took that
 * long to process); the windows are longer (each partition must commit at least twice inside one).
 */
export const DEFAULT_KAFKA_SWEEP_SETTINGS: SweepSettings = Object.freeze({
  ...DEFAULT_SWEEP_SETTINGS,
  latencyModel: 'off',
  steadyRatePerSec: 300,
  maxPollRecords: 100,
  minWindowMs: 3_000,
  backlogRecords: 30_000,
  recoveryTimeoutMs: 60_000,
})

export function defaultSweepSettings(backend: 'embedded' | 'kafka'): SweepSettings {
  return backend === 'kafka' ? DEFAULT_KAFKA_SWEEP_SETTINGS : DEFAULT_SWEEP_SETTINGS
}

/** Both backends; kafka needs brokers (SweepRunOptions.kafka). */
export const AVAILABLE_SWEEP_BACKENDS = ['embedded', 'kafka'] as const

/** Why a sweep request cannot run on its backend, or null when it can. */
export function sweepUnavailableReason(request: Pick<SweepRequest, 'backend' | 'guarantees'>, kafka: SweepKafkaTarget | null | undefined): string | null {
  if (request.backend !== 'kafka') return null
  if (!kafka || kafka.brokers.length === 0) return 'backend kafka needs brokers: start the server with KAFKA_BROKERS=host:port (or pass --brokers to eoscope sweep); use embedded otherwise'
  return request.guarantees.map((g) => guaranteeRefusal(KAFKA_CAPABILITIES, g)).find((r) => r !== null) ?? null
}

export interface SweepRunOptions {
  request: SweepRequest
  settings?: Partial<SweepSettings>
  time?: Time
  signal?: AbortSignal
  id?: string
  /** Called whenever progress or a result changes; the record is a fresh copy each time. */
  onProgress?: (record: ExperimentRecord) => void
  /** The cluster a kafka sweep runs on. */
  kafka?: SweepKafkaTarget | null
}

export function windowMs(s: SweepSettings, commitIntervalMs: number): number {
  return Math.max(s.minWindowMs, s.windowCommits * commitIntervalMs)
}

export function sweepConfig(guarantee: ProcessingGuarantee, commitIntervalMs: number, s: SweepSettings): StreamsConfig {
  const c = defaultStreamsConfig(guarantee)
  c['commit.interval.ms'] = commitIntervalMs
  c['transaction.timeout.ms'] = Math.max(c['transaction.timeout.ms'], 2 * commitIntervalMs)
  c['session.timeout.ms'] = s.sessionTimeoutMs
  c['heartbeat.interval.ms'] = Math.max(1, Math.min(c['heartbeat.interval.ms'], Math.floor(s.sessionTimeoutMs / 3)))
  c['max.poll.records'] = s.maxPollRecords
  return c
}

export function newExperimentId(nowMs: number, seed: number): string {
  return `${new Date(nowMs).toISOString().replace(/[:.]/g, '-')}-s${seed}`
}

/** Runs the whole sweep; resolves with the final record (status done, or cancelled with the partial results). */
export async function runSweep(o: SweepRunOptions): Promise<ExperimentRecord> {
  const req = o.request
  const unavailable = sweepUnavailableReason(req, o.kafka)
  if (unavailable !== null) throw new BackendUnavailableError(unavailable)
  const time = o.time ?? new SystemTime()
  if (req.backend === 'kafka' && !(time instanceof SystemTime)) throw new BackendUnavailableError('the kafka backend runs on the system clock only')
  const settings: SweepSettings = { ...defaultSweepSettings(req.backend), ...o.settings }
  const seed = req.seed ?? 1
  const kafka = req.backend === 'kafka' ? { ...o.kafka!, applicationIdPrefix: o.kafka!.applicationIdPrefix ?? `eoscope-sweep-${Date.now().toString(36)}` } : null
  const total = req.intervals.length * req.guarantees.length * req.repeat
  const record: ExperimentRecord = {
    id: o.id ?? newExperimentId(time.now(), seed),
    label: req.label ?? null,
    status: 'running',
    error: null,
    startedAt: new Date(time.now()).toISOString(),
    finishedAt: null,
    request: req,
    settings,
    machine: { cpus: cpus().length, node: process.version, clock: time instanceof MockTime ? 'virtual' : 'system' },
    progress: { done: 0, total, current: null },
    cells: [],
  }
  const report = () => o.onProgress?.(structuredClone(record))
  report()
  try {
    for (const commitIntervalMs of req.intervals) {
      for (const guarantee of req.guarantees) {
        const reps: RepetitionResult[] = []
        for (let i = 0; i < req.repeat; i++) {
          const setStage = (stage: NonNullable<ExperimentProgress['current']>['stage']) => {
            record.progress.current = { guarantee, commitIntervalMs, repetition: i + 1, stage }
            report()
          }
          reps.push(await runRepetition({ guarantee, commitIntervalMs, repetition: i + 1, seed: seed + i, settings, time, signal: o.signal, onStage: setStage, kafka }))
          record.progress.done++
          const cell = cellOf(guarantee, commitIntervalMs, reps)
          const at = record.cells.findIndex((c) => c.guarantee === guarantee && c.commitIntervalMs === commitIntervalMs)
          if (at >= 0) record.cells[at] = cell
          else record.cells.push(cell)
          report()
        }
      }
    }
    record.status = 'done'
  } catch (e) {
    if (!(e instanceof SweepCancelledError)) {
      record.status = 'failed'
      record.error = e instanceof Error ? e.message : String(e)
      record.finishedAt = new Date(time.now()).toISOString()
      record.progress.current = null
      report()
      throw e
    }
    record.status = 'cancelled'
  }
  record.finishedAt = new Date(time.now()).toISOString()
  record.progress.current = null
  report()
  return structuredClone(record)
}

// ---- one repetition ----------------------------------------------------------------------------

interface RepetitionContext {
  guarantee: ProcessingGuarantee
  commitIntervalMs: number
  repetition: number
  seed: number
  settings: SweepSettings
  time: Time
  signal?: AbortSignal
  onStage?: (stage: 'throughput' | 'latency' | 'recovery' | 'validation') => void
  /** Set: the labs run on this Kafka cluster; null or absent: on the embedded log. */
  kafka?: SweepKafkaTarget | null
}

function checkAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new SweepCancelledError()
}

/** Sleeps in small steps so a cancellation is noticed promptly. */
async function sleepFor(ctx: RepetitionContext, ms: number): Promise<void> {
  const end = ctx.time.now() + ms
  while (ctx.time.now() < end) {
    checkAborted(ctx.signal)
    await ctx.time.sleep(Math.min(50, end - ctx.time.now()))
  }
  checkAborted(ctx.signal)
}

/** Waits until predicate holds; false after maxMs. */
async function waitFor(ctx: RepetitionContext, predicate: () => boolean, maxMs: number, stepMs = 10): Promise<boolean> {
  const deadline = ctx.time.now() + maxMs
  while (!predicate()) {
    checkAborted(ctx.signal)
    if (ctx.time.now() >= deadline) return false
    await ctx.time.sleep(stepMs)
  }
  return true
}

async function newLab(ctx: RepetitionContext, ratePerSec: number, purpose: 'thr' | 'rec'): Promise<SweepLab> {
  const s = ctx.settings
  const config = sweepConfig(ctx.guarantee, ctx.commitIntervalMs, s)
  const spec = { time: ctx.time, config, workers: s.workers, partitions: s.partitions, ratePerSec, keys: s.keys, seed: ctx.seed, latencyModel: s.latencyModel }
  if (!ctx.kafka) return newEmbeddedSweepLab(spec)
  config['application.id'] = sweepApplicationId(ctx.kafka.applicationIdPrefix ?? 'eoscope-sweep', ctx.guarantee, ctx.commitIntervalMs, ctx.repetition, purpose)
  return newKafkaSweepLab(spec, ctx.kafka)
}

async function awaitSettled(ctx: RepetitionContext, lab: SweepLab): Promise<void> {
  const s = Math.round(lab.settleTimeoutMs / 1000)
  if (!(await waitFor(ctx, () => lab.settled(), lab.settleTimeoutMs))) throw new Error(`the lab did not settle: not every partition got a running task within ${s} s`)
}

export async function runRepetition(ctx: RepetitionContext): Promise<RepetitionResult> {
  const thr = await measureThroughput(ctx)
  const rest = await measureLatencyAndRecovery(ctx)
  return { repetition: ctx.repetition, seed: ctx.seed, ...thr, ...rest }
}

async function measureThroughput(ctx: RepetitionContext): Promise<Pick<RepetitionResult, 'throughputPerSec' | 'throughputWindowMs' | 'saturated'>> {
  ctx.onStage?.('throughput')
  const s = ctx.settings
  const lab = await newLab(ctx, 0, 'thr')
  const commits: CommitSample[] = []
  lab.runtime.onEvent((e) => {
    if (!('source' in e) && e.type === 'offsets-committed') for (const o of e.offsets) commits.push({ partition: o.partition, offset: o.offset, atMs: e.atMs })
  })
  let stop = false
  let sampling = false
  let samples = 0
  let drySamples = 0
  // Keeps every worker busy: full speed while some worker has fewer than its share of backlogRecords
  // waiting (keys do not spread evenly over partitions), never more than 4 × backlogRecords in all.
  const share = s.backlogRecords / s.workers
  const keeper = async () => {
    while (!stop) {
      const waiting = lab.unconsumedByWorker()
      if (sampling) {
        samples++
        if (waiting.some((n) => n === 0)) drySamples++
      }
      const total = waiting.reduce((a, b) => a + b, 0)
      lab.setRate(waiting.some((n) => n < share) && total < 4 * s.backlogRecords ? Number.POSITIVE_INFINITY : 0)
      await ctx.time.sleep(5)
    }
  }
  let keeperDone: Promise<void> = Promise.resolve()
  try {
    await lab.start()
    keeperDone = keeper()
    await awaitSettled(ctx, lab)
    await sleepFor(ctx, s.warmupMs + ctx.commitIntervalMs)
    const window = windowMs(s, ctx.commitIntervalMs)
    const from = ctx.time.now()
    sampling = true
    await sleepFor(ctx, window)
    sampling = false
    const to = ctx.time.now()
    // On Kafka the window's last commits are still on their way on the telemetry topic.
    if (lab.eventLagMs > 0) await sleepFor(ctx, lab.eventLagMs)
    const rate = commitRate(commits, s.partitions, from, to)
    return { throughputPerSec: rate === null ? null : Math.round(rate), throughputWindowMs: window, saturated: samples > 0 && drySamples / samples < 0.05 }
  } finally {
    stop = true
    lab.setRate(0)
    await keeperDone
    await lab.destroy()
  }
}

const NO_PHASES: PhaseDurations = { detection: null, rebalance: null, fence: null, restore: null, catchUp: null }

async function measureLatencyAndRecovery(
  ctx: RepetitionContext,
): Promise<Omit<RepetitionResult, 'repetition' | 'seed' | 'throughputPerSec' | 'throughputWindowMs' | 'saturated'>> {
  ctx.onStage?.('latency')
  const s = ctx.settings
  const sweepLab = await newLab(ctx, s.steadyRatePerSec, 'rec')
  const lab = sweepLab.runtime
  const rng = new SeededRandom((ctx.seed * 0x9e37 + ctx.commitIntervalMs) >>> 0)
  const latency = new LatencyWindow(sweepLab.reader(), lab.topics.output, s.partitions)
  // On the embedded log a poll takes no time; on Kafka each partition is timed when its read returns.
  const pollNow = sweepLab.backend === 'kafka' ? () => ctx.time.now() : null
  let polling = true
  let pollDone: Promise<void> = Promise.resolve()
  let cleanlyStopped = false
  try {
    await sweepLab.start()
    await awaitSettled(ctx, sweepLab)
    pollDone = (async () => {
      while (polling) {
        if (pollNow) await latency.pollRemote(pollNow)
        else await latency.poll(ctx.time.now())
        await ctx.time.sleep(s.visibilityPollMs)
      }
    })()
    await sleepFor(ctx, s.warmupMs + ctx.commitIntervalMs)
    latency.drain()
    const window = windowMs(s, ctx.commitIntervalMs)
    await sleepFor(ctx, window)
    const lat = latency.drain()
    polling = false
    await pollDone

    // The kill: a seeded moment within one commit interval, a seeded worker among those with tasks.
    ctx.onStage?.('recovery')
    const killWindowStart = ctx.time.now()
    await sleepFor(ctx, rng.int(0, Math.max(1, ctx.commitIntervalMs)))
    const candidates = lab.liveSlots().filter((x) => x.process.state === 'running' && (x.worker?.tasks.size ?? 0) > 0)
    let killedWorker: string | null = null
    let killDelayMs: number | null = null
    let recoveryMs: number | null = null
    let phases: PhaseDurations = NO_PHASES
    let redoneRecords: number | null = null
    if (candidates.length > 0) {
      const slot = rng.pick(candidates)
      killedWorker = slot.worker!.id
      killDelayMs = ctx.time.now() - killWindowStart
      lab.kill(killedWorker, null)
      const r = lab.tracker.recoveries[lab.tracker.recoveries.length - 1]
      if (r) {
        await waitFor(ctx, () => r.t1 !== null, s.recoveryTimeoutMs)
        if (r.t1 !== null) {
          recoveryMs = r.t1 - r.t0
          phases = phaseDurations(r)
        }
        redoneRecords = redone(r)
      }
    }

    ctx.onStage?.('validation')
    await lab.stop()
    cleanlyStopped = true
    const report = await validateRun(lab.connection.inspector(), {
      groupId: lab.groupId,
      inputTopic: lab.topics.input,
      outputTopic: lab.topics.output,
      changelogTopic: lab.topics.changelog,
      dlqTopic: lab.topics.deadLetter,
    })
    const wrong = [report.lost ? `${report.lost} lost` : '', ctx.guarantee !== 'at_least_once' && report.duplicates ? `${report.duplicates} duplicates under ${ctx.guarantee}` : '', report.abortedReads ? `${report.abortedReads} aborted reads` : ''].filter((x) => x !== '')
    await sweepLab.close(wrong.length > 0 ? wrong.join(', ') : undefined)
    return {
      latencyP50Ms: lat.p50,
      latencyP99Ms: lat.p99,
      latencyMaxMs: lat.max,
      latencyRecords: lat.records,
      latencyWindowMs: window,
      killedWorker,
      killDelayMs,
      recoveryMs,
      phases,
      redone: redoneRecords,
      duplicates: killedWorker === null ? null : report.duplicates,
      lost: report.lost,
    }
  } finally {
    polling = false
    await pollDone
    if (!cleanlyStopped) await sweepLab.destroy()
    else await sweepLab.close()
  }
}

export type { CellResult }
