// What a Kafka-backed eoscope application is made of: its topic names (all derived from the
// application.id, so each run with a fresh application.id sees only its own data), the messages
// that travel on its telemetry and commands topics, and what the Kafka backend cannot do.

import type { Step, StepCounters } from '../../../lib/lab-protocol.ts'
import { changelogTopic } from '../../../lib/records.ts'
import type { TaskTopics } from '../../engine/stream-task.ts'
import type { EngineEvent } from '../../engine/telemetry.ts'
import type { ProducerIdentity, TopicSpec } from '../../log/types.ts'

/**
 * exactly_once_v2 fences zombies through the consumer group generation carried on the
 * transactional offset commit (KIP-447: TxnOffsetCommit v3 with generation id and member id).
 * kafkajs 2.2.4 sends TxnOffsetCommit v0/v1 without them, so a zombie worker's offsets would
 * not be fenced by the group: the Kafka backend refuses exactly_once_v2 instead of pretending.
 */
export const EXACTLY_ONCE_V2_UNAVAILABLE =
  'exactly_once_v2 is unavailable on the Kafka backend: it needs the consumer group generation and member id on the transactional offset commit (KIP-447, TxnOffsetCommit v3), and kafkajs 2.2.4 sends TxnOffsetCommit v0/v1 without them, so zombie workers would not be fenced. Use exactly_once (one transactional producer per task).'

/** Dropped acknowledgements are an embedded-log fault; a real broker cannot be told to drop one. */
export const DROP_ACKS_UNAVAILABLE = '--drop-acks is unavailable on the Kafka backend: a real broker cannot be made to drop a produce acknowledgement; use the embedded backend for that fault'

export interface KafkaAppTopics extends TaskTopics {
  telemetry: string
  commands: string
}

export function kafkaAppTopics(applicationId: string): KafkaAppTopics {
  return {
    input: `${applicationId}-input`,
    output: `${applicationId}-output`,
    changelog: changelogTopic(applicationId),
    deadLetter: `${applicationId}-input-dlq`,
    telemetry: `${applicationId}-telemetry`,
    commands: `${applicationId}-commands`,
  }
}

/** Every topic of the application; telemetry and commands have one partition (one order for all workers). */
export function kafkaAppTopicSpecs(t: KafkaAppTopics, partitions: number): TopicSpec[] {
  return [
    { topic: t.input, partitions },
    { topic: t.output, partitions },
    { topic: t.changelog, partitions, compacted: true },
    { topic: t.deadLetter, partitions },
    { topic: t.telemetry, partitions: 1 },
    { topic: t.commands, partitions: 1 },
  ]
}

export interface TaskStatus {
  partition: number
  state: string
  /** Next input offset to process (task.consumedOffset): the position. */
  consumedOffset: number
  committedOffset: number | null
  inTransaction: boolean
  /** Records through each of the five steps (absent from workers of older versions). */
  steps?: StepCounters
}

export interface WorkerStatus {
  state: string
  memberId: string | null
  tasks: TaskStatus[]
  producers: ProducerIdentity[]
  error: string | null
}

/** One message on the telemetry topic: a worker's events since its last flush, and its status. */
export interface TelemetryEnvelope {
  workerId: string
  slotId: string
  pid: number
  host: string
  atMs: number
  events: EngineEvent[]
  status: WorkerStatus
  /** Set on the last message of a worker that kills itself (sent just before its SIGKILL); step null: at once. */
  killed?: { step: Step | null }
  /** Set on the last message of a worker that stopped cleanly. */
  stopped?: boolean
}

/** One message on the commands topic. `target` is a worker id, a slot id, or '*'. */
export type WorkerCommand =
  | { target: string; command: 'kill'; issuedAtMs: number }
  | { target: string; command: 'kill-at-step'; step: Step; issuedAtMs: number }
  | { target: string; command: 'stop'; issuedAtMs: number }

export function isWorkerCommand(v: unknown): v is WorkerCommand {
  if (typeof v !== 'object' || v === null) return false
  const c = v as Record<string, unknown>
  if (typeof c.target !== 'string') return false
  if (c.command === 'kill' || c.command === 'stop') return true
  return c.command === 'kill-at-step' && typeof c.step === 'number' && Number.isInteger(c.step) && c.step >= 1 && c.step <= 5
}
