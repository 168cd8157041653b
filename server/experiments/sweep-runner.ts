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
// Both backends run the same procedure (sweep-repetition.ts) on the runtime their backend makes
// (sweep-lab.ts): the embedded log's LabRuntime, or KafkaLabRuntime's worker processes on a real
// cluster (system clock only; a fresh application.id, group and topics for every lab; the
// guarantees Kafka refuses are refused with its capabilities' reason). On Kafka the recovery phases
// are the ones KafkaLabRuntime observes (see its header and KAFKA_SWEEP_NOTES).

import { cpus, loadavg } from 'node:os'
import pino from 'pino'
import {
  PRECISION_TOLERANCE,
  type CellResult,
  type ExperimentProgress,
  type ExperimentRecord,
  type RepetitionResult,
  type RunLoad,
  type SweepRequest,
  type SweepSettings,
} from '../../lib/experiment-protocol.ts'
import { createLogger, logLevelFrom, type Logger } from '../logging.ts'
import { MockTime, SystemTime, type Time } from '../log/time.ts'
import {
  EMBEDDED_SWEEP_BACKEND,
  kafkaSweepBackend,
  modelSweepBackend,
  type ModelLab,
  type SweepBackend,
} from './sweep-lab.ts'
import { runRepetition, SweepCancelledError } from './sweep-repetition.ts'
import { repeatPlan, repeatUntilPrecise } from './repeat-until-precise.ts'
import { defaultSweepSettings, sweepUnavailableReason, type SweepKafkaTarget } from './sweep-settings.ts'

export { KAFKA_SWEEP_NOTES } from './sweep-lab.ts'
export { runRepetition, SweepCancelledError } from './sweep-repetition.ts'
export {
  AVAILABLE_SWEEP_BACKENDS,
  DEFAULT_KAFKA_SWEEP_SETTINGS,
  DEFAULT_SWEEP_SETTINGS,
  defaultSweepSettings,
  sweepConfig,
  sweepUnavailableReason,
  windowMs,
  type SweepKafkaTarget,
} from './sweep-settings.ts'

export class BackendUnavailableError extends Error {
  readonly name = 'BackendUnavailableError'
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
  /** The model sweep's changes to each embedded lab (its costs and heartbeats; in virtual time). */
  model?: ModelLab
  /** Where the sweep logs (default: pino on stderr at LOG_LEVEL; stdout may carry the sweep's JSON or CSV). */
  logger?: Logger
}

function defaultLogger(): Logger {
  const level = logLevelFrom(process.env)
  return createLogger(level.ok ? level.level : 'info', pino.destination({ fd: 2, sync: true }))
}

export function newExperimentId(nowMs: number, seed: number): string {
  return `${new Date(nowMs).toISOString().replace(/[:.]/g, '-')}-s${seed}`
}

/** The backend a request runs on; throws BackendUnavailableError when it cannot. */
function backendFor(o: SweepRunOptions, time: Time): SweepBackend {
  const unavailable = sweepUnavailableReason(o.request, o.kafka)
  if (unavailable !== null) throw new BackendUnavailableError(unavailable)
  if (o.request.backend !== 'kafka') return o.model ? modelSweepBackend(o.model) : EMBEDDED_SWEEP_BACKEND
  if (!(time instanceof SystemTime))
    throw new BackendUnavailableError('the kafka backend runs on the system clock only')
  const target = {
    ...o.kafka!,
    applicationIdPrefix: o.kafka!.applicationIdPrefix ?? `eoscope-sweep-${Date.now().toString(36)}`,
  }
  return kafkaSweepBackend(target, (o.logger ?? defaultLogger()).child({ component: 'sweep-lab' }))
}

function newRecord(o: SweepRunOptions, time: Time, settings: SweepSettings, seed: number): ExperimentRecord {
  const req = o.request
  return {
    id: o.id ?? newExperimentId(time.now(), seed),
    label: req.label ?? null,
    status: 'running',
    error: null,
    startedAt: new Date(time.now()).toISOString(),
    finishedAt: null,
    request: req,
    settings,
    machine: { cpus: cpus().length, node: process.version, clock: time instanceof MockTime ? 'virtual' : 'system' },
    progress: {
      done: 0,
      total:
        req.intervals.length * req.guarantees.length * repeatPlan(req.repeat, req.maxRuns, PRECISION_TOLERANCE).maxRuns,
      current: null,
    },
    cells: [],
  }
}

/**
 * A run with the machine's load around it (1-minute load average); none in virtual time, where the load does not enter.
 */
async function withLoad(time: Time, run: () => Promise<RepetitionResult>): Promise<RepetitionResult> {
  if (time instanceof MockTime) return { ...(await run()), load: null }
  const before = loadavg()[0]!
  const result = await run()
  const load: RunLoad = { before: round2(before), after: round2(loadavg()[0]!), cpus: cpus().length }
  return { ...result, load }
}

const round2 = (v: number) => Math.round(v * 100) / 100

/** Runs the whole sweep; resolves with the final record (status done, or cancelled with the partial results). */
export async function runSweep(o: SweepRunOptions): Promise<ExperimentRecord> {
  const req = o.request
  const time = o.time ?? new SystemTime()
  const backend = backendFor(o, time)
  const settings: SweepSettings = { ...defaultSweepSettings(req.backend), ...o.settings }
  const seed = req.seed ?? 1
  const record = newRecord(o, time, settings, seed)
  const report = () => o.onProgress?.(structuredClone(record))
  const finish = (status: ExperimentRecord['status']) => {
    record.status = status
    record.finishedAt = new Date(time.now()).toISOString()
    record.progress.current = null
    report()
  }
  report()
  try {
    await repeatUntilPrecise({
      ...repeatPlan(req.repeat, req.maxRuns, PRECISION_TOLERANCE),
      cells: req.intervals.flatMap((commitIntervalMs) =>
        req.guarantees.map((guarantee) => ({ guarantee, commitIntervalMs })),
      ),
      run: ({ guarantee, commitIntervalMs, run }) => {
        const onStage = (stage: NonNullable<ExperimentProgress['current']>['stage']) => {
          record.progress.current = { guarantee, commitIntervalMs, repetition: run, stage }
          report()
        }
        // Run i of a cell has seed + i − 1 (the same draws at every interval: common random numbers).
        return withLoad(time, () =>
          runRepetition({
            guarantee,
            commitIntervalMs,
            repetition: run,
            seed: seed + run - 1,
            settings,
            time,
            signal: o.signal,
            onStage,
            backend,
          }),
        )
      },
      onResult: (cells, planned) => {
        record.progress.done++
        record.progress.total = planned
        record.cells = cells
        report()
      },
    })
  } catch (e) {
    if (!(e instanceof SweepCancelledError)) {
      record.error = e instanceof Error ? e.message : String(e)
      finish('failed')
      throw e
    }
    finish('cancelled')
    return structuredClone(record)
  }
  finish('done')
  return structuredClone(record)
}

export type { CellResult }
