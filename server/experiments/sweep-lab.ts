// What the sweep runner needs from a lab, on either backend: the runtime itself (RunRuntime: kills,
// the recovery tracker, engine events, the validator's view of the logs) plus the few things a
// sweep does that a headless run does not: change the input rate on the fly, tell whether the group
// has settled, tell how far each worker is behind its input, and read the output topic for latency.
//
// - embedded: LabRuntime, as it is. Everything is read directly from the log and the workers.
// - kafka: KafkaLabRuntime (worker processes on a real cluster). The workers' task positions come
//   from their status messages (about every 100 ms); the input end offsets are polled from the
//   broker every END_POLL_MS; offset commits arrive on the telemetry topic with the committing
//   worker's own timestamp, up to a few hundred ms after the fact (hence eventLagMs). Every lab
//   uses its own application.id, so its group and topics are its own; they are deleted when the
//   lab is done with, to keep the broker small.

import type { Admin } from 'kafkajs'
import type { ProcessingGuarantee, StreamsConfig } from '../../lib/streams-config.ts'
import type { KafkaClientConfig } from '../log/kafka/kafka-client.ts'
import type { KafkaSecurity } from '../log/kafka/client-security.ts'
import { SystemTime, type Time } from '../log/time.ts'
import type { LogReader } from '../log/types.ts'
import { InProcessRuntime as LabRuntime } from '../lab/in-process-runtime.ts'
import type { WorkerProcessRuntime as KafkaLabRuntime } from '../lab/kafka/worker-process-runtime.ts'
import type { RunRuntime } from '../lab/run-runtime.ts'

export interface SweepLab {
  readonly runtime: RunRuntime
  readonly backend: 'embedded' | 'kafka'
  start(): Promise<void>
  setRate(ratePerSec: number): void
  /** Every input partition has a running task and the group has committed something. */
  settled(): boolean
  /** Per live worker: records appended to its partitions but not yet consumed by its tasks. */
  unconsumedByWorker(): number[]
  /** A reader of the logs (the output topic's latency window). */
  reader(): LogReader
  /** How long after an instant its engine events may still be on their way (0 on the embedded log). */
  readonly eventLagMs: number
  /** How long the group may take to settle at the start. */
  readonly settleTimeoutMs: number
  /**
   * After a clean stop and the validation: releases what is left. `keep` (a reason): a Kafka lab
   * keeps its topics for inspection and says so on stderr (the validator found something wrong).
   */
  close(keep?: string): Promise<void>
  /** Ends the lab without a clean stop (a throughput lab, or after a failure). */
  destroy(): Promise<void>
}

export interface SweepLabSpec {
  time: Time
  config: StreamsConfig
  workers: number
  partitions: number
  ratePerSec: number
  keys: number
  seed: number
  latencyModel: 'default' | 'off'
}

/** Where a Kafka sweep runs: the cluster, and a prefix for every application.id it creates. */
export interface SweepKafkaTarget {
  brokers: string[]
  /** TLS and SASL for every client of the sweep (worker processes read the same environment). */
  security?: KafkaSecurity
  /** Prefix of each lab's application.id (a fresh suffix per lab is added). */
  applicationIdPrefix?: string
  /** Worker processes' stderr to this process's stderr. */
  workerLogs?: boolean
}

/** What a Kafka sweep measures differently from the embedded one; reported with its results. */
export const KAFKA_SWEEP_NOTES: readonly string[] = [
  'Each lab (one for throughput, one for latency and the kill, per repetition) has its own application.id, group and topics, deleted afterwards.',
  'Worker positions come from their status messages (every ~100 ms): the saturated-load keeper and the position at kill are at most that old (the kill position is a lower bound).',
  'Processed throughput is computed from the offset commits the workers report on the telemetry topic, timed by their own clocks (same machine).',
  'End-to-end latency: from the input record\'s timestamp (set by the load generator\'s producer when it sends, CreateTime) to the first poll whose last stable offset includes the output record.',
  'Detection is observed by polling describeGroups every 100 ms; rebalance by describeGroups or the new owner\'s task-created event; fence, restore and catch-up from the new owner\'s telemetry.',
  'latencyModel does not apply: the latencies are the broker\'s and the machine\'s.',
]

const END_POLL_MS = 50

// ---- embedded --------------------------------------------------------------------------------

class EmbeddedSweepLab implements SweepLab {
  readonly backend = 'embedded' as const
  readonly eventLagMs = 0
  readonly settleTimeoutMs = 30_000
  readonly runtime: LabRuntime

  constructor(s: SweepLabSpec) {
    this.runtime = new LabRuntime(s.time, {
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
  }

  start(): Promise<void> {
    return this.runtime.start()
  }
  setRate(ratePerSec: number): void {
    this.runtime.generator.setRate(ratePerSec)
  }
  settled(): boolean {
    const lab = this.runtime
    let tasks = 0
    for (const s of lab.liveSlots()) for (const t of s.worker!.tasks.values()) if (t.state === 'running') tasks++
    return tasks === lab.options.partitions && lab.committedTotal() > 0
  }
  unconsumedByWorker(): number[] {
    const lab = this.runtime
    const ends = lab.inputEndOffsets()
    const out: number[] = []
    for (const s of lab.liveSlots()) {
      let n = 0
      for (const t of s.worker!.tasks.values()) if (t.state === 'running') n += Math.max(0, ends[t.partition]! - t.consumedOffset)
      out.push(n)
    }
    return out
  }
  reader(): LogReader {
    return this.runtime.connection.reader()
  }
  async close(): Promise<void> {}
  destroy(): Promise<void> {
    return this.runtime.destroy()
  }
}

// ---- kafka -----------------------------------------------------------------------------------

class KafkaSweepLab implements SweepLab {
  readonly backend = 'kafka' as const
  /** Telemetry is flushed every ~100 ms and read every 50 ms; a busy machine adds to it. */
  readonly eventLagMs = 750
  /** Worker processes take a few seconds to start and join. */
  readonly settleTimeoutMs = 60_000
  private ends: number[]
  private polling = false
  private poller: Promise<void> = Promise.resolve()
  private admin: Admin | null = null
  private closed = false
  private loadStarted = false

  constructor(
    readonly runtime: KafkaLabRuntime,
    private readonly makeAdmin: () => Admin,
  ) {
    this.ends = Array.from({ length: runtime.options.partitions }, () => 0)
  }

  async start(): Promise<void> {
    await this.runtime.start()
    this.admin = this.makeAdmin()
    await this.admin.connect()
    this.polling = true
    this.poller = this.pollEnds()
  }

  private async pollEnds(): Promise<void> {
    const t = this.runtime.time
    while (this.polling) {
      try {
        const offsets = await this.admin!.fetchTopicOffsets(this.runtime.topics.input)
        for (const o of offsets) if (o.partition < this.ends.length) this.ends[o.partition] = Math.max(this.ends[o.partition]!, Number(o.high))
      } catch {
        // A just-created topic may answer "not the leader" for a moment; the next poll retries.
      }
      await t.sleep(END_POLL_MS)
    }
  }

  setRate(ratePerSec: number): void {
    this.runtime.generator.setRate(ratePerSec)
  }
  /**
   * Worker processes take seconds to start and join: the load is held until every partition has a
   * running task (else the lab would start with a backlog that the warm-up might not absorb).
   */
  settled(): boolean {
    if (!this.loadStarted) {
      if (!this.runtime.groupSettled()) return false
      this.loadStarted = true
      this.runtime.startLoad()
    }
    return this.runtime.groupSettled() && this.runtime.committedTotal() > 0
  }
  unconsumedByWorker(): number[] {
    const out: number[] = []
    for (const s of this.runtime.liveSlots()) {
      let n = 0
      for (const t of s.worker?.tasks.values() ?? []) if (t.state === 'running') n += Math.max(0, this.ends[t.partition]! - t.consumedOffset)
      out.push(n)
    }
    return out
  }
  reader(): LogReader {
    return this.runtime.connection.reader()
  }

  private async stopPolling(): Promise<void> {
    this.polling = false
    await this.poller
    if (this.admin) await this.admin.disconnect().catch(() => {})
    this.admin = null
  }

  async close(keep?: string): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.stopPolling()
    // The workers have stopped: the topics can go before the connections do.
    if (keep === undefined) await this.runtime.deleteTopics().catch(() => {})
    else process.stderr.write(`eoscope sweep: kept the topics and group of application.id ${this.runtime.groupId} for inspection: ${keep}\n`)
    await this.runtime.close()
  }

  async destroy(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.stopPolling()
    // SIGKILL first, so that no worker is left writing to topics about to be deleted.
    this.runtime.generator.stop()
    for (const s of this.runtime.slots) if (s.child && s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
    await Promise.allSettled(this.runtime.slots.map((s) => s.exited))
    await this.runtime.deleteTopics().catch(() => {})
    await this.runtime.close()
  }
}

// ---- the factory -----------------------------------------------------------------------------

export function newEmbeddedSweepLab(spec: SweepLabSpec): SweepLab {
  return new EmbeddedSweepLab(spec)
}

let labSeq = 0

/** A fresh application.id: the prefix, a random token shared by the process, the cell and a counter. */
export function sweepApplicationId(prefix: string, guarantee: ProcessingGuarantee, commitIntervalMs: number, repetition: number, purpose: 'thr' | 'rec'): string {
  labSeq++
  return `${prefix}-${guarantee.replace(/_/g, '-')}-${commitIntervalMs}ms-r${repetition}-${purpose}-${labSeq}`
}

export async function newKafkaSweepLab(spec: SweepLabSpec, target: SweepKafkaTarget): Promise<SweepLab> {
  if (!(spec.time instanceof SystemTime)) throw new Error('the kafka backend runs on the system clock only')
  const { WorkerProcessRuntime: KafkaLabRuntime } = await import('../lab/kafka/worker-process-runtime.ts')
  const { createKafka } = await import('../log/kafka/kafka-client.ts')
  const client: KafkaClientConfig = { brokers: target.brokers, clientId: 'eoscope-sweep', ...target.security }
  const runtime = new KafkaLabRuntime(spec.time, {
    client,
    config: spec.config,
    workers: spec.workers,
    partitions: spec.partitions,
    ratePerSec: spec.ratePerSec,
    maxRecords: Number.POSITIVE_INFINITY,
    keys: spec.keys,
    seed: spec.seed,
    restartAfterMs: null,
    holdLoad: true,
    workerLogs: target.workerLogs,
  })
  return new KafkaSweepLab(runtime, () => createKafka(client, 'eoscope-sweep-ends').admin())
}
