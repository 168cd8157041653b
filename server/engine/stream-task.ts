// One task per input partition: the stateful aggregation of the five steps' step 2, with the
// output and changelog records it produces and the counters the dashboard shows.

import { emptyStepCounters, type StepCounters } from '../../lib/five-steps.ts'
import { taskIdOf, type TaskId } from '../../lib/task-id.ts'
import { DLQ_HEADERS, encodeOutputValue, parseInputValue } from '../../lib/records.ts'
import type { ConsumedRecord, ProduceRecord } from '../log/types.ts'
import { KeyValueStore } from './state-store.ts'
import { StreamsError } from './errors.ts'
import type { StreamsProducer } from './streams-producer.ts'
import type { TaskStop } from '../../lib/task-stop.ts'

export type TaskState = 'created' | 'restoring' | 'running' | 'closed'

/** default.deserialization.exception.handler, as Kafka Streams names its two policies. */
export type DeserializationPolicy = 'log-and-continue' | 'fail'

export interface TaskTopics {
  input: string
  output: string
  changelog: string
  deadLetter: string
}

export interface PoisonRecord {
  partition: number
  offset: number
}

/** A poison record met under the fail policy: fatal for the worker, naming the record. */
export class PoisonRecordError extends StreamsError {
  constructor(readonly stop: TaskStop) {
    super(stop.message)
  }
}

const VALUE_HEAD = 40

export class StreamTask {
  readonly id: TaskId
  state: TaskState = 'created'
  readonly store = new KeyValueStore()
  readonly steps: StepCounters = emptyStepCounters()
  /** Next input offset to process (last processed + 1). */
  consumedOffset = 0
  /**
   * Input offset up to which this task's output and changelog records are acknowledged by the
   * broker: the most a commit may ever say (commit offsets never run ahead of their output).
   */
  ackedOffset = 0
  /** Last committed input offset (next offset to read), as this task knows it. */
  committedOffset: number | null = null
  /** Records produced by the batch in progress, waiting to be sent, one list per topic. */
  private pendingOutput: ProduceRecord[] = []
  private pendingChangelog: ProduceRecord[] = []
  private pendingDeadLetter: ProduceRecord[] = []
  /** The producer this task's records go through (its own under exactly_once). */
  producer: StreamsProducer | null = null
  private readonly poison: PoisonRecord[] = []
  private uncommitted = false

  constructor(
    readonly partition: number,
    readonly topics: TaskTopics,
    readonly deserializationPolicy: DeserializationPolicy,
  ) {
    this.id = taskIdOf(partition)
  }

  /** Step 2: process each record with state, queueing its output and changelog records. */
  process(records: readonly ConsumedRecord[]): PoisonRecord[] {
    const { output, changelog, deadLetter } = this.topics
    const p = this.partition
    const found: PoisonRecord[] = []
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!
      const v = parseInputValue(r.value)
      if (v === null || r.key === null) {
        if (this.deserializationPolicy === 'fail') {
          const valueHead = String(r.value).slice(0, VALUE_HEAD)
          const message =
            `task ${this.id}: input record at ${r.topic}-${r.partition}@${r.offset} has a value that does not ` +
            `parse (${JSON.stringify(valueHead)}); default.deserialization.exception.handler=fail stops the task`
          throw new PoisonRecordError({
            taskId: this.id,
            topic: r.topic,
            partition: r.partition,
            offset: r.offset,
            key: r.key,
            valueHead,
            handler: 'fail',
            message,
          })
        }
        // log-and-continue: the record goes to the dead-letter topic with its provenance, never dropped silently.
        this.pendingDeadLetter.push({
          topic: deadLetter,
          partition: p,
          key: r.key,
          value: r.value,
          // Kafka Streams' dead-letter headers (KIP-1034).
          headers: {
            [DLQ_HEADERS.topic]: r.topic,
            [DLQ_HEADERS.partition]: String(p),
            [DLQ_HEADERS.offset]: String(r.offset),
            [DLQ_HEADERS.message]: r.key === null ? 'record has no key' : 'value is not an integer',
          },
          timestamp: r.timestamp,
        })
        found.push({ partition: p, offset: r.offset })
      } else {
        const agg = this.store.aggregate(r.key, v)
        const value = encodeOutputValue(r.key, agg, { partition: p, offset: r.offset })
        // Kafka Streams gives an output record its input record's timestamp.
        this.pendingOutput.push({ topic: output, partition: p, key: r.key, value, timestamp: r.timestamp })
        this.pendingChangelog.push({ topic: changelog, partition: p, key: r.key, value, timestamp: r.timestamp })
      }
      this.consumedOffset = r.offset + 1
    }
    this.steps.processed += records.length
    if (records.length > 0) this.uncommitted = true
    for (const x of found) this.poison.push(x)
    return found
  }

  takePending(): ProduceRecord[] {
    const out = this.pendingOutput.concat(this.pendingChangelog, this.pendingDeadLetter)
    this.pendingOutput = []
    this.pendingChangelog = []
    this.pendingDeadLetter = []
    return out
  }

  /** Whether acknowledged records wait for their offsets to be committed. */
  needsCommit(): boolean {
    return this.state === 'running' && this.uncommitted
  }
  /** The broker acknowledged everything this task processed so far (step 4). */
  markAcked(): void {
    this.ackedOffset = this.consumedOffset
  }
  /** Processed records whose output never reached the broker: state and position are ahead of the log. */
  hasUnackedWork(): boolean {
    return this.consumedOffset > this.ackedOffset
  }
  markCommitted(): void {
    this.committedOffset = this.ackedOffset
    this.uncommitted = false
  }
  /**
   * at_most_once: the offsets of a polled batch were committed before it is processed, so the
   * commit runs ahead of the acknowledged output until the batch's ack (a crash meanwhile loses it).
   */
  markCommittedOnPoll(offset: number): void {
    this.committedOffset = offset
    this.steps.committed = this.steps.consumed
  }
  /** Resumes at an offset: nothing processed or acknowledged beyond it. */
  resumeAt(offset: number, committed: number | null): void {
    this.consumedOffset = offset
    this.ackedOffset = offset
    this.committedOffset = committed
  }

  poisonCount(): number {
    return this.poison.length
  }
}
