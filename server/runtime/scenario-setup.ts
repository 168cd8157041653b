// What a guided scenario asks of a runtime: the setup of each lab its script starts, and the host
// that starts them (HeadlessHost here on the embedded log, KafkaScenarioHost on a Kafka cluster).

import { streamsConfigFor, type ProcessingGuarantee } from '../../lib/streams-config.ts'
import { type LatencyModel, MODEL_MAX_POLL_RECORDS } from '../log/embedded/latency-model.ts'
import type { Time } from '../log/time.ts'
import { InProcessRuntime, type InProcessRuntimeOptions as InProcessOptions } from './in-process-runtime.ts'
import type { LabRuntime, WorkerThreads } from './lab-runtime.ts'

export interface ScenarioSetup {
  guarantee: ProcessingGuarantee
  commitIntervalMs?: number
  idempotence?: boolean
  workers?: number
  partitions?: number
  ratePerSec: number
  records: number
  restartAfterMs?: number | null
  sessionTimeoutMs?: number
  transactionTimeoutMs?: number
  latency?: 'default' | 'off'
  keys?: number
  maxBacklog?: number
  /**
   * 'measure': a lab started only to measure the engine (its throughput), validated by nobody. The
   * dashboard runs it off screen, beside the lab on screen, so that its figure is the engine's and
   * not shared with the dashboard's validator; it is deleted when the scenario ends.
   */
  role?: 'measure'
}

/** Where a scenario's labs run: a fresh runtime headless, or the dashboard's live lab. */
export interface ScenarioHost {
  readonly time: Time
  readonly seed: number
  /** The log the labs run on. */
  readonly backend: 'embedded' | 'kafka'
  /** Where its labs' workers run (one thread for all, or a process each). */
  readonly workerThreads: WorkerThreads
  /** Starts a lab with this setup; on the dashboard it becomes the lab on screen. */
  start(setup: ScenarioSetup): Promise<LabRuntime>
}

export function runtimeOptions(setup: ScenarioSetup, seed: number): InProcessOptions {
  const config = streamsConfigFor(setup.guarantee, {
    applicationId: 'eoscope',
    commitIntervalMs: setup.commitIntervalMs,
    sessionTimeoutMs: setup.sessionTimeoutMs,
    transactionTimeoutMs: setup.transactionTimeoutMs,
    idempotence: setup.idempotence,
  })
  return {
    config,
    workers: setup.workers ?? 3,
    partitions: setup.partitions ?? 6,
    ratePerSec: setup.ratePerSec,
    maxRecords: setup.records,
    keys: setup.keys ?? 20,
    seed,
    latency: setup.latency ?? 'default',
    restartAfterMs: setup.restartAfterMs === undefined ? 500 : setup.restartAfterMs,
    deserializationPolicy: 'log-and-continue',
    traceIntervalMs: 250,
    maxBacklog: setup.maxBacklog,
  }
}

/**
 * A host that starts fresh runtimes (headless, tests). `costs`: the latency model every lab with
 * the latency model on is charged instead of the default one (in virtual time, MODEL_COSTS, whose
 * per-record cost stands for the CPU a virtual clock does not see).
 */
export class HeadlessHost implements ScenarioHost {
  readonly backend = 'embedded' as const
  readonly workerThreads = 'shared' as const
  readonly runtimes: InProcessRuntime[] = []
  constructor(
    readonly time: Time,
    readonly seed: number,
    private readonly costs: LatencyModel | null = null,
  ) {}
  async start(setup: ScenarioSetup): Promise<InProcessRuntime> {
    const options = runtimeOptions(setup, this.seed)
    // A record's cost in the model holds its worker's thread: a poll of 1,000 records would hold it
    // for a second, past a short commit interval. The model polls what the model sweep polls.
    if (this.costs?.recordMs)
      options.config['max.poll.records'] = Math.min(options.config['max.poll.records'], MODEL_MAX_POLL_RECORDS)
    const r = new InProcessRuntime(this.time, options)
    if (this.costs !== null && r.options.latency !== 'off') r.cluster.latency = { ...this.costs }
    this.runtimes.push(r)
    await r.start()
    return r
  }
  async close(): Promise<void> {
    for (const r of this.runtimes) await r.close()
  }
}
