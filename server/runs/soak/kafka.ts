// The soak on a real Kafka broker: worker processes (`eoscope worker`, KafkaLabRuntime), the load
// from an idempotent producer that retries across outages, and broker restarts (the local broker
// stopped and started again mid-run, at least one in every 50 faults). Pauses are SIGSTOP and
// SIGCONT; kills at a step travel on the commands topic. What Kafka cannot inject follows from its
// capabilities (soakNotes); the validator reads the real topics, at quiet points while running.

import { defaultStreamsConfig } from '../../../lib/streams-config.ts'
import { KAFKA_CAPABILITIES, KAFKA_GROUP_TIMEOUTS, withKafkaGroupTimeouts } from '../../log/kafka/capabilities.ts'
import { SystemTime } from '../../log/time.ts'
import { WorkerProcessRuntime } from '../../runtime/kafka/worker-process-runtime.ts'
import { RetryingLoadProducer } from '../../runtime/kafka/retrying-load-producer.ts'
import { brokerRestartFault, scriptBrokerRestart, type BrokerOutage } from './broker-restart.ts'
import { brokerKillFault, type BrokerKill } from './broker-kill.ts'
import { soakNotes, type SoakBackend, type SoakSession, type SoakSpec } from './soak.ts'

export { scriptBrokerRestart }

export interface KafkaSoakOptions {
  brokers: string[]
  /** Stops the broker and starts it again (default: scripts/kafka-broker.sh stop, then start, on the brokers' port). */
  restartBroker?: () => Promise<void>
  workers?: number
  partitions?: number
  /** Worker processes' stderr to this process's stderr. */
  workerLogs?: boolean
  /** session.timeout.ms of the workers (default: KAFKA_GROUP_TIMEOUTS's). */
  sessionTimeoutMs?: number
  /** Delete the run's topics at the end of a passed run (default true). */
  deleteTopics?: boolean
  /**
   * A cluster of three started by scripts/kafka-cluster.sh (its KAFKA_DIR): the soak SIGKILLs its
   * brokers (brokerKill) instead of restarting a single broker.
   */
  localBrokersDir?: string
}

/** What a Kafka soak reports beyond the shared result. */
export interface KafkaSoakFigures {
  applicationId: string
  brokerRestarts: BrokerOutage[]
  /** Three-broker cluster: each broker SIGKILL, its target and how long its broker was down. */
  brokerKills?: BrokerKill[]
  /** Worker processes that exited with an error (mostly during broker outages) and were replaced. */
  workerFailures: number
  input: {
    sentRecords: number
    retriedSends: number
    replacedProducers: number
    failedSends: number
    failedRecords: number
  }
}

const KAFKA_FAULT_NOTES = [
  'brokerRestart stops the local broker (scripts/kafka-broker.sh stop: SIGTERM, controlled shutdown) and ' +
    'starts it again mid-run, with the load and the workers running; the load generator retries its sends across ' +
    'the outage (a send that fails for good is a violation), and worker processes that fail during the outage ' +
    'are replaced.',
  'commitIntervalChange restarts every worker process cleanly (SIGTERM: commit, leave the group) with the new ' +
    'commit.interval.ms, as reconfigure does on the embedded backend.',
  'pause is SIGSTOP for session.timeout.ms plus 0.1 to 1.5 s, then SIGCONT: the worker comes back as a zombie.',
]

export const KAFKA_SOAK_NOTES: readonly string[] = soakNotes(KAFKA_CAPABILITIES, KAFKA_FAULT_NOTES)

const CLUSTER_FAULT_NOTES = [
  'brokerKill SIGKILLs a broker of the local three-broker cluster (scripts/kafka-cluster.sh: replication ' +
    'factor 3, min.insync.replicas 2, transaction state log replicated 3 with min ISR 2) with the load and the ' +
    'workers running and transactions open, no controlled shutdown: half of the kills aim at the broker ' +
    "coordinating the most of the run's transactional ids, half at a leader of an input partition. The broker is " +
    "started again in the background; one broker is down at a time. brokerRestart (a single broker's SIGTERM) is " +
    'not used on the cluster.',
  ...KAFKA_FAULT_NOTES.slice(1),
]

/** The notes of a soak on the three-broker cluster. */
export const KAFKA_CLUSTER_SOAK_NOTES: readonly string[] = soakNotes(KAFKA_CAPABILITIES, CLUSTER_FAULT_NOTES)

export function kafkaSoak(o: KafkaSoakOptions): SoakBackend<KafkaSoakFigures> {
  const time = new SystemTime()
  return {
    time,
    pace: { faultGapMs: [300, 900], validateEveryMs: 30_000, drainTimeoutMs: 180_000 },
    pausesAtStep: false,
    periodicChecks: 'quiet',
    notes: o.localBrokersDir ? CLUSTER_FAULT_NOTES : KAFKA_FAULT_NOTES,
    open: (spec) => openKafka(time, o, spec),
  }
}

function openKafka(time: SystemTime, o: KafkaSoakOptions, spec: SoakSpec): SoakSession<KafkaSoakFigures> {
  const mode = spec.mode === 'exactly-once' ? 'eos' : 'alos'
  const startedAt = Date.now().toString(36)
  const applicationId = `eoscope-soak-${mode}-${startedAt}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`
  let loadProducer: RetryingLoadProducer | null = null
  const lab = new WorkerProcessRuntime(time, {
    client: { brokers: o.brokers, clientId: applicationId },
    config: withKafkaGroupTimeouts(
      defaultStreamsConfig(spec.guarantee, applicationId),
      o.sessionTimeoutMs ?? KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs,
    ),
    workers: o.workers ?? 3,
    partitions: o.partitions ?? 6,
    ratePerSec: spec.ratePerSec,
    maxRecords: Number.POSITIVE_INFINITY,
    keys: 100,
    seed: spec.seed,
    restartAfterMs: 300,
    restartFailed: true,
    workerLogs: o.workerLogs,
    wrapLoadProducer: (make) => (loadProducer = new RetryingLoadProducer(make)),
    localBrokersDir: o.localBrokersDir ?? null,
  })
  const outages: BrokerOutage[] = []
  const brokerKills: BrokerKill[] = []
  const killFault = o.localBrokersDir ? brokerKillFault(brokerKills) : null
  const brokerFault =
    killFault ??
    brokerRestartFault(o.restartBroker ?? scriptBrokerRestart(o.brokers[0]!), spec.faults, lab.random, outages)
  // The lab's background sends (a kill command, say) must not end the process during an outage.
  const clientErrors: string[] = []
  const onUnhandled = (e: unknown) => {
    if (clientErrors.length < 20) clientErrors.push(e instanceof Error ? e.message : String(e))
  }
  process.on('unhandledRejection', onUnhandled)
  const sends = () => loadProducer as RetryingLoadProducer | null
  return {
    runtime: lab,
    faults: [brokerFault],
    reconfigure: (changes) => lab.reconfigure({ ...lab.config, ...changes }),
    inputEnds: () => inputHighWatermarks(lab),
    violations: () => {
      const lp = sends()
      return lp && lp.failedSends > 0
        ? [`${lp.failedSends} input sends (${lp.failedRecords} records) failed for good`]
        : []
    },
    figures: () => {
      const lp = sends()
      return {
        applicationId,
        brokerRestarts: outages,
        ...(o.localBrokersDir ? { brokerKills } : {}),
        workerFailures: lab.failedExits,
        input: {
          sentRecords: lp?.sentRecords ?? 0,
          retriedSends: lp?.retriedSends ?? 0,
          replacedProducers: lp?.replacedProducers ?? 0,
          failedSends: lp?.failedSends ?? 0,
          failedRecords: lp?.failedRecords ?? 0,
        },
      }
    },
    notes: () =>
      clientErrors.length ? [`background client errors during the run (retried): ${clientErrors.join(' | ')}`] : [],
    async close(outcome) {
      try {
        // A killed broker being started again comes back before the run's clients go.
        await killFault?.settled()
        if (outcome === 'passed' && o.deleteTopics !== false) await lab.deleteTopics().catch(() => {})
        await lab.close().catch(() => {})
      } finally {
        process.off('unhandledRejection', onUnhandled)
      }
    },
  }
}

/** The input topic's high watermarks, asked of the cluster (throws while it is unreachable). */
async function inputHighWatermarks(lab: WorkerProcessRuntime): Promise<number[]> {
  const inspector = lab.connection.inspector()
  const offsets = await Promise.all(
    Array.from({ length: lab.partitions }, (_, partition) => inspector.offsets({ topic: lab.topics.input, partition })),
  )
  return offsets.map((o) => o.highWatermark)
}
