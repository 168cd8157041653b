// One eoscope worker as an operating-system process on a Kafka cluster: a StreamWorker on a
// KafkaConnection, its telemetry published to `<application.id>-telemetry` (a plain producer,
// batched every ~100 ms) and its commands read from `<application.id>-commands`.
//
// A kill is SIGKILL and nothing else: a worker told to die at a step first publishes where it
// stands (its telemetry, on its own non-transactional producer: the engine's producers, consumer
// and transactions are left exactly as they are), then sends SIGKILL to itself.

import { hostname } from 'node:os'
import type { Step } from '../../../lib/lab-protocol.ts'
import type { StreamsConfig } from '../../../lib/streams-config.ts'
import { StreamWorker } from '../../engine/stream-worker.ts'
import { KAFKA_CLIENT_DEADLINES_MS, retryRetriableUntilDeadline } from '../../engine/retry-until-deadline.ts'
import type { EngineEvent } from '../../engine/telemetry.ts'
import { KafkaConnection, type KafkaClientConfig } from '../../log/kafka/kafka-connection.ts'
import { SystemTime } from '../../log/time.ts'
import type { LogProducer } from '../../log/types.ts'
import { requireGuarantee } from '../../log/capabilities.ts'
import type { Logger } from '../../logging.ts'
import { workerStatusOf } from '../runtime-common.ts'
import {
  isWorkerCommand,
  kafkaAppTopics,
  kafkaAppTopicSpecs,
  type TelemetryEnvelope,
  type WorkerCommand,
} from './kafka-app.ts'
import { componentLogger } from './kafka-log.ts'
import { FailureStreak } from './failure-streak.ts'

export interface KafkaWorkerOptions {
  client: KafkaClientConfig
  config: StreamsConfig
  slotId: string
  workerId: string
  /** Creates the application's topics with this many partitions if they are missing. */
  partitions: number
  /** false: the topics must exist already (a worker following a lab never recreates a deleted application). */
  createTopics?: boolean
  flushIntervalMs?: number
  traceIntervalMs?: number
}

const FLUSH_MS = 100

/** Retries a call that a just-created topic may fail transiently (its leader is still being elected). */
export async function retrying<T>(call: () => Promise<T>, deadlineMs: number): Promise<T> {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    try {
      return await call()
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}
const COMMAND_POLL_MS = 50

export class KafkaWorkerProcess {
  readonly conn: KafkaConnection
  readonly topics
  private worker: StreamWorker | null = null
  private telemetryProducer: LogProducer | null = null
  private pending: EngineEvent[] = []
  private flushing: Promise<void> = Promise.resolve()
  private stopped = false
  private armedKill: Step | null = null
  private armedPause: Step | null = null
  private readonly time = new SystemTime()
  private stopRequested = false
  private readonly log: Logger

  constructor(private readonly o: KafkaWorkerOptions) {
    this.conn = new KafkaConnection(o.client)
    requireGuarantee(this.conn.capabilities, o.config['processing.guarantee'])
    this.log = componentLogger('kafka-worker').child({ workerId: o.workerId })
    this.topics = kafkaAppTopics(o.config['application.id'])
  }

  async run(): Promise<number> {
    // A replacement may start while a broker is down: what the client marks retriable is waited out.
    const apiDeadline = { deadlineMs: KAFKA_CLIENT_DEADLINES_MS['default.api.timeout.ms'] }
    if (this.o.createTopics !== false)
      await retryRetriableUntilDeadline(this.time, apiDeadline, () =>
        this.conn.admin().createTopics(kafkaAppTopicSpecs(this.topics, this.o.partitions)),
      )
    this.telemetryProducer = this.conn.producer({ clientId: `${this.o.workerId}-telemetry`, idempotent: false })
    const commandsFrom = await retrying(
      () => this.conn.reader().offsets({ topic: this.topics.commands, partition: 0 }),
      apiDeadline.deadlineMs,
    ).then((o) => o.highWatermark)
    const worker = new StreamWorker(
      this.o.workerId,
      this.conn,
      {
        slotId: this.o.slotId,
        config: this.o.config,
        topics: this.topics,
        deserializationPolicy: 'log-and-continue',
        traceIntervalMs: this.o.traceIntervalMs ?? 1_000,
      },
      this.time,
      {
        emit: (e) => this.pending.push(e),
      },
      { atStep: (_id, step) => this.atStep(step) },
    )
    this.worker = worker
    const onTerm = () => worker.requestStop()
    process.on('SIGTERM', onTerm)
    process.on('SIGINT', onTerm)
    if (this.stopRequested) worker.requestStop()
    const flusher = this.flushLoop()
    const commands = this.commandLoop(commandsFrom)
    await worker.start()
    process.off('SIGTERM', onTerm)
    process.off('SIGINT', onTerm)
    this.stopped = true
    await Promise.allSettled([flusher, commands])
    await this.flush({ stopped: true }).catch(() => {})
    await this.conn.close()
    if (worker.state === 'failed') this.log.error(`eoscope worker ${this.o.workerId} failed: ${worker.error}`)
    return worker.state === 'failed' ? 1 : 0
  }

  /** A clean stop, as on SIGTERM: commit what is processed, close the tasks, leave the group. */
  stop(): void {
    this.stopRequested = true
    this.worker?.requestStop()
  }

  /** Publishes the pending events and the status in one message; one flush at a time. */
  private flush(extra: Partial<TelemetryEnvelope> = {}): Promise<void> {
    const next = this.flushing.then(async () => {
      const events = this.pending
      this.pending = []
      const envelope: TelemetryEnvelope = {
        workerId: this.o.workerId,
        slotId: this.o.slotId,
        pid: process.pid,
        host: hostname(),
        atMs: this.time.now(),
        events,
        status: workerStatusOf(this.worker!),
        ...extra,
      }
      await this.telemetryProducer!.send([
        { topic: this.topics.telemetry, partition: 0, key: this.o.workerId, value: JSON.stringify(envelope) },
      ])
    })
    this.flushing = next.catch(() => {})
    return next
  }

  private async flushLoop(): Promise<void> {
    const streak = new FailureStreak('telemetry not published', this.log, this.o.flushIntervalMs ?? FLUSH_MS)
    while (!this.stopped) {
      const pause = await this.flush().then(
        () => streak.succeeded(),
        (e: unknown) => streak.failed(e),
      )
      await this.time.sleep(pause)
    }
  }

  private async commandLoop(from: number): Promise<void> {
    const reader = this.conn.reader()
    const tp = { topic: this.topics.commands, partition: 0 }
    let offset = from
    const streak = new FailureStreak('commands not read', this.log, COMMAND_POLL_MS)
    while (!this.stopped) {
      let pause = COMMAND_POLL_MS
      try {
        const r = await reader.read(tp, offset, 100, 'read_uncommitted')
        offset = r.nextOffset
        for (const rec of r.records) {
          let cmd: unknown
          try {
            cmd = JSON.parse(rec.value ?? '')
          } catch {
            continue
          }
          if (
            isWorkerCommand(cmd) &&
            (cmd.target === '*' || cmd.target === this.o.workerId || cmd.target === this.o.slotId)
          )
            await this.obey(cmd)
        }
        pause = streak.succeeded()
      } catch (e) {
        if (!this.stopped) pause = streak.failed(e)
      }
      await this.time.sleep(pause)
    }
  }

  private async obey(cmd: WorkerCommand): Promise<void> {
    if (cmd.command === 'stop') this.worker?.requestStop()
    else if (cmd.command === 'kill-at-step') this.armedKill = cmd.step
    else if (cmd.command === 'pause-at-step') this.armedPause = cmd.step
    else await this.die(null)
  }

  private async atStep(step: Step): Promise<void> {
    if (this.armedKill === step) await this.die(step)
    if (this.armedPause === step) {
      this.armedPause = null
      await this.stopItself(step)
    }
  }

  /** Publishes where it stands (bounded wait), then SIGSTOP: it goes on from here when its supervisor sends SIGCONT. */
  private async stopItself(step: Step): Promise<void> {
    const published = this.flush({ paused: { step } }).catch(() => {})
    await Promise.race([published, new Promise((r) => setTimeout(r, 2_000))])
    process.kill(process.pid, 'SIGSTOP')
  }

  /** Publishes where it stands (bounded wait), then SIGKILL: no engine cleanup of any kind. */
  private async die(step: Step | null): Promise<never> {
    const published = this.flush({ killed: { step } }).catch(() => {})
    await Promise.race([published, new Promise((r) => setTimeout(r, 2_000))])
    process.kill(process.pid, 'SIGKILL')
    return new Promise<never>(() => {})
  }
}
