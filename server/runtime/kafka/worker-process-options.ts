// What a worker-process runtime is started with.

import type { AckRoute } from '../../log/kafka/capabilities.ts'
import type { NetworkDelay } from '../../log/kafka/proxy/ack-drop-proxy.ts'
import type { Logger } from '../../logging.ts'
import type { KafkaClientConfig } from '../../log/kafka/kafka-connection.ts'
import type { LogProducer } from '../../log/types.ts'
import type { RuntimeSettings } from '../lab-runtime.ts'
import type { SpawnWorker } from './worker-spawn.ts'

/** A killed worker is replaced by a new process (restartAfterMs). */
export interface WorkerProcessRuntimeOptions extends RuntimeSettings {
  client: KafkaClientConfig
  traceIntervalMs?: number
  /** The load pauses while this many input records wait unconsumed (a saturating load that stays bounded). */
  maxBacklog?: number
  /** Start the load generator only when startLoad() is called (a benchmark waits for a stable group). */
  holdLoad?: boolean
  /** Worker processes' stderr to this process's log (default: kept, shown only when a worker fails). */
  workerLogs?: boolean
  /**
   * Wraps the load generator's producer (given a way to make a fresh one): a
   * soak retries sends across a broker restart.
   */
  wrapLoadProducer?: (make: () => LogProducer) => LogProducer
  /** Publish the application to the lab directory for workers started with --follow-lab (the dashboard's lab). */
  labDirectory?: 'publish'
  /** Keep the application's topics when it is retired (default: deleted). */
  keepTopics?: boolean
  logger?: Logger
  /**
   * Put the worker processes behind the ack-drop proxy so a produce ack can be lost on the real
   * broker (dropAcks). Ignored on a TLS connection (the connection's capabilities say why).
   */
  ackRoute?: AckRoute
  /**
   * The network between the worker processes and the brokers: the proxy holds each frame for a one-way delay in each
   * direction (as if the brokers were a network away). Puts the workers behind the proxy; refused on TLS.
   */
  network?: NetworkDelay
  /**
   * scripts/kafka-cluster.sh's KAFKA_DIR: its brokers may be killed and restarted
   * from the lab (capability broker-faults).
   */
  localBrokersDir?: string | null
  /** Starts a slot's worker process (default: `eoscope worker`, worker-spawn.ts); a test's fake processes. */
  spawnWorker?: SpawnWorker
}
