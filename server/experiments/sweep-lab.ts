// Where a sweep's labs run. The runner drives each lab's runtime directly (LabRuntime: start,
// rate, kills, the recovery tracker, engine events, the validator's view, stop); a backend only
// makes the runtime and says what it does differently:
//
// - embedded: LabRuntime, in process. The input end offsets are read from the log at every look;
//   engine events arrive at once; a read of the output takes no time.
// - kafka: KafkaLabRuntime (worker processes on a real cluster, system clock only). The workers'
//   task positions come from their status messages (about every 100 ms); the input end offsets are
//   asked of the broker every END_POLL_MS; offset commits arrive on the telemetry topic with the
//   committing worker's own timestamp, up to a few hundred ms after the fact (hence eventLagMs).
//   Every lab uses its own application.id, so its group and topics are its own; they are deleted
//   when the lab is done with, to keep the broker small.

import type { Admin } from 'kafkajs'
import type { ProcessingGuarantee, StreamsConfig } from '../../lib/streams-config.ts'
import type { Logger } from '../logging.ts'
import type { KafkaClientConfig } from '../log/kafka/kafka-client.ts'
import { SystemTime, type Time } from '../log/time.ts'
import { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import type { LatencyModel } from '../log/embedded/latency-model.ts'
import type { SweepKafkaTarget } from './sweep-settings.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'

export interface SweepLabSpec {
  time: Time
  config: StreamsConfig
  workers: number
  partitions: number
  /** The load at the start: 0 where the load waits for the group to settle. */
  ratePerSec: number
  keys: number
  seed: number
  latencyModel: 'default' | 'off'
}

/** What a lab is for: the saturated throughput window, or latency then the kill and its recovery. */
export type LabPurpose = 'thr' | 'rec'

/** A lab made by a backend: its runtime (driven directly) and what only the backend knows how to do with it. */
export interface LeasedLab {
  readonly runtime: LabRuntime
  /** The input topic's end offsets (throws while the log cannot answer). */
  inputEnds(): Promise<number[]>
  /**
   * After a clean stop and the validation: releases what is left. `keep` (a reason): the lab's
   * topics stay for inspection where a backend deletes them otherwise (the validator found something wrong).
   */
  release(keep?: string): Promise<void>
  /** Ends the lab without a clean stop (a throughput lab, or after a failure). */
  discard(): Promise<void>
}

export interface SweepBackend {
  /** How long after an instant its engine events may still be on their way. */
  readonly eventLagMs: number
  /** How long the group may take to settle at the start. */
  readonly settleTimeoutMs: number
  /**
   * When a lab's load begins: with the lab (in-process workers join at once), or once every
   * partition has a running task (worker processes take seconds to start and join; a load begun
   * before would leave a backlog that the warm-up might not absorb).
   */
  readonly loadStart: 'with-the-lab' | 'once-settled'
  /** How often the input end offsets are asked for while the load is kept saturated (0: at every look). */
  readonly endsPollMs: number
  /** How the latency window reads the output: in process (a read takes no time) or with a round trip per read. */
  readonly outputReads: 'in-process' | 'round-trip'
  newLab(spec: SweepLabSpec, purpose: LabPurpose, repetition: number): Promise<LeasedLab>
}

/** What a Kafka sweep measures differently from the embedded one; reported with its results. */
export const KAFKA_SWEEP_NOTES: readonly string[] = [
  'Each lab (one for throughput, one for latency and the kill, per repetition) has its own application.id, ' +
    'group and topics, deleted afterwards.',
  'Worker positions come from their status messages (every ~100 ms): the saturated-load keeper and the ' +
    'position at kill are at most that old (the kill position is a lower bound).',
  'Processed throughput is computed from the offset commits the workers report on the telemetry topic, timed ' +
    'by their own clocks (same machine).',
  "End-to-end latency: from the input record's timestamp (set by the load generator's producer when it sends, " +
    'CreateTime) to the first poll whose last stable offset includes the output record.',
  'Detection is observed by polling describeGroups every 100 ms; rebalance by describeGroups or the new ' +
    "owner's task-created event; fence, restore and catch-up from the new owner's telemetry.",
  "latencyModel does not apply: the latencies are the broker's and the machine's.",
]

const END_POLL_MS = 50

/**
 * What the model sweep changes in each embedded lab: its costs instead of the latency
 * model, and how often its members heartbeat.
 */
export interface ModelLab {
  costs: LatencyModel
  heartbeatIntervalMs: number
}

/** The embedded log with the model's costs and heartbeats (the model sweep, in virtual time). */
export function modelSweepBackend(model: ModelLab): SweepBackend {
  return {
    ...EMBEDDED_SWEEP_BACKEND,
    async newLab(spec, purpose, repetition) {
      const config = { ...spec.config, 'heartbeat.interval.ms': model.heartbeatIntervalMs }
      const lab = await EMBEDDED_SWEEP_BACKEND.newLab({ ...spec, config }, purpose, repetition)
      ;(lab.runtime as InProcessRuntime).cluster.latency = { ...model.costs }
      return lab
    },
  }
}

export const EMBEDDED_SWEEP_BACKEND: SweepBackend = {
  eventLagMs: 0,
  settleTimeoutMs: 30_000,
  loadStart: 'with-the-lab',
  endsPollMs: 0,
  outputReads: 'in-process',
  async newLab(s) {
    const runtime = new InProcessRuntime(s.time, {
      config: s.config,
      workers: s.workers,
      partitions: s.partitions,
      ratePerSec: s.ratePerSec,
      maxRecords: Number.POSITIVE_INFINITY,
      keys: s.keys,
      seed: s.seed,
      latency: s.latencyModel,
      restartAfterMs: null,
      deserializationPolicy: 'log-and-continue',
      traceIntervalMs: 1_000,
    })
    return {
      runtime,
      inputEnds: async () => runtime.inputEndOffsets(),
      release: async () => {},
      discard: () => runtime.destroy(),
    }
  },
}

/** A topic's high watermarks, asked of the cluster on an admin client connected at the first call. */
class EndOffsets {
  private admin: Admin | null = null
  private connecting: Promise<void> | null = null

  constructor(
    private readonly makeAdmin: () => Admin,
    private readonly topic: string,
    private readonly partitions: number,
  ) {}

  async fetch(): Promise<number[]> {
    if (!this.connecting) {
      this.admin = this.makeAdmin()
      // A failed connect is tried again at the next call.
      this.connecting = this.admin.connect().catch((e: unknown) => {
        this.connecting = null
        throw e
      })
    }
    await this.connecting
    const out = Array.from({ length: this.partitions }, () => 0)
    for (const o of await this.admin!.fetchTopicOffsets(this.topic))
      if (o.partition < out.length) out[o.partition] = Number(o.high)
    return out
  }

  async close(): Promise<void> {
    if (this.admin) await this.admin.disconnect().catch(() => {})
    this.admin = null
  }
}

let labSeq = 0

/** A fresh application.id: the prefix, a random token shared by the process, the cell and a counter. */
export function sweepApplicationId(
  prefix: string,
  guarantee: ProcessingGuarantee,
  commitIntervalMs: number,
  repetition: number,
  purpose: LabPurpose,
): string {
  labSeq++
  return `${prefix}-${guarantee.replace(/_/g, '-')}-${commitIntervalMs}ms-r${repetition}-${purpose}-${labSeq}`
}

/**
 * Worker processes take a few seconds to start and join; telemetry is flushed every ~100 ms and
 * read every 50 ms, and a busy machine adds to it.
 */
export function kafkaSweepBackend(target: SweepKafkaTarget, log: Logger): SweepBackend {
  const prefix = target.applicationIdPrefix ?? 'eoscope-sweep'
  return {
    eventLagMs: 750,
    settleTimeoutMs: 60_000,
    loadStart: 'once-settled',
    endsPollMs: END_POLL_MS,
    outputReads: 'round-trip',
    async newLab(spec, purpose, repetition) {
      if (!(spec.time instanceof SystemTime)) throw new Error('the kafka backend runs on the system clock only')
      const config = {
        ...spec.config,
        'application.id': sweepApplicationId(
          prefix,
          spec.config['processing.guarantee'],
          spec.config['commit.interval.ms'],
          repetition,
          purpose,
        ),
      }
      const { WorkerProcessRuntime } = await import('../runtime/kafka/worker-process-runtime.ts')
      const { createKafka } = await import('../log/kafka/kafka-client.ts')
      const client: KafkaClientConfig = { brokers: target.brokers, clientId: 'eoscope-sweep', ...target.security }
      const runtime = new WorkerProcessRuntime(spec.time, {
        client,
        config,
        workers: spec.workers,
        partitions: spec.partitions,
        ratePerSec: spec.ratePerSec,
        maxRecords: Number.POSITIVE_INFINITY,
        keys: spec.keys,
        seed: spec.seed,
        restartAfterMs: null,
        workerLogs: target.workerLogs,
        network: target.network,
      })
      // The end offsets are asked for on a client of their own, so that the
      // runtime's group polls never wait behind them.
      const ends = new EndOffsets(
        () => createKafka(client, 'eoscope-sweep-ends').admin(),
        runtime.topics.input,
        spec.partitions,
      )
      let released = false
      return {
        runtime,
        inputEnds: () => ends.fetch(),
        async release(keep) {
          if (released) return
          released = true
          await ends.close()
          // The workers have stopped: the topics can go before the connections do.
          if (keep === undefined) await runtime.deleteTopics().catch(() => {})
          else
            log.warn(
              { event: 'kept-topics', applicationId: runtime.groupId, reason: keep },
              `kept the topics and group of application.id ${runtime.groupId} for inspection: ${keep}`,
            )
          await runtime.close()
        },
        async discard() {
          if (released) return
          released = true
          await ends.close()
          // SIGKILL first, so that no worker is left writing to topics about to be deleted.
          runtime.generator.stop()
          for (const s of runtime.slots)
            if (s.child && s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
          await Promise.allSettled(runtime.slots.map((s) => s.exited))
          await runtime.deleteTopics().catch(() => {})
          await runtime.close()
        },
      }
    },
  }
}
