// Where a guided scenario's labs run on a Kafka cluster: each lab the script starts is a fresh
// application (its own application.id, topics and group) of eoscope worker processes behind the
// ack-drop proxy, so a produce ack can be lost on the real broker. The scenario's setup is taken
// as on the embedded log, except the group's timeouts: never shorter than Kafka's
// (kafkaGroupTimeouts, session.timeout.ms 10 s), since a worker process a busy machine starves for
// a second must not be dropped from the group (a script's 1 s session is the embedded log's demo
// value). Close retires every lab it started (topics deleted).

import { streamsConfigFor } from '../../../lib/streams-config.ts'
import { KAFKA_GROUP_TIMEOUTS, withKafkaGroupTimeouts } from '../../log/kafka/capabilities.ts'
import type { KafkaClientConfig } from '../../log/kafka/kafka-connection.ts'
import { SystemTime } from '../../log/time.ts'
import type { ScenarioHost, ScenarioSetup } from '../scenario-setup.ts'
import { WorkerProcessRuntime, type WorkerProcessRuntimeOptions } from './worker-process-runtime.ts'

export interface KafkaScenarioHostOptions {
  client: KafkaClientConfig
  /** Each lab's application.id: `<prefix>-<time>-<n>`. */
  applicationIdPrefix?: string
  /** Worker processes' stderr to this process's log (default: kept, shown when a worker fails). */
  workerLogs?: boolean
}

export class KafkaScenarioHost implements ScenarioHost {
  readonly backend = 'kafka' as const
  readonly workerThreads = 'process-per-worker' as const
  readonly time = new SystemTime()
  readonly runtimes: WorkerProcessRuntime[] = []

  constructor(
    readonly seed: number,
    private readonly o: KafkaScenarioHostOptions,
  ) {}

  async start(setup: ScenarioSetup): Promise<WorkerProcessRuntime> {
    const prefix = this.o.applicationIdPrefix ?? 'eoscope-scenario'
    const applicationId = `${prefix}-${Date.now().toString(36)}-${this.runtimes.length + 1}`
    const r = new WorkerProcessRuntime(this.time, {
      ...scenarioRuntimeOptions(setup, applicationId, this.seed, {
        ...this.o.client,
        clientId: this.o.client.clientId ?? 'eoscope-scenario',
      }),
      workerLogs: this.o.workerLogs,
    })
    this.runtimes.push(r)
    await r.start()
    return r
  }

  /** Ends every lab it started and deletes their topics. */
  async close(): Promise<void> {
    for (const r of this.runtimes) {
      await r.close()
      await r.retire('ended').catch(() => {})
    }
  }
}

/**
 * A scenario's lab on Kafka, headless or on the dashboard: its setup, the group's timeouts
 * Kafka's, its workers behind the ack-drop proxy.
 */
export function scenarioRuntimeOptions(
  setup: ScenarioSetup,
  applicationId: string,
  seed: number,
  client: KafkaClientConfig,
): WorkerProcessRuntimeOptions {
  const config = streamsConfigFor(setup.guarantee, {
    applicationId,
    commitIntervalMs: setup.commitIntervalMs,
    transactionTimeoutMs: setup.transactionTimeoutMs,
    idempotence: setup.idempotence,
  })
  return {
    config: withKafkaGroupTimeouts(
      config,
      Math.max(setup.sessionTimeoutMs ?? 0, KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs),
    ),
    workers: setup.workers ?? 3,
    partitions: setup.partitions ?? 6,
    ratePerSec: setup.ratePerSec,
    maxRecords: setup.records,
    maxBacklog: setup.maxBacklog,
    keys: setup.keys ?? 20,
    seed,
    restartAfterMs: setup.restartAfterMs === undefined ? 500 : setup.restartAfterMs,
    client,
    traceIntervalMs: 250,
    ackRoute: 'ack-drop-proxy',
  }
}
