// GET /metrics: the lab in Prometheus' text format (prom-client). Lab figures are read from the
// latest snapshot when scraped; recoveries are observed as they complete; commands and refused
// requests are counted by the http layer.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { COMMANDS, type LabSnapshot, type RecoveryPhases } from '../../lib/lab-protocol.ts'
import type { LabController } from '../lab/lab-controller.ts'
import { kafkaNamesOfMetric, kafkaNamesText } from '../../lib/kafka-metric-names.ts'

const PHASES: (keyof RecoveryPhases)[] = ['detection', 'rebalance', 'fence', 'restore', 'catchUp']
const RECOVERY_BUCKETS_MS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000]
const EXTRA_COMMANDS = new Set(['startExperiment', 'cancelExperiment'])

export interface LabMetrics {
  readonly registry: Registry
  /** Counts a command a client ran (ok) or that the lab refused (error). */
  countCommand(via: 'rest' | 'socket', name: string, ok: boolean): void
  /** Counts a refused request or socket message. */
  countRejected(via: 'rest' | 'socket', reason: string): void
  /** The exposition text. */
  render(): Promise<string>
  readonly contentType: string
  close(): void
}

type Read = (s: LabSnapshot) => number | null | undefined

/**
 * A metric's configuration that reads its value when scraped: reset, then `apply`
 * the value unless it is null or undefined.
 */
function readWhenScraped<M extends Gauge | Counter>(
  registry: Registry,
  name: string,
  help: string,
  read: () => number | null | undefined,
  apply: (metric: M, v: number) => void,
) {
  return {
    name,
    help,
    registers: [registry],
    collect(this: M) {
      const v = read()
      this.reset()
      if (v !== null && v !== undefined) apply(this, v)
    },
  }
}

function scrapedGauge(registry: Registry, name: string, help: string, read: () => number | null | undefined): Gauge {
  return new Gauge(readWhenScraped<Gauge>(registry, name, help, read, (g, v) => g.set(v)))
}

/** A counter that mirrors a running total kept elsewhere (it restarts when the lab is reset). */
function mirroredCounter(
  registry: Registry,
  name: string,
  help: string,
  read: () => number | null | undefined,
): Counter {
  return new Counter(
    readWhenScraped<Counter>(registry, name, help, read, (c, v) => {
      if (Number.isFinite(v) && v > 0) c.inc(v)
    }),
  )
}

const latestPoint = (s: LabSnapshot) => s.series[s.series.length - 1]
const validatorFigure =
  (read: (c: NonNullable<LabSnapshot['correctness']>) => number | null): Read =>
  (s) =>
    s.correctness ? read(s.correctness) : null

/**
 * Figures read from the latest snapshot: [name, help, read]. A validator figure is absent
 * until it has run once, and while unavailable.
 */
const SNAPSHOT_GAUGES: [string, string, Read][] = [
  ['eoscope_commit_interval_ms', 'commit.interval.ms in force', (s) => s.config['commit.interval.ms']],
  [
    'eoscope_processed_records_per_second',
    "Records/s by which the group's committed input offsets advance (latest point of the lab's series)",
    (s) => latestPoint(s)?.processedPerSec ?? 0,
  ],
  [
    'eoscope_visible_output_records_per_second',
    'Committed output records/s seen by a read_committed consumer (latest point)',
    (s) => latestPoint(s)?.visibleOutputPerSec ?? 0,
  ],
  ['eoscope_transactions_open', 'Transactions open now', (s) => s.txnTotals.open],
  [
    'eoscope_validator_duplicates',
    'Duplicate output records found by the validator',
    validatorFigure((c) => c.duplicates),
  ],
  ['eoscope_validator_lost', 'Input records with no committed output', validatorFigure((c) => c.lost)],
  [
    'eoscope_validator_aborted_reads',
    'Aborted records delivered to a read_committed consumer',
    validatorFigure((c) => c.abortedReads),
  ],
  [
    'eoscope_validator_state_mismatches',
    'Keys whose state differs from the committed input',
    validatorFigure((c) => c.stateMismatches),
  ],
  [
    'eoscope_validator_open_transactions',
    'Partitions with an open transaction (last stable offset below the high watermark) when the validator ran',
    validatorFigure((c) => c.openTransactions),
  ],
  ['eoscope_validator_input_checked', 'Input records the validator checked', validatorFigure((c) => c.inputChecked)],
  [
    'eoscope_recoveries_in_progress',
    'Recoveries under way',
    (s) => s.recoveries.filter((r) => r.recoveryMs === null).length,
  ],
  [
    'eoscope_stopped_tasks',
    'Tasks no worker runs because a worker failed (a poison record under ' +
      'default.deserialization.exception.handler=fail)',
    (s) => s.stoppedTasks?.length ?? 0,
  ],
  [
    'eoscope_failed_stream_threads',
    "Workers stopped by an error, as Kafka Streams' failed-stream-threads counts failed StreamThreads",
    (s) => s.workers.filter((w) => w.stop || (w.state === 'stopped' && w.error)).length,
  ],
  [
    'eoscope_input_lag_records',
    "Input end offsets minus the group's committed offsets, over running and stopped tasks (records-lag-sum)",
    (s) => [...s.tasks, ...(s.stoppedTasks ?? [])].reduce((a, t) => a + t.lag, 0),
  ],
]

/** Running totals of the lab, mirrored as counters: [name, help, read]. */
const SNAPSHOT_COUNTERS: [string, string, Read][] = [
  ['eoscope_input_records_total', 'Input records fed by the load generator', (s) => s.totals.inputRecords],
  [
    'eoscope_committed_input_records_total',
    'Input records whose offsets are committed',
    (s) => s.totals.committedInput,
  ],
  ['eoscope_output_records_total', 'Output records produced', (s) => s.totals.outputRecords],
  [
    'eoscope_transactions_committed_total',
    'Transactions committed since the lab started',
    (s) => s.txnTotals.committed,
  ],
  ['eoscope_transactions_aborted_total', 'Transactions aborted since the lab started', (s) => s.txnTotals.aborted],
  ['eoscope_worker_kills_total', 'Workers killed', (s) => s.totals.kills],
  ['eoscope_dropped_acks_total', 'Produce acks dropped by fault injection', (s) => s.totals.droppedAcks],
  ['eoscope_fenced_total', 'Producers fenced', (s) => s.totals.fenced],
  ['eoscope_cluster_outages_total', 'Kafka backend: times the lab lost its cluster', (s) => s.health?.outages ?? 0],
  // The producer's transaction times, from the latencies the workers measure
  // (summed over the lab's producers, this run).
  [
    'eoscope_txn_commit_time_ns_total',
    "Nanoseconds spent in the producers' commitTransaction",
    (s) => txnNanos(s, 'committed', 'endTxnMs'),
  ],
  [
    'eoscope_txn_abort_time_ns_total',
    "Nanoseconds spent in the producers' abortTransaction",
    (s) => txnNanos(s, 'aborted', 'endTxnMs'),
  ],
  [
    'eoscope_txn_send_offsets_time_ns_total',
    "Nanoseconds spent in the producers' sendOffsetsToTransaction",
    (s) => txnNanos(s, 'committed', 'sendOffsetsMs'),
  ],
]

function txnNanos(
  s: LabSnapshot,
  outcome: 'committed' | 'aborted',
  figure: 'endTxnMs' | 'sendOffsetsMs',
): number | null {
  const run = s.txnStats?.run
  return run ? Math.round(run.outcomes[outcome][figure].sum * 1e6) : null
}

/** A HELP text with the Kafka Streams or client metric names the figure corresponds to (lib/kafka-metric-names.ts). */
function withKafkaNames(name: string, help: string): string {
  const names = kafkaNamesText(kafkaNamesOfMetric(name))
  return names === '' ? help : `${help}. ${names}`
}

/** The labelled figures: the lab's backend and guarantee, workers by state, the Kafka cluster's reachability. */
function registerLabelledGauges(registry: Registry, snap: () => LabSnapshot): void {
  new Gauge({
    name: 'eoscope_lab_info',
    help: 'The lab: backend and processing guarantee (value 1)',
    labelNames: ['backend', 'guarantee'],
    registers: [registry],
    collect() {
      const s = snap()
      this.reset()
      this.set({ backend: s.backend, guarantee: s.config['processing.guarantee'] }, 1)
    },
  })
  new Gauge({
    name: 'eoscope_workers',
    help: 'Workers by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const counts: Record<string, number> = { running: 0, paused: 0, killed: 0, stopped: 0 }
      for (const w of snap().workers) counts[w.state] = (counts[w.state] ?? 0) + 1
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n)
    },
  })
  // Kafka backend: whether the lab reaches its cluster (absent on the embedded log).
  new Gauge({
    name: 'eoscope_cluster_reachable',
    help:
      'Kafka backend: 1 while the lab reaches its cluster, 0 during an outage (by application.id; absent on the ' +
      'embedded log)',
    labelNames: ['application_id'],
    registers: [registry],
    collect() {
      this.reset()
      const s = snap()
      if (s.health) this.set({ application_id: s.applicationId ?? '' }, s.health.reachable ? 1 : 0)
    },
  })
}

/** Recoveries, observed once each as they complete; returns the unsubscribe. */
function observeRecoveries(registry: Registry, lab: LabController): () => void {
  const recoveries = new Counter({
    name: 'eoscope_recoveries_total',
    help: 'Recoveries completed (a worker killed, its tasks running again elsewhere)',
    registers: [registry],
  })
  const recoveryMs = new Histogram({
    name: 'eoscope_recovery_duration_ms',
    help: 'Recovery time, from the kill until the tasks caught up',
    buckets: RECOVERY_BUCKETS_MS,
    registers: [registry],
  })
  const phaseMs = new Histogram({
    name: 'eoscope_recovery_phase_duration_ms',
    help: 'Recovery phases: detection, rebalance, fence, restore, catchUp',
    labelNames: ['phase'],
    buckets: RECOVERY_BUCKETS_MS,
    registers: [registry],
  })
  const lastPhase = new Gauge({
    name: 'eoscope_last_recovery_phase_ms',
    help: "The last completed recovery's phases",
    labelNames: ['phase'],
    registers: [registry],
  })
  const lastRecovery = new Gauge({
    name: 'eoscope_last_recovery_ms',
    help: 'The last completed recovery, from the kill until the tasks caught up',
    registers: [registry],
  })
  let seenRun = -1
  let seen = new Set<string>()
  const observe = (s: LabSnapshot) => {
    if (s.startedAtMs !== seenRun) {
      seenRun = s.startedAtMs
      seen = new Set()
    }
    for (const r of s.recoveries) {
      if (r.recoveryMs === null || seen.has(r.id)) continue
      seen.add(r.id)
      recoveries.inc()
      recoveryMs.observe(r.recoveryMs)
      lastRecovery.set(r.recoveryMs)
      for (const phase of PHASES) {
        const v = r.phases[phase]
        if (v === null) lastPhase.remove({ phase })
        else {
          phaseMs.observe({ phase }, v)
          lastPhase.set({ phase }, v)
        }
      }
    }
  }
  observe(lab.snapshot())
  return lab.onSnapshot(observe)
}

export function createLabMetrics({
  lab,
  socketClients,
  socketSessions,
  defaultMetrics = true,
}: {
  lab: LabController
  socketClients: () => number
  /** The live socket's sessions (engine.io, connected or not) and the bytes queued for them. */
  socketSessions?: () => { sessions: number; queuedBytes: number }
  defaultMetrics?: boolean
}): LabMetrics {
  const registry = new Registry()
  if (defaultMetrics) collectDefaultMetrics({ register: registry })
  const snap = () => lab.snapshot()
  registerLabelledGauges(registry, snap)
  for (const [name, help, read] of SNAPSHOT_GAUGES)
    scrapedGauge(registry, name, withKafkaNames(name, help), () => read(snap()))
  for (const [name, help, read] of SNAPSHOT_COUNTERS)
    mirroredCounter(registry, name, withKafkaNames(name, help), () => read(snap()))
  scrapedGauge(registry, 'eoscope_socket_clients', 'Browsers connected to the live socket', socketClients)
  if (socketSessions) {
    const sessionsHelp = 'Live socket sessions (engine.io, polling or WebSocket), connected to the lab or not'
    scrapedGauge(registry, 'eoscope_socket_sessions', sessionsHelp, () => socketSessions().sessions)
    const queuedHelp = 'Bytes queued for the socket sessions and not yet taken by their clients'
    scrapedGauge(registry, 'eoscope_socket_queued_bytes', queuedHelp, () => socketSessions().queuedBytes)
  }
  const unsubscribe = observeRecoveries(registry, lab)

  const commands = new Counter({
    name: 'eoscope_commands_total',
    help: 'Control commands by name, transport and outcome (ok: the lab ran it; error: refused)',
    labelNames: ['command', 'via', 'outcome'],
    registers: [registry],
  })
  const rejected = new Counter({
    name: 'eoscope_rejected_requests_total',
    help: 'Requests and socket messages refused, by reason',
    labelNames: ['via', 'reason'],
    registers: [registry],
  })

  return {
    registry,
    contentType: registry.contentType,
    countCommand(via, name, ok) {
      const known = Object.hasOwn(COMMANDS, name) || EXTRA_COMMANDS.has(name)
      commands.inc({ command: known ? name : 'unknown', via, outcome: ok ? 'ok' : 'error' })
    },
    countRejected(via, reason) {
      rejected.inc({ via, reason })
    },
    render: () => registry.metrics(),
    close() {
      unsubscribe()
      registry.clear()
    },
  }
}
