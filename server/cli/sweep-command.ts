// `eoscope sweep`: the commit-interval experiment from the command line. One row per guarantee and
// commit.interval.ms; progress on stderr; the result is also stored under the data directory.
// --backend kafka runs every lab on a Kafka cluster (--brokers, or KAFKA_BROKERS) with worker
// processes, a fresh application.id per lab.

import { CSV_COLUMNS, DEFAULT_SWEEP_GUARANTEES, DEFAULT_SWEEP_INTERVALS, DEFAULT_SWEEP_REPEAT, cellRow, parseSweepRequest, toCsv, type CellResult, type ExperimentRecord } from '../../lib/experiment-protocol.ts'
import { PROCESSING_GUARANTEES } from '../../lib/streams-config.ts'
import { ExperimentStore } from '../experiments/experiment-store.ts'
import { KAFKA_SWEEP_NOTES, runSweep, sweepUnavailableReason, type SweepKafkaTarget } from '../experiments/sweep-runner.ts'
import { parseFlags, UsageError } from './args.ts'
import { kafkaSecurityForCommand, parseBrokers } from './worker-command.ts'

export const SWEEP_USAGE = `eoscope sweep [--intervals 10,100,1000] [--guarantees at_least_once,exactly_once] [--repeat N]
            [--backend embedded|kafka] [--brokers HOST:PORT[,HOST:PORT]] [--worker-logs] [--seed N] [--json|--csv] [--no-save]
  --backend kafka: --brokers, or KAFKA_BROKERS in the environment; exactly_once_v2 is refused there (KIP-447);
  TLS and SASL from KAFKA_SSL* and KAFKA_SASL_* in the environment (see eoscope worker)`

const SPEC = {
  intervals: { kind: 'string' },
  guarantees: { kind: 'string' },
  repeat: { kind: 'int', min: 1, max: 10 },
  backend: { kind: 'string', choices: ['embedded', 'kafka'] },
  brokers: { kind: 'string' },
  'worker-logs': { kind: 'bool' },
  seed: { kind: 'int', min: 0, max: 2 ** 31 - 1 },
  json: { kind: 'bool' },
  csv: { kind: 'bool' },
  'no-save': { kind: 'bool' },
} as const

function list(flag: string, value: string): string[] {
  const items = value.split(',').map((s) => s.trim())
  if (items.some((s) => s === '')) throw new UsageError(`--${flag} must be a comma-separated list without empty items; got ${JSON.stringify(value)}`)
  return items
}

function intervalsOf(value: string): number[] {
  return list('intervals', value).map((s) => {
    const n = Number(s)
    if (!/^\d+$/.test(s) || !Number.isSafeInteger(n)) throw new UsageError(`--intervals must be whole milliseconds; got ${JSON.stringify(s)}`)
    return n
  })
}

export async function sweepCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const f = parseFlags(argv, SPEC)
  if (f.json && f.csv) throw new UsageError('--json and --csv are exclusive')
  const guarantees = typeof f.guarantees === 'string' ? list('guarantees', f.guarantees) : [...DEFAULT_SWEEP_GUARANTEES]
  for (const g of guarantees) if (!(PROCESSING_GUARANTEES as readonly string[]).includes(g)) throw new UsageError(`--guarantees: unknown guarantee ${JSON.stringify(g)}; known: ${PROCESSING_GUARANTEES.join(', ')}`)
  const parsed = parseSweepRequest({
    intervals: typeof f.intervals === 'string' ? intervalsOf(f.intervals) : [...DEFAULT_SWEEP_INTERVALS],
    guarantees,
    repeat: (f.repeat as number | undefined) ?? DEFAULT_SWEEP_REPEAT,
    backend: (f.backend as string | undefined) ?? 'embedded',
    ...(f.seed !== undefined ? { seed: f.seed as number } : {}),
  })
  if (!parsed.ok) throw new UsageError(parsed.error)
  const request = parsed.request
  const kafka = request.backend === 'kafka'
  if (!kafka && (f.brokers !== undefined || f['worker-logs'] !== undefined)) throw new UsageError('--brokers and --worker-logs need --backend kafka')
  let target: SweepKafkaTarget | null = null
  if (kafka) {
    const brokers = (f.brokers as string | undefined) ?? process.env.KAFKA_BROKERS
    if (brokers === undefined || brokers.trim() === '') throw new UsageError('--backend kafka needs --brokers HOST:PORT (or KAFKA_BROKERS in the environment)')
    target = { brokers: parseBrokers(brokers), security: kafkaSecurityForCommand(), workerLogs: f['worker-logs'] === true }
  }
  const unavailable = sweepUnavailableReason(request, target)
  if (unavailable !== null) throw new UsageError(unavailable)

  const abort = new AbortController()
  const onSignal = () => abort.abort()
  process.once('SIGINT', onSignal)
  let lastLine = ''
  const record = await runSweep({
    request,
    kafka: target,
    signal: abort.signal,
    onProgress: (r) => {
      const c = r.progress.current
      const line = c ? `[${r.progress.done}/${r.progress.total}] ${c.guarantee} commit.interval.ms=${c.commitIntervalMs} repetition ${c.repetition}: ${c.stage}` : ''
      if (line && line !== lastLine) process.stderr.write(line + '\n')
      lastLine = line
    },
  }).finally(() => process.off('SIGINT', onSignal))
  if (!f['no-save']) {
    const store = new ExperimentStore()
    await store.save(record)
    process.stderr.write(`saved ${store.dir}/${record.id}.json\n`)
  }
  if (f.json) out(JSON.stringify(jsonOf(record), null, 2))
  else if (f.csv) out(toCsv(record.cells).trimEnd())
  else out(formatTable(record))
  return record.status === 'done' ? 0 : 1
}

/** The JSON output: the rows first, then the full record for anyone who wants the repetitions. */
function jsonOf(r: ExperimentRecord) {
  return {
    id: r.id,
    status: r.status,
    backend: r.request.backend,
    ...(r.request.backend === 'kafka' ? { notes: KAFKA_SWEEP_NOTES } : {}),
    settings: r.settings,
    machine: r.machine,
    rows: r.cells.map(rowOf),
    record: r,
  }
}

function rowOf(c: CellResult) {
  const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10)
  return {
    guarantee: c.guarantee,
    commitIntervalMs: c.commitIntervalMs,
    throughputPerSec: { median: round(c.throughputPerSec.median), min: round(c.throughputPerSec.min), max: round(c.throughputPerSec.max) },
    latencyP50Ms: round(c.latencyP50Ms.median),
    latencyP99Ms: round(c.latencyP99Ms.median),
    recoveryMs: round(c.recoveryMs.median),
    phases: {
      detection: round(c.phases.detection.median),
      rebalance: round(c.phases.rebalance.median),
      fence: round(c.phases.fence.median),
      restore: round(c.phases.restore.median),
      catchUp: round(c.phases.catchUp.median),
    },
    duplicatesPerKill: round(c.duplicatesPerKill.median),
    saturated: c.repetitions.every((x) => x.saturated),
  }
}

function formatTable(r: ExperimentRecord): string {
  const cols = CSV_COLUMNS.filter((c) => c !== 'repetitions' && c !== 'redonePerKill')
  const head: Record<string, string> = {
    guarantee: 'guarantee',
    commitIntervalMs: 'commit ms',
    throughputPerSecMedian: 'thr/s med',
    throughputPerSecMin: 'min',
    throughputPerSecMax: 'max',
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
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  const s = r.settings
  return [
    `eoscope sweep: ${r.request.backend} backend, ${r.request.repeat} repetition(s) per cell, ${r.status}${r.error ? ` (${r.error})` : ''}`,
    `  throughput: saturated input, window max(${s.minWindowMs} ms, ${s.windowCommits} × commit.interval.ms); latency and one kill: steady ${s.steadyRatePerSec} records/s; ${s.workers} workers, ${s.partitions} partitions, session.timeout.ms ${s.sessionTimeoutMs}`,
    fmt(header),
    ...rows.map(fmt),
  ].join('\n')
}
