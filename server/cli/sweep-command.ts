// `eoscope sweep`: the commit-interval experiment from the command line. One row per guarantee and
// commit.interval.ms; progress on stderr; the result is also stored under the data directory.
// --backend kafka runs every lab on a Kafka cluster (--brokers, or KAFKA_BROKERS) with worker
// processes, a fresh application.id per lab.

import {
  CSV_COLUMNS,
  DEFAULT_SWEEP_GUARANTEES,
  DEFAULT_SWEEP_INTERVALS,
  cellRow,
  parseSweepRequest,
  toCsv,
  type CellResult,
  type ExperimentRecord,
  type Stat,
  type SweepSettings,
} from '../../lib/experiment-protocol.ts'
import { cellPrecise, cellsWithoutInterval, noiseWarnings } from '../../lib/experiment-uncertainty.ts'
import { fewestSamplesForInterval } from '../../lib/statistics.ts'
import { choiceSchema, settingSchema } from '../../lib/setting-schema.ts'
import { AT_MOST_ONCE_NOTE, describeRange, PROCESSING_GUARANTEES, rangeOf, SETTINGS } from '../../lib/streams-config.ts'
import { ExperimentStore } from '../experiments/experiment-store.ts'
import { expectedRedone, modelDescription, runModelSweep } from '../experiments/model-sweep.ts'
import {
  KAFKA_SWEEP_NOTES,
  runSweep,
  sweepUnavailableReason,
  type SweepKafkaTarget,
} from '../experiments/sweep-runner.ts'
import { type CommandSpec, type FlagValues, UsageError } from './flags.ts'
import { BACKENDS, capabilitiesOf, kafkaSecurityForCommand, parseBrokers } from './backend.ts'
import { requireGuarantee } from '../log/capabilities.ts'
import type { z } from 'zod'
import { NETWORK_FLAGS, networkDelayOf, networkLabel, requireKafkaForNetwork } from './network-flags.ts'

const intervalRange = rangeOf('commit.interval.ms', 'sweep')

export const SWEEP = {
  name: 'sweep',
  summary:
    'the commit-interval experiment, one row per guarantee and commit.interval.ms (throughput, latency, ' +
    'recovery and its phases, duplicates per kill); progress on stderr, the result also stored under the data ' +
    'directory',
  flags: {
    intervals: {
      type: 'string',
      value: 'MS[,MS...]',
      meaning:
        `commit.interval.ms values to measure, up to ${rangeOf('sweepIntervals').max}, each ` +
        `${describeRange(intervalRange, { integer: true })}`,
      defaultText: DEFAULT_SWEEP_INTERVALS.join(','),
    },
    guarantees: {
      type: 'string',
      value: 'G[,G...]',
      meaning:
        `processing.guarantee values to measure, of ${PROCESSING_GUARANTEES.join(', ')} (at_most_once: ` +
        `${AT_MOST_ONCE_NOTE})`,
      defaultText: DEFAULT_SWEEP_GUARANTEES.join(','),
    },
    repeat: {
      type: 'setting',
      setting: 'sweepRepeat',
      meaning: 'runs of each cell: exactly N (with --max-runs: at least N)',
      defaultText:
        `measured: at least ${fewestSamplesForInterval()} (the fewest with a 95% interval), up to --max-runs; ` +
        `--model: ${SETTINGS.sweepRepeat.default}`,
    },
    'max-runs': {
      type: 'setting',
      setting: 'sweepMaxRuns',
      defaultText: `${SETTINGS.sweepMaxRuns.default} without --repeat`,
    },
    backend: {
      type: 'choice',
      choices: BACKENDS,
      default: 'embedded',
      meaning: 'the log: the embedded one, or a Kafka cluster with worker processes (a fresh application.id per lab)',
    },
    brokers: {
      type: 'string',
      value: 'HOST:PORT[,HOST:PORT]',
      meaning: 'the Kafka cluster (--backend kafka)',
      defaultText: 'KAFKA_BROKERS from the environment',
    },
    'worker-logs': { type: 'boolean', meaning: "show the Kafka worker processes' logs" },
    ...NETWORK_FLAGS,
    seed: { type: 'setting', setting: 'seed' },
    json: { type: 'boolean', meaning: 'print the rows and the full record as JSON' },
    csv: { type: 'boolean', meaning: 'print the rows as CSV' },
    'no-save': { type: 'boolean', meaning: 'do not store the result under the data directory (EOSCOPE_DATA_DIR)' },
    model: {
      type: 'boolean',
      meaning:
        'the model: the embedded log in virtual time, the latency model and a CPU cost per record the only ' +
        'costs; exact (the same seed gives the same figures on every run, whatever the load), every figure ' +
        'labelled model',
    },
  },
  notes: [
    '--model: figures from the model, not measurements; its assumptions are printed with them (--json: the ' +
      'model block). Without --model the figures are measured on this machine and vary with its load.',
    'Measured sweeps run the cells in turn (one run of each, then the next round), so that a drift of the ' +
      'machine hits all alike; a cell stops once the 95% intervals of its throughput and recovery time are ' +
      'within ±10% of their medians (at least 6 runs), or at --max-runs. Each cell reports its median, 95% ' +
      'interval, runs and the load average around each run; a warning names every pair of points whose intervals ' +
      'overlap (their order is not known).',
    '--backend kafka: --brokers, or KAFKA_BROKERS in the environment; TLS and SASL from KAFKA_SSL* and ' +
      'KAFKA_SASL_* in the environment (see eoscope worker --help).',
  ],
} as const satisfies CommandSpec

type SweepFlags = FlagValues<(typeof SWEEP)['flags']>

/**
 * How often each cell runs: --model and a lone --repeat N, exactly N (the model is exact: more runs
 * only vary the seed); otherwise from --repeat (default the fewest runs with a 95% interval) up to
 * --max-runs until precise.
 */
export function runsOf(f: SweepFlags): { repeat: number; maxRuns?: number } {
  const maxRuns = f['max-runs']
  if (f.model) {
    if (maxRuns !== undefined)
      throw new UsageError('--max-runs does not apply to --model (its figures are exact); use --repeat')
    return { repeat: f.repeat ?? SETTINGS.sweepRepeat.default }
  }
  if (f.repeat !== undefined && maxRuns === undefined) return { repeat: f.repeat }
  const cap = maxRuns ?? SETTINGS.sweepMaxRuns.default
  const repeat = f.repeat ?? Math.min(fewestSamplesForInterval(), cap)
  if (repeat > cap) throw new UsageError(`--max-runs ${cap} is below --repeat ${repeat}`)
  return { repeat, maxRuns: cap }
}

/** A comma-separated flag's items, each through the schema REST uses for the same field. */
function listOf<T>(flag: string, value: string, schema: z.ZodType<T>, parse: (s: string) => unknown = (s) => s): T[] {
  const items = value.split(',').map((s) => s.trim())
  if (items.some((s) => s === ''))
    throw new UsageError(`--${flag} must be a comma-separated list without empty items; got ${JSON.stringify(value)}`)
  return items.map((s) => {
    const r = schema.safeParse(parse(s))
    if (!r.success) throw new UsageError(`--${flag}: ${r.error.issues[0]?.message ?? 'invalid item'}`)
    return r.data
  })
}

const wholeNumber = (s: string) => (/^\d+$/.test(s) ? Number(s) : s)

const networkOf = (f: SweepFlags) => networkDelayOf(f, f.seed ?? 1)

function kafkaTarget(f: SweepFlags): SweepKafkaTarget | null {
  const network = networkOf(f)
  requireKafkaForNetwork(f, f.backend)
  if (f.backend !== 'kafka') {
    if (f.brokers !== undefined || f['worker-logs'])
      throw new UsageError('--brokers and --worker-logs need --backend kafka')
    return null
  }
  const brokers = f.brokers ?? process.env.KAFKA_BROKERS
  if (brokers === undefined || brokers.trim() === '')
    throw new UsageError('--backend kafka needs --brokers HOST:PORT (or KAFKA_BROKERS in the environment)')
  return {
    brokers: parseBrokers(brokers),
    security: kafkaSecurityForCommand(),
    workerLogs: f['worker-logs'],
    ...(network === null ? {} : { network }),
  }
}

export async function sweepCommand(f: SweepFlags, out: (s: string) => void): Promise<number> {
  if (f.json && f.csv) throw new UsageError('--json and --csv are exclusive')
  const guarantees =
    f.guarantees === undefined
      ? [...DEFAULT_SWEEP_GUARANTEES]
      : listOf('guarantees', f.guarantees, choiceSchema(PROCESSING_GUARANTEES))
  const caps = capabilitiesOf(f.backend)
  for (const g of guarantees) requireGuarantee(caps, g)
  const network = networkOf(f)
  const parsed = parseSweepRequest({
    intervals:
      f.intervals === undefined
        ? [...DEFAULT_SWEEP_INTERVALS]
        : listOf('intervals', f.intervals, settingSchema('commit.interval.ms', 'sweep'), wholeNumber),
    guarantees,
    ...runsOf(f),
    backend: f.backend,
    ...(f.seed !== undefined ? { seed: f.seed } : {}),
    ...(network !== null && f.backend === 'kafka' ? { label: networkLabel(network) } : {}),
  })
  if (!parsed.ok) throw new UsageError(parsed.error)
  const request = parsed.request
  const target = kafkaTarget(f)
  const unavailable = sweepUnavailableReason(request, target)
  if (unavailable !== null) throw new UsageError(unavailable)

  if (f.model && f.backend !== 'embedded')
    throw new UsageError('--model runs on the embedded log: drop --backend kafka')

  const abort = new AbortController()
  const onSignal = () => abort.abort()
  process.once('SIGINT', onSignal)
  let lastLine = ''
  const onProgress = (r: ExperimentRecord) => {
    const c = r.progress.current
    const line = c
      ? `[${r.progress.done}/${r.progress.total}] ${f.model ? 'model: ' : ''}${c.guarantee} ` +
        `commit.interval.ms=${c.commitIntervalMs} ` +
        `repetition ${c.repetition}: ${c.stage}`
      : ''
    if (line && line !== lastLine) process.stderr.write(`${line}\n`)
    lastLine = line
  }
  const running = f.model
    ? runModelSweep({ request, signal: abort.signal, onProgress })
    : runSweep({ request, kafka: target, signal: abort.signal, onProgress })
  const record = await running.finally(() => process.off('SIGINT', onSignal))
  if (!f['no-save']) {
    const store = new ExperimentStore()
    await store.save(record)
    process.stderr.write(`saved ${store.dir}/${record.id}.json\n`)
  }
  const kind: Figures = f.model ? 'model' : 'measured'
  if (kind === 'measured') for (const w of warningsOf(record)) process.stderr.write(`warning: ${w}\n`)
  if (f.json) out(JSON.stringify(jsonOf(record, kind), null, 2))
  else if (f.csv) out(toCsv(record.cells).trimEnd())
  else out(formatTable(record, kind))
  return record.status === 'done' ? 0 : 1
}

/** Model figures (virtual time, exact) or measured ones (this machine, its load). */
type Figures = 'model' | 'measured'

/** The JSON output: the rows first, then the full record for anyone who wants the repetitions. */
function jsonOf(r: ExperimentRecord, figures: Figures) {
  return {
    id: r.id,
    status: r.status,
    backend: r.request.backend,
    figures,
    ...(figures === 'model' ? { model: modelDescription() } : {}),
    ...(r.request.backend === 'kafka' ? { notes: KAFKA_SWEEP_NOTES } : {}),
    settings: r.settings,
    machine: r.machine,
    ...(figures === 'measured'
      ? {
          runsPerCell: {
            atLeast: r.request.repeat,
            atMost: r.request.maxRuns ?? r.request.repeat,
            precision: '95% interval of the median within ±10% for throughput and recovery time',
          },
        }
      : {}),
    warnings: figures === 'measured' ? warningsOf(r) : [],
    rows: r.cells.map((c) => rowOf(c, r.settings, figures)),
    record: r,
  }
}

function rowOf(c: CellResult, s: SweepSettings, figures: Figures) {
  const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10)
  const kills = c.repetitions.map((x) => x.killDelayMs).filter((x): x is number => x !== null)
  const meanKillDelay = kills.length === 0 ? null : kills.reduce((a, b) => a + b, 0) / kills.length
  const withInterval = (s: Stat, values: (number | null)[]) => ({
    median: round(s.median),
    low95: round(s.low ?? null),
    high95: round(s.high ?? null),
    min: round(s.min),
    max: round(s.max),
    values: values.map(round),
  })
  return {
    figures,
    guarantee: c.guarantee,
    commitIntervalMs: c.commitIntervalMs,
    runs: c.repetitions.length,
    precise: cellPrecise(c),
    throughputPerSec: withInterval(
      c.throughputPerSec,
      c.repetitions.map((x) => x.throughputPerSec),
    ),
    latencyP50Ms: round(c.latencyP50Ms.median),
    latencyP99Ms: round(c.latencyP99Ms.median),
    recoveryMs: round(c.recoveryMs.median),
    recoveryMsInterval: withInterval(
      c.recoveryMs,
      c.repetitions.map((x) => x.recoveryMs),
    ),
    load: c.repetitions.map((x) => x.load ?? null),
    phases: {
      detection: round(c.phases.detection.median),
      rebalance: round(c.phases.rebalance.median),
      fence: round(c.phases.fence.median),
      restore: round(c.phases.restore.median),
      catchUp: round(c.phases.catchUp.median),
    },
    duplicatesPerKill: round(c.duplicatesPerKill.median),
    redonePerKill: round(c.redonePerKill.median),
    expectedRedone: expectedRedone(s, c.commitIntervalMs, meanKillDelay),
    saturated: c.repetitions.every((x) => x.saturated),
  }
}

/** Every pair of points whose order is not known, and the cells with too few runs for an interval. */
function warningsOf(r: ExperimentRecord): string[] {
  const bare = cellsWithoutInterval(r.cells)
  const few =
    bare.length === 0
      ? []
      : [
          `${bare.length} of ${r.cells.length} cells have fewer than ${fewestSamplesForInterval()} runs: no ` +
            `95% interval, so no order between them is known`,
        ]
  return [...few, ...noiseWarnings(r.cells).map((w) => w.text)]
}

function formatTable(r: ExperimentRecord, figures: Figures): string {
  const cols = CSV_COLUMNS.filter((c) => c !== 'redonePerKill' && (figures === 'measured' || !/95$/.test(c)))
  const head: Record<string, string> = {
    guarantee: 'guarantee',
    commitIntervalMs: 'commit ms',
    repetitions: 'runs',
    throughputPerSecMedian: 'thr/s med',
    throughputPerSecMin: 'min',
    throughputPerSecMax: 'max',
    throughputPerSecLow95: '95% low',
    throughputPerSecHigh95: 'high',
    recoveryMsLow95: '95% low',
    recoveryMsHigh95: 'high',
    latencyP50Ms: 'p50 ms',
    latencyP99Ms: 'p99 ms',
    recoveryMsMedian: 'recov ms',
    recoveryMsMin: 'min',
    recoveryMsMax: 'max',
    detectionMs: 'detect',
    rebalanceMs: 'rebal',
    fenceMs: 'fence',
    restoreMs: 'restore',
    catchUpMs: 'catch-up',
    duplicatesPerKill: 'dups/kill',
  }
  const rows = r.cells.map((c) => {
    const row = cellRow(c)
    return cols.map((k) => (row[k] === null ? '—' : String(row[k])))
  })
  const header = cols.map((k) => head[k]!)
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  const s = r.settings
  const how =
    figures === 'model'
      ? 'MODEL (embedded log in virtual time; figures from the model, not measured)'
      : `${r.request.backend} backend, measured`
  return [
    `eoscope sweep: ${how}, ${runsText(r)}, ${r.status}${r.error ? ` (${r.error})` : ''}`,
    ...(figures === 'model' ? modelDescription().assumptions.map((a) => `  model: ${a}`) : []),
    `  throughput: saturated input, window max(${s.minWindowMs} ms, ${s.windowCommits} × commit.interval.ms); ` +
      `latency and one kill: steady ${s.steadyRatePerSec} records/s; ${s.workers} workers, ${s.partitions} ` +
      `partitions, session.timeout.ms ${s.sessionTimeoutMs}`,
    fmt(header),
    ...rows.map(fmt),
  ].join('\n')
}

/** "3 runs per cell", or "6 to 9 runs per cell, until precise". */
function runsText(r: ExperimentRecord): string {
  const { repeat, maxRuns } = r.request
  if (maxRuns === undefined || maxRuns === repeat) return `${repeat} run${repeat === 1 ? '' : 's'} per cell`
  return `${repeat} to ${maxRuns} runs per cell, until the 95% intervals are within ±10%`
}
