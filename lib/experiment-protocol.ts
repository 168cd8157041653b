// Commit-interval experiments: what a sweep asks for, what it measures and how it is reported.
// Shared by the runner, the CLI, the REST API and the /experiments page. Isomorphic.
//
// Every figure is docs/measures.md's: processed throughput (committed input offsets advancing, records/s),
// end-to-end latency (input append → visible to read_committed), recovery time t1 − t0 and its five
// phases, and the duplicates a kill caused (validator).

import { z } from 'zod'
import { PROCESSING_GUARANTEES, type ProcessingGuarantee, rangeOf, SETTINGS } from './streams-config.ts'
import { choiceSchema, issueText, settingSchema } from './setting-schema.ts'
import { medianInterval } from './statistics.ts'

// No eval: the pages' CSP forbids it (zod would probe with Function('') and log a violation).
z.config({ jitless: true })

export const DEFAULT_SWEEP_INTERVALS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000] as const
export const DEFAULT_SWEEP_GUARANTEES: readonly ProcessingGuarantee[] = ['at_least_once', 'exactly_once']
export const DEFAULT_SWEEP_REPEAT = SETTINGS.sweepRepeat.default
export const SWEEP_BACKENDS = ['embedded', 'kafka'] as const
export type SweepBackend = (typeof SWEEP_BACKENDS)[number]

/** The sweep's ranges (the /experiments form), from the settings table. */
export const SWEEP_LIMITS = {
  commitIntervalMs: rangeOf('commit.interval.ms', 'sweep'),
  intervals: rangeOf('sweepIntervals').max,
  repeat: rangeOf('sweepRepeat'),
  maxRuns: rangeOf('sweepMaxRuns'),
} as const

/**
 * A measured cell is precise when the 95% interval of each of these figures' medians lies within
 * ±PRECISION_TOLERANCE of the median: the trade-off's two axes.
 */
export const PRECISION_FIGURES = ['throughputPerSec', 'recoveryMs'] as const
export const PRECISION_TOLERANCE = 0.1
export const DEFAULT_SWEEP_MAX_RUNS = SETTINGS.sweepMaxRuns.default

export const PHASES = ['detection', 'rebalance', 'fence', 'restore', 'catchUp'] as const
export type Phase = (typeof PHASES)[number]

/** The body of POST /api/experiments (and what `eoscope sweep` builds from its flags). */
export const SweepRequestSchema = z
  .object({
    intervals: z
      .array(settingSchema('commit.interval.ms', 'sweep'))
      .min(rangeOf('sweepIntervals').min)
      .max(SWEEP_LIMITS.intervals)
      .refine((xs) => new Set(xs).size === xs.length, 'intervals must not repeat'),
    guarantees: z
      .array(choiceSchema(PROCESSING_GUARANTEES))
      .min(1)
      .max(PROCESSING_GUARANTEES.length)
      .refine((xs) => new Set(xs).size === xs.length, 'guarantees must not repeat'),
    /** Runs of each cell at least; without maxRuns, exactly. */
    repeat: settingSchema('sweepRepeat'),
    /** When given: cells are run in turn, more than `repeat` times, until each is precise or has run this often. */
    maxRuns: settingSchema('sweepMaxRuns').optional(),
    backend: choiceSchema(SWEEP_BACKENDS),
    seed: settingSchema('seed').optional(),
    label: z.string().max(80).optional(),
  })
  .strict()
  .refine((r) => r.maxRuns === undefined || r.maxRuns >= r.repeat, {
    message: 'maxRuns must be at least repeat',
    path: ['maxRuns'],
  })
export type SweepRequest = z.infer<typeof SweepRequestSchema>

/** Validates a sweep request; never throws. Intervals come back sorted. */
export function parseSweepRequest(body: unknown): { ok: true; request: SweepRequest } | { ok: false; error: string } {
  const r = SweepRequestSchema.safeParse(body)
  if (!r.success) return { ok: false, error: `invalid experiment: ${issueText(r.error, 'invalid body')}` }
  return { ok: true, request: { ...r.data, intervals: [...r.data.intervals].sort((a, b) => a - b) } }
}

/** How one repetition is measured. Recorded with every result, so a table says what it is. */
export interface SweepSettings {
  workers: number
  partitions: number
  keys: number
  latencyModel: 'default' | 'off'
  /** Steady input rate for the latency window and the kill, well below capacity. */
  steadyRatePerSec: number
  /** Warm-up before each window, plus one commit interval. */
  warmupMs: number
  /** Each window lasts max(minWindowMs, windowCommits × commit.interval.ms). */
  minWindowMs: number
  windowCommits: number
  /** Saturated load: each worker is kept at least its share of this many records ahead of what it consumed. */
  backlogRecords: number
  sessionTimeoutMs: number
  maxPollRecords: number
  /** A kill whose recovery has not ended after this long is reported unrecovered. */
  recoveryTimeoutMs: number
  /** How often the read_committed consumer polls the output topic: latencies are known to within it. */
  visibilityPollMs: number
  /** How often the saturated load looks at the workers' backlogs (default 5 ms). */
  loadLookMs?: number
}

export interface Stat {
  median: number | null
  min: number | null
  max: number | null
  /**
   * The 95% confidence interval of the median (order statistics, lib/statistics.ts); null below 6
   * samples. Absent from records stored before intervals were computed.
   */
  low?: number | null
  high?: number | null
  /** Samples the figure was computed from (unavailable ones left out). */
  n: number
}

/** The machine's load around one run: the 1-minute load average before and after it, and its cores. */
export interface RunLoad {
  before: number
  after: number
  cpus: number
}

export type PhaseDurations = Record<Phase, number | null>

/** One repetition of one (guarantee, commit.interval.ms) cell. */
export interface RepetitionResult {
  repetition: number
  seed: number
  /** Processed throughput under saturated load, records/s; null if it could not be measured. */
  throughputPerSec: number | null
  throughputWindowMs: number
  /** False when the input backlog ran dry during the window (then it measured the offered load). */
  saturated: boolean
  latencyP50Ms: number | null
  latencyP99Ms: number | null
  latencyMaxMs: number | null
  latencyRecords: number
  latencyWindowMs: number
  killedWorker: string | null
  /**
   * From the killed worker's commit that opens the kill window to the kill: a seeded fraction of commit.interval.ms.
   */
  killDelayMs: number | null
  recoveryMs: number | null
  phases: PhaseDurations
  /** Input records redone: position at kill minus the committed offset at t0, summed. */
  redone: number | null
  /** Duplicates the validator found after the kill (the run had no other fault). */
  duplicates: number | null
  lost: number | null
  /**
   * The machine's load during the run; null in virtual time (a model run does not
   * depend on it). Absent from older records.
   */
  load?: RunLoad | null
}

/** A cell: median, min and max over the repetitions. */
export interface CellResult {
  guarantee: ProcessingGuarantee
  commitIntervalMs: number
  throughputPerSec: Stat
  latencyP50Ms: Stat
  latencyP99Ms: Stat
  recoveryMs: Stat
  phases: Record<Phase, Stat>
  duplicatesPerKill: Stat
  redonePerKill: Stat
  repetitions: RepetitionResult[]
}

export type ExperimentStatus = 'running' | 'done' | 'cancelled' | 'failed'

export interface ExperimentProgress {
  /** Repetitions finished, out of total. */
  done: number
  total: number
  /** What is being measured now. */
  current: {
    guarantee: ProcessingGuarantee
    commitIntervalMs: number
    repetition: number
    stage: 'throughput' | 'latency' | 'recovery' | 'validation'
  } | null
}

export interface ExperimentRecord {
  id: string
  label: string | null
  status: ExperimentStatus
  error: string | null
  startedAt: string
  finishedAt: string | null
  request: SweepRequest
  settings: SweepSettings
  machine: { cpus: number; node: string; clock: 'system' | 'virtual' }
  progress: ExperimentProgress
  cells: CellResult[]
}

/** What GET /api/experiments lists. */
export interface ExperimentSummary {
  id: string
  label: string | null
  status: ExperimentStatus
  startedAt: string
  finishedAt: string | null
  backend: SweepBackend
  guarantees: ProcessingGuarantee[]
  intervals: number[]
  repeat: number
  /** The cap of a sweep run until precise (absent: `repeat` runs per cell). */
  maxRuns?: number
}

export function summarize(r: ExperimentRecord): ExperimentSummary {
  return {
    id: r.id,
    label: r.label,
    status: r.status,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    backend: r.request.backend,
    guarantees: [...r.request.guarantees],
    intervals: [...r.request.intervals],
    repeat: r.request.repeat,
    ...(r.request.maxRuns !== undefined ? { maxRuns: r.request.maxRuns } : {}),
  }
}

export const EXPERIMENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,80}$/

// ---- statistics --------------------------------------------------------------------------------

export function stat(values: readonly (number | null)[]): Stat {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v)).sort((a, b) => a - b)
  if (xs.length === 0) return { median: null, min: null, max: null, low: null, high: null, n: 0 }
  const i = medianInterval(xs)
  return { median: i.median, min: xs[0]!, max: xs[xs.length - 1]!, low: i.low, high: i.high, n: xs.length }
}

export function cellOf(guarantee: ProcessingGuarantee, commitIntervalMs: number, reps: RepetitionResult[]): CellResult {
  const phases = Object.fromEntries(PHASES.map((p) => [p, stat(reps.map((r) => r.phases[p]))])) as Record<Phase, Stat>
  return {
    guarantee,
    commitIntervalMs,
    throughputPerSec: stat(reps.map((r) => r.throughputPerSec)),
    latencyP50Ms: stat(reps.map((r) => r.latencyP50Ms)),
    latencyP99Ms: stat(reps.map((r) => r.latencyP99Ms)),
    recoveryMs: stat(reps.map((r) => r.recoveryMs)),
    phases,
    duplicatesPerKill: stat(reps.map((r) => r.duplicates)),
    redonePerKill: stat(reps.map((r) => r.redone)),
    repetitions: reps,
  }
}

// ---- export ------------------------------------------------------------------------------------

export const CSV_COLUMNS = [
  'guarantee',
  'commitIntervalMs',
  'repetitions',
  'throughputPerSecMedian',
  'throughputPerSecMin',
  'throughputPerSecMax',
  'throughputPerSecLow95',
  'throughputPerSecHigh95',
  'latencyP50Ms',
  'latencyP99Ms',
  'recoveryMsMedian',
  'recoveryMsMin',
  'recoveryMsMax',
  'recoveryMsLow95',
  'recoveryMsHigh95',
  'detectionMs',
  'rebalanceMs',
  'fenceMs',
  'restoreMs',
  'catchUpMs',
  'duplicatesPerKill',
  'redonePerKill',
] as const

const round = (v: number | null, digits = 1): number | null =>
  v === null ? null : Math.round(v * 10 ** digits) / 10 ** digits

/**
 * One row per cell, medians unless a column says min, max or the 95% interval's ends
 * (Low95, High95); unavailable figures are empty.
 */
export function cellRow(c: CellResult): Record<(typeof CSV_COLUMNS)[number], string | number | null> {
  return {
    guarantee: c.guarantee,
    commitIntervalMs: c.commitIntervalMs,
    repetitions: c.repetitions.length,
    throughputPerSecMedian: round(c.throughputPerSec.median, 0),
    throughputPerSecMin: round(c.throughputPerSec.min, 0),
    throughputPerSecMax: round(c.throughputPerSec.max, 0),
    throughputPerSecLow95: round(c.throughputPerSec.low ?? null, 0),
    throughputPerSecHigh95: round(c.throughputPerSec.high ?? null, 0),
    latencyP50Ms: round(c.latencyP50Ms.median),
    latencyP99Ms: round(c.latencyP99Ms.median),
    recoveryMsMedian: round(c.recoveryMs.median),
    recoveryMsMin: round(c.recoveryMs.min),
    recoveryMsMax: round(c.recoveryMs.max),
    recoveryMsLow95: round(c.recoveryMs.low ?? null),
    recoveryMsHigh95: round(c.recoveryMs.high ?? null),
    detectionMs: round(c.phases.detection.median),
    rebalanceMs: round(c.phases.rebalance.median),
    fenceMs: round(c.phases.fence.median),
    restoreMs: round(c.phases.restore.median),
    catchUpMs: round(c.phases.catchUp.median),
    duplicatesPerKill: round(c.duplicatesPerKill.median),
    redonePerKill: round(c.redonePerKill.median),
  }
}

export function toCsv(cells: readonly CellResult[]): string {
  const lines = [CSV_COLUMNS.join(',')]
  for (const c of cells) {
    const row = cellRow(c)
    lines.push(CSV_COLUMNS.map((k) => (row[k] === null ? '' : String(row[k]))).join(','))
  }
  return `${lines.join('\n')}\n`
}
