// The dashboard's lab on a Kafka cluster: the worker-process runtimes the one Lab runs over
// (server/lab/kafka-lab.ts). Each start and each reset gets a fresh application.id
// (`<prefix>-<time>`), published to the lab directory for workers started elsewhere with
// --follow-lab; the load retries its sends through an outage.

import { type ProcessingGuarantee, streamsConfigFor } from '../../../lib/streams-config.ts'
import { KAFKA_GROUP_TIMEOUTS, withKafkaGroupTimeouts } from '../../log/kafka/capabilities.ts'
import type { KafkaClientConfig } from '../../log/kafka/kafka-client.ts'
import type { NetworkDelay } from '../../log/kafka/proxy/ack-drop-proxy.ts'
import { SystemTime } from '../../log/time.ts'
import { labRuntimeSettings, type RuntimeFactory } from '../runtime-factory.ts'
import { scenarioRuntimeOptions } from './kafka-scenario-host.ts'
import { RetryingLoadProducer } from './retrying-load-producer.ts'
import { WorkerProcessRuntime } from './worker-process-runtime.ts'

export interface KafkaLabOptions {
  client: KafkaClientConfig
  /** Each lab (and each reset) gets a fresh application.id: `<prefix>-<time>`. */
  applicationIdPrefix?: string
  partitions?: number
  workers?: number
  ratePerSec?: number
  guarantee?: ProcessingGuarantee
  seed?: number
  snapshotIntervalMs?: number
  validateIntervalMs?: number
  /** Worker processes' stderr to this one's log (default: kept, shown when a worker fails). */
  workerLogs?: boolean
  /** Delete the previous application's topics on reset and close (default true). */
  deleteTopics?: boolean
  /** scripts/kafka-cluster.sh's KAFKA_DIR (KAFKA_CLUSTER_DIR): the broker cards may kill and restart its brokers. */
  localBrokersDir?: string | null
  /** The network between the lab's (and its scenarios') worker processes and the brokers: a delaying proxy. */
  network?: NetworkDelay
}

/** How long the load generator retries one send through an outage before it gives up (and says so). */
const LOAD_SEND_DEADLINE_MS = 15 * 60_000

/** Worker processes on a Kafka cluster, one fresh application per runtime. */
export function workerProcessRuntimes(o: KafkaLabOptions): RuntimeFactory {
  const time = new SystemTime()
  const seed = o.seed ?? 1
  return {
    time,
    seed,
    backend: 'kafka',
    workerThreads: 'process-per-worker',
    create: ({ guarantee, ratePerSec }) =>
      new WorkerProcessRuntime(time, {
        ...labRuntimeSettings(
          withKafkaGroupTimeouts(
            streamsConfigFor(guarantee, {
              applicationId: `${o.applicationIdPrefix ?? 'eoscope-lab'}-${Date.now().toString(36)}`,
            }),
            KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs,
          ),
          ratePerSec,
          o,
        ),
        client: o.client,
        restartFailed: true,
        workerLogs: o.workerLogs,
        wrapLoadProducer: (make) => new RetryingLoadProducer(make, LOAD_SEND_DEADLINE_MS),
        labDirectory: 'publish',
        keepTopics: o.deleteTopics === false,
        // The lab's Drop-ack button works on Kafka through the ack-drop proxy (not on TLS: its capabilities say why).
        ackRoute: 'ack-drop-proxy',
        localBrokersDir: o.localBrokersDir ?? null,
        ...(o.network === undefined ? {} : { network: o.network }),
      }),
    // A scenario's lab is not published to the lab directory: a worker following the lab sits the script out.
    forScenario: (setup) =>
      new WorkerProcessRuntime(time, {
        ...scenarioRuntimeOptions(
          setup,
          `${o.applicationIdPrefix ?? 'eoscope-lab'}-${Date.now().toString(36)}-scenario`,
          seed,
          o.client,
        ),
        restartFailed: true,
        workerLogs: o.workerLogs,
        wrapLoadProducer: (make) => new RetryingLoadProducer(make, LOAD_SEND_DEADLINE_MS),
        keepTopics: o.deleteTopics === false,
        localBrokersDir: o.localBrokersDir ?? null,
        ...(o.network === undefined ? {} : { network: o.network }),
      }),
  }
}
