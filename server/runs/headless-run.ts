// A headless run: feed N records through the engine under a guarantee, apply faults on a seeded
// schedule, wait until every input record is processed and committed, then let the validator read
// the logs. What `eoscope run` prints.

import type { Step } from '../../lib/lab-protocol.ts'
import { STEPS } from '../../lib/five-steps.ts'
import { streamsConfigFor, type ProcessingGuarantee, type StreamsConfig } from '../../lib/streams-config.ts'
import { SystemTime, type Time } from '../log/time.ts'
import { validateRun } from '../validator/validator.ts'
import { KAFKA_CLIENT_DEADLINES_MS, retryRetriableUntilDeadline } from '../engine/retry-until-deadline.ts'
import { correctnessFigures, type ValidationReport } from '../validator/report.ts'
import { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import { phaseDurations, redone } from '../runtime/recovery-tracker.ts'
import { validationTarget } from '../runtime/runtime-common.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import type { RuntimeSettings } from '../runtime/lab-runtime.ts'
import type { KafkaClientConfig } from '../log/kafka/kafka-client.ts'
import type { NetworkDelay } from '../log/kafka/proxy/ack-drop-proxy.ts'
import { ProgressWatchdog, stallLimitMs, type Stall } from './progress-watchdog.ts'
import { RUN_DEFINITIONS } from './run-definitions.ts'
import { type CommittedSample, MIN_SAMPLES, MIN_STEPS, steadyRate } from './steady-rate.ts'
import { transactionsAndMarkersInLog, type MarkerCounts } from '../runtime/log-transactions.ts'
import { type BrokerFaultOptions, brokerFaultLoop, brokerFaultsRefusal, type RunBrokerKill } from './broker-faults.ts'

export interface RunOptions {
  guarantee: ProcessingGuarantee
  commitIntervalMs?: number
  transactionTimeoutMs?: number
  sessionTimeoutMs?: number
  workers: number
  partitions: number
  records: number
  /** Records per second; Infinity: as fast as possible. */
  rate: number
  /** How the rate was chosen, said beside it in the result (default: given, or as fast as possible). */
  rateChosen?: string
  seed: number
  killEveryMs: number | null
  killAtStep: Step | null
  restartAfterMs: number
  dropAcks: number
  idempotence: boolean
  latency: 'default' | 'off'
  keys?: number
  /** Give up (and report it) after this long (default: defaultRunTimeoutMs). */
  timeoutMs?: number
  /**
   * Stop as stalled when the group commits no input for this long while input
   * remains (default: stallLimitMs of the config).
   */
  stallAfterMs?: number
  /** The embedded log (default) or a Kafka cluster, with worker processes. */
  backend?: 'embedded' | 'kafka'
  /** Kafka only: the cluster, and the application.id (default: a fresh one per run). */
  kafka?: {
    client: Omit<KafkaClientConfig, 'clientId'> & { clientId?: string }
    applicationId?: string
    workerLogs?: boolean
    /** scripts/kafka-cluster.sh's KAFKA_DIR: its brokers may be killed and restarted (brokerFaults). */
    localBrokersDir?: string | null
    /** The network between the worker processes and the brokers (WorkerProcessRuntimeOptions.network). */
    network?: NetworkDelay
  }
  /** Kafka on a cluster of scripts/kafka-cluster.sh: SIGKILL a broker every killEveryMs (broker-faults.ts). */
  brokerFaults?: BrokerFaultOptions
  /** Write the whole input before the workers start: they run on a backlog (RuntimeSettings.prefill). */
  prefill?: boolean
  /** Runs after validation, before the runtime is closed (a dump reads the logs here). */
  beforeClose?: (runtime: LabRuntime) => Promise<void>
}

/** The correctness figures of docs/measures.md, as the validator reports them; all null after a stall. */
type CorrectnessFigures = {
  [K in keyof ReturnType<typeof correctnessFigures>]: ReturnType<typeof correctnessFigures>[K] | null
}

export interface RunResult extends CorrectnessFigures {
  backend: 'embedded' | 'kafka'
  /** What this backend measures differently or cannot measure. */
  notes?: readonly string[]
  guarantee: ProcessingGuarantee
  commitIntervalMs: number
  records: number
  /** The network delay between the worker processes and the brokers (RUN_DEFINITIONS.network); Kafka only. */
  network?: { oneWayLatencyMs: number; jitterMs: number }
  /** The rate the input was fed at (RUN_DEFINITIONS.inputRate); perSec null: as fast as possible. */
  inputRate: { perSec: number | null; chosen: string }
  outputRecords: number
  throughputPerSec: number
  /** RUN_DEFINITIONS.steadyThroughput: the engine's rate between 10% and 90% committed, as bench:engine takes it. */
  steadyThroughput: { perSec: number; windowMs: number } | { perSec: null; unmeasured: string }
  durationMs: number
  kills: number
  /** Workers that ended without the run ending them (RUN_DEFINITIONS.crashes); each replaced like a killed one. */
  crashes: {
    workerId: string
    slotId: string
    t: number
    cause: string
    exitCode: number | null
    signal: string | null
  }[]
  /** What the run does with a crashed worker (RUN_DEFINITIONS.crashHandler). */
  crashHandler: 'REPLACE_THREAD'
  /** The brokers SIGKILLed during the run, with their roles then (RUN_DEFINITIONS.brokerKills); with brokerFaults. */
  brokerKills?: RunBrokerKill[]
  /** Workers the run started with and live at its end (RUN_DEFINITIONS.workers). */
  workers: { started: number; liveAtEnd: number }
  /** Said aloud when something went wrong that the figures do not show (fewer live workers at the end, say). */
  warnings?: string[]
  droppedAcks: number
  fenced: number
  /** Transactions, each once across its partitions: by producer id and epoch from the log's markers. */
  transactions: { committed: number; aborted: number; countedBy: 'producer id and epoch' }
  /** COMMIT and ABORT markers, one per partition a transaction touched (RUN_DEFINITIONS.transactionMarkers). */
  transactionMarkers: MarkerCounts & { countedBy: 'marker per partition' }
  /** As the workers reported them (RUN_DEFINITIONS.transactionsReported). */
  transactionsReported: { committed: number; aborted: number }
  recoveries: {
    workerId: string
    t0: number
    ms: number | null
    redone: number
    phases: {
      detection: number | null
      rebalance: number | null
      fence: number | null
      restore: number | null
      catchUp: number | null
    }
  }[]
  duplicateKeys: { key: string; count: number }[]
  completed: boolean
  /** Set when the run stopped because the group made no committed progress (the figures are then null). */
  stalled?: Stall
  /** Why figures are null, beside the validator's own unavailable rows. */
  unavailableFigures?: { figure: string; reason: string }[]
  /** What each figure counts. */
  definitions: typeof RUN_DEFINITIONS
  validation: ValidationReport
}

/** A run's deadline: max(300 s, 60 × session.timeout.ms), each kill costing up to a session timeout of detection. */
export function defaultRunTimeoutMs(config: Pick<StreamsConfig, 'session.timeout.ms'>): number {
  return Math.max(300_000, 60 * config['session.timeout.ms'])
}

export function runConfig(o: RunOptions): StreamsConfig {
  return streamsConfigFor(o.guarantee, {
    commitIntervalMs: o.commitIntervalMs,
    transactionTimeoutMs: o.transactionTimeoutMs,
    sessionTimeoutMs: o.sessionTimeoutMs,
    idempotence: o.idempotence,
  })
}

/** How long the input of a run with lost acks and no rate is fed; the drops are spread over it. */
export const ACK_DROPS_FEED_MS = 2_000

/** The kills a run whose input is paced for them sees (pacedForKills). */
export const KILLS_WHEN_PACED = 4

/** A rate at which the input lasts KILLS_WHEN_PACED + 1 kill intervals, so that about KILLS_WHEN_PACED kills fall. */
export function pacedForKills(records: number, killEveryMs: number): number {
  return Math.ceil((records * 1000) / ((KILLS_WHEN_PACED + 1) * killEveryMs))
}

/**
 * What went wrong that the figures do not show: fewer live workers at the end than at the start, or a
 * kill schedule under which no kill fell (a run faster than its first kill's time has nothing to show).
 */
export function runWarnings(
  o: Pick<RunOptions, 'workers' | 'killEveryMs' | 'records'>,
  r: { liveAtEnd: number; kills: number; durationMs: number },
): string[] {
  const warnings: string[] = []
  if (r.liveAtEnd < o.workers)
    warnings.push(`the run ended with ${r.liveAtEnd} live workers of the ${o.workers} it started`)
  if (o.killEveryMs !== null && r.kills === 0) {
    const feedFor = `--rate ${pacedForKills(o.records, o.killEveryMs)}`
    warnings.push(
      `no kill fell: the run ended after ${Math.round(r.durationMs)} ms, before its first kill was due ` +
        `(--kill-every ${o.killEveryMs}); feed the input for longer, ${feedFor} for about ${KILLS_WHEN_PACED} kills`,
    )
  }
  return warnings
}

/** The rate a run fed its input at, and how it was chosen (RUN_DEFINITIONS.inputRate). */
export function inputRateOf(o: Pick<RunOptions, 'rate' | 'rateChosen'>): RunResult['inputRate'] {
  const paced = Number.isFinite(o.rate)
  return { perSec: paced ? o.rate : null, chosen: o.rateChosen ?? (paced ? 'given' : 'as fast as possible') }
}

const withWarnings = (warnings: string[]) => (warnings.length > 0 ? { warnings } : {})

/** The steady rate of a run's committed samples (RUN_DEFINITIONS.steadyThroughput). */
export function steadyThroughputOf(
  samples: readonly CommittedSample[],
  records: number,
): RunResult['steadyThroughput'] {
  const steady = steadyRate(samples, records)
  if (steady !== null) return { perSec: Math.round(steady.perSec), windowMs: Math.round(steady.windowMs) }
  const inWindow = samples.filter((x) => x.committed >= records * 0.1 && x.committed <= records * 0.9)
  return {
    perSec: null,
    unmeasured:
      `${inWindow.length} samples and ${new Set(inWindow.map((x) => x.committed)).size} distinct commits between ` +
      `10% and 90% of ${records} records committed, fewer than ${MIN_SAMPLES} and ${MIN_STEPS}: a run too short ` +
      'for a steady figure (give it more --records)',
  }
}

export async function runHeadless(
  o: RunOptions,
  time: Time = new SystemTime(),
  onRuntime?: (r: LabRuntime) => void,
): Promise<RunResult> {
  // Faults fall while input is fed; a prefilled run has written it all before its workers start.
  if (o.prefill && (o.killEveryMs !== null || o.dropAcks > 0))
    throw new Error(
      'a prefilled run injects no faults: kills and lost acks fall while input is fed (leave out prefill to ' +
        'inject them)',
    )
  const config = runConfig(o)
  const settings: RuntimeSettings = {
    config,
    workers: o.workers,
    partitions: o.partitions,
    ratePerSec: o.rate,
    maxRecords: o.records,
    keys: o.keys ?? 100,
    seed: o.seed,
    restartAfterMs: o.restartAfterMs,
    // A crashed worker is replaced like a killed one (crashHandler), on either backend.
    restartFailed: true,
    prefill: o.prefill,
  }
  const lab: LabRuntime =
    o.backend === 'kafka'
      ? await kafkaRuntime(o, settings, time)
      : new InProcessRuntime(time, {
          ...settings,
          latency: o.latency,
          deserializationPolicy: 'log-and-continue',
          traceIntervalMs: 1_000,
        })
  onRuntime?.(lab)
  try {
    return await runOn(lab, o, config, time)
  } finally {
    await lab.close()
  }
}

async function kafkaRuntime(o: RunOptions, settings: RuntimeSettings, time: Time): Promise<LabRuntime> {
  if (!o.kafka) throw new Error('the kafka backend needs brokers')
  if (!(time instanceof SystemTime)) throw new Error('the kafka backend runs on the system clock only')
  const { WorkerProcessRuntime } = await import('../runtime/kafka/worker-process-runtime.ts')
  settings.config['application.id'] =
    o.kafka.applicationId ??
    `eoscope-run-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`
  // Kafka's own group timeouts unless the user set session.timeout.ms (the embedded log's are a demo's).
  const { withKafkaGroupTimeouts, KAFKA_GROUP_TIMEOUTS } = await import('../log/kafka/capabilities.ts')
  settings.config = withKafkaGroupTimeouts(settings.config, o.sessionTimeoutMs ?? KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs)
  return new WorkerProcessRuntime(time, {
    ...settings,
    client: { ...o.kafka.client, clientId: o.kafka.client.clientId ?? 'eoscope' },
    workerLogs: o.kafka.workerLogs,
    ackRoute: o.dropAcks > 0 ? 'ack-drop-proxy' : 'direct',
    localBrokersDir: o.kafka.localBrokersDir ?? null,
    network: o.kafka.network,
  })
}

async function runOn(lab: LabRuntime, o: RunOptions, config: StreamsConfig, time: Time): Promise<RunResult> {
  const startedAt = time.now()
  await lab.start()
  // With a prefilled backlog the run's time starts when the workers do, after the input is written.
  const started = o.prefill ? time.now() : startedAt

  const feedMs = Number.isFinite(o.rate) && o.rate > 0 ? (o.records / o.rate) * 1000 : ACK_DROPS_FEED_MS
  const brokerKills: RunBrokerKill[] = []
  const faults = scheduleFaults(lab, o, feedMs, started, brokerKills)
  // The watchdog ends a run that makes no progress; one that does gets time for its kills' detections.
  const deadline = started + (o.timeoutMs ?? defaultRunTimeoutMs(lab.config))
  const watchdog = new ProgressWatchdog(lab, o.stallAfterMs ?? stallLimitMs(lab.config))
  let completed = true
  let stalled: Stall | null = null
  // The committed total at every turn of the wait: the steady rate is read from these after the run.
  const samples: CommittedSample[] = []
  while (!lab.caughtUp()) {
    samples.push({ at: time.now(), committed: lab.committedTotal() })
    stalled = watchdog.check()
    if (time.now() > deadline || stalled !== null) {
      completed = false
      break
    }
    await time.sleep(10)
  }
  watchdog.close()
  const finished = time.now()
  faults.stop()
  await faults.done
  const liveAtEnd = await liveWorkersAtEnd(lab, o)
  await lab.stop()
  await lab.settle()

  const target = validationTarget(lab)
  // A broker away when the run ends (its partitions' leaders moving) answers later: the reads are retried.
  const afterRun = { deadlineMs: KAFKA_CLIENT_DEADLINES_MS['default.api.timeout.ms'] }
  const report = await retryRetriableUntilDeadline(time, afterRun, () =>
    validateRun(lab.connection.inspector(), target),
  )
  const { transactions, markers } = await retryRetriableUntilDeadline(time, afterRun, () =>
    transactionsAndMarkersInLog(lab.connection.inspector(), [
      target.outputTopic,
      target.changelogTopic,
      target.dlqTopic,
    ]),
  )
  await o.beforeClose?.(lab)
  const durationMs = finished - started
  return {
    backend: lab.backend,
    ...(lab.notes.length > 0 ? { notes: lab.notes } : {}),
    guarantee: o.guarantee,
    commitIntervalMs: config['commit.interval.ms'],
    records: o.records,
    ...(o.kafka?.network
      ? {
          network: {
            oneWayLatencyMs: o.kafka.network.request.latencyMs,
            jitterMs: o.kafka.network.request.jitterMs,
          },
        }
      : {}),
    inputRate: inputRateOf(o),
    outputRecords: report.outputRecords,
    throughputPerSec: durationMs > 0 ? Math.round((lab.committedTotal() / durationMs) * 1000) : 0,
    steadyThroughput: steadyThroughputOf(samples, o.records),
    durationMs,
    ...(stalled === null ? correctnessFigures(report) : STALLED_FIGURES),
    kills: lab.kills,
    crashes: lab.crashes.map((c) => ({
      workerId: c.workerId,
      slotId: c.slotId,
      t: c.atMs - started,
      cause: c.cause,
      exitCode: c.exitCode,
      signal: c.signal,
    })),
    crashHandler: 'REPLACE_THREAD',
    ...(o.brokerFaults ? { brokerKills } : {}),
    workers: { started: o.workers, liveAtEnd },
    ...withWarnings(runWarnings(o, { liveAtEnd, kills: lab.kills, durationMs })),
    droppedAcks: lab.droppedAcks,
    fenced: lab.fenced,
    transactions: { ...transactions, countedBy: 'producer id and epoch' },
    transactionMarkers: { ...markers, countedBy: 'marker per partition' },
    transactionsReported: lab.transactionCounts(),
    recoveries: lab.tracker.recoveries.map((r) => ({
      workerId: r.workerId,
      t0: r.t0 - started,
      ms: r.t1 === null ? null : r.t1 - r.t0,
      redone: redone(r),
      phases: phaseDurations(r),
    })),
    duplicateKeys: report.duplicateKeys.map((k) => ({ key: k.key, count: k.count })),
    completed,
    ...(stalled === null
      ? {}
      : {
          stalled,
          unavailableFigures: FIGURES.map((figure) => ({ figure, reason: `the run stalled: ${stalled.reason}` })),
        }),
    definitions: RUN_DEFINITIONS,
    validation: report,
  }
}

/**
 * Live workers once the input is all committed: a slot whose worker was killed or crashed shortly
 * before counts once its replacement, due after restartAfterMs, has started (waited for that long
 * and 2 s more).
 */
async function liveWorkersAtEnd(lab: LabRuntime, o: RunOptions): Promise<number> {
  const live = () => lab.liveSlots().length
  const until = lab.time.now() + o.restartAfterMs + 2_000
  while (live() < o.workers && lab.time.now() < until) await lab.time.sleep(50)
  return live()
}

const FIGURES = [
  'duplicates',
  'lost',
  'abortedReads',
  'abortedReadsUncommitted',
  'stateMismatches',
  'openTransactions',
] as const satisfies readonly (keyof CorrectnessFigures)[]
const STALLED_FIGURES: CorrectnessFigures = {
  duplicates: null,
  lost: null,
  abortedReads: null,
  abortedReadsUncommitted: null,
  stateMismatches: null,
  openTransactions: null,
}

/**
 * Where a kill without --kill-at-step falls. A worker process on Kafka dies at whatever instruction SIGKILL finds it
 * at. On the embedded log the workers share one thread, and a worker's code between two awaits runs to its end: a
 * timer's kill finds it only while a request of its is on the wire, never in the windows between, such as
 * at_most_once's between its commit and its produce. So each kill falls when the worker next reaches a step drawn
 * by the run's seed: every window of the loop is a step's (a kill on the wire is one at the step after the request).
 */
function killPointOf(lab: LabRuntime, drawn: Step): Step | null {
  return lab.backend === 'kafka' ? null : drawn
}

/** Kills every killEveryMs while input is still fed, and spreads the dropped acks over the feed. */
function scheduleFaults(
  lab: LabRuntime,
  o: RunOptions,
  feedMs: number,
  startedAtMs: number,
  brokerKills: RunBrokerKill[],
): { stop: () => void; done: Promise<void> } {
  let stopped = false
  const time = lab.time
  const rng = lab.random
  const loops: Promise<void>[] = []
  if (o.killEveryMs !== null && o.killEveryMs > 0) {
    const every = o.killEveryMs
    loops.push(
      (async () => {
        const open = () => lab.faultWindowOpen()
        const withTasks = () =>
          lab.liveSlots().filter((s) => s.process.state === 'running' && (s.worker?.tasks.size ?? 0) > 0)
        let committedAtKill = lab.committedTotal()
        while (!stopped && open()) {
          await time.sleep(every)
          if (stopped || !open()) break
          let live = withTasks()
          // Worker processes report their tasks every ~100 ms and lose them during rebalances: on
          // Kafka a kill that falls due then waits for a worker with tasks instead of being skipped.
          // It also waits for the group to commit something since the last kill: a kill there costs
          // up to session.timeout.ms of detection, and kills faster than recovery would starve the run.
          while (
            (live.length === 0 || lab.committedTotal() <= committedAtKill) &&
            lab.statusByMessages &&
            !stopped &&
            open()
          ) {
            await time.sleep(50)
            live = withTasks()
          }
          if (live.length === 0) continue
          const slot = rng.pick(live)
          committedAtKill = lab.committedTotal()
          lab.kill(slot.worker!.id, o.killAtStep ?? killPointOf(lab, rng.pick(STEPS)))
        }
      })(),
    )
  }
  if (o.brokerFaults) {
    const why = brokerFaultsRefusal(lab)
    if (why !== null) throw new Error(`--kill-broker-every: ${why}`)
    loops.push(brokerFaultLoop(lab, o.brokerFaults, startedAtMs, brokerKills, () => stopped))
  }
  if (o.dropAcks > 0) {
    const spacing = (feedMs * 0.8) / (o.dropAcks + 1)
    loops.push(
      (async () => {
        for (let i = 0; i < o.dropAcks && !stopped; i++) {
          await time.sleep(spacing)
          lab.dropAcks(1)
        }
      })(),
    )
  }
  return {
    stop: () => {
      stopped = true
    },
    done: Promise.all(loops).then(() => undefined),
  }
}
