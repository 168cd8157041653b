// What a Kafka-backed eoscope application is made of: its topic names (all derived from the
// application.id, so each run with a fresh application.id sees only its own data), the messages
// that travel on its telemetry and commands topics. What the Kafka backend cannot do is declared
// by the log (server/log/kafka/capabilities.ts).

import type { Step } from '../../../lib/lab-protocol.ts'
import { changelogTopic } from '../../../lib/records.ts'
import type { TaskTopics } from '../../engine/stream-task.ts'
import type { EngineEvent } from '../../engine/telemetry.ts'
import type { TopicSpec } from '../../log/types.ts'
import type { WorkerStatus } from '../lab-runtime.ts'

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

/** Every topic name of the application. */
export function appTopicNames(t: KafkaAppTopics): string[] {
  return [t.input, t.output, t.changelog, t.deadLetter, t.telemetry, t.commands]
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
  /** Set on the message a worker sends just before it stops itself with SIGSTOP at a step (pause-at-step). */
  paused?: { step: Step }
}

/** One message on the commands topic. `target` is a worker id, a slot id, or '*'. */
export type WorkerCommand =
  | { target: string; command: 'kill'; issuedAtMs: number }
  | { target: string; command: 'kill-at-step'; step: Step; issuedAtMs: number }
  | { target: string; command: 'stop'; issuedAtMs: number }
  /**
   * The worker stops itself (SIGSTOP) when it next reaches the step: no heartbeats, a zombie once its session expires.
   */
  | { target: string; command: 'pause-at-step'; step: Step; issuedAtMs: number }

export function isWorkerCommand(v: unknown): v is WorkerCommand {
  if (typeof v !== 'object' || v === null) return false
  const c = v as Record<string, unknown>
  if (typeof c.target !== 'string') return false
  if (c.command === 'kill' || c.command === 'stop') return true
  return (
    (c.command === 'kill-at-step' || c.command === 'pause-at-step') &&
    typeof c.step === 'number' &&
    Number.isInteger(c.step) &&
    c.step >= 1 &&
    c.step <= 5
  )
}
