// A worker's tasks, one per assigned input partition (like Kafka Streams' TaskManager): creating
// a task (fence, committed offset, restore, resume) and closing it clean or dirty.

import { isExactlyOnce, type ProcessingGuarantee, type StreamsConfig } from '../../lib/streams-config.ts'
import { partitionOfTask, type TaskId } from '../../lib/task-id.ts'
import type { LogConsumer, LogReader, TopicPartition } from '../log/types.ts'
import { tpKey } from '../log/types.ts'
import type { Time } from '../log/time.ts'
import type { RecordTraces } from './record-traces.ts'
import { awaitStableChangelog, restoreFromChangelog } from './state-store.ts'
import { type DeserializationPolicy, StreamTask, type TaskTopics } from './stream-task.ts'
import type { StreamsProducer } from './streams-producer.ts'
import type { TelemetrySink } from './telemetry.ts'

export interface TaskManagerContext {
  workerId: string
  config: StreamsConfig
  topics: TaskTopics
  deserializationPolicy: DeserializationPolicy
  reader: LogReader
  consumer(): LogConsumer
  time: Time
  telemetry: TelemetrySink
  traces: RecordTraces
  /** The worker's producer (at_most_once, at_least_once, exactly_once_v2); null under exactly_once. */
  threadProducer(): StreamsProducer | null
  /** A transactional producer of this task's own (exactly_once). */
  taskProducer(transactionalId: string, taskId: TaskId): StreamsProducer
}

/** How a task ends: clean keeps nothing pending; dirty aborts what it can and discards the state. */
type CloseMode = 'clean' | 'dirty'

export class TaskManager {
  readonly tasks = new Map<number, StreamTask>()
  private readonly guarantee: ProcessingGuarantee

  constructor(private readonly ctx: TaskManagerContext) {
    this.guarantee = ctx.config['processing.guarantee']
  }

  all(): StreamTask[] {
    return [...this.tasks.values()]
  }

  get(partition: number): StreamTask | undefined {
    return this.tasks.get(partition)
  }

  /** Creates a task for every assigned partition that has none; returns the partitions of the new ones. */
  async ensureTasks(): Promise<Set<number>> {
    const created = new Set<number>()
    for (const tp of this.ctx.consumer().assignment()) {
      if (this.tasks.has(tp.partition)) continue
      try {
        await this.createTask(tp)
      } catch (e) {
        await this.forgetUnfinished(tp.partition)
        throw e
      }
      created.add(tp.partition)
    }
    return created
  }

  /**
   * A task whose creation failed part-way is forgotten (its own producer closed): the
   * next ensureTasks creates it from the start.
   */
  private async forgetUnfinished(partition: number): Promise<void> {
    const task = this.tasks.get(partition)
    if (!task) return
    this.tasks.delete(partition)
    task.state = 'closed'
    if (this.guarantee === 'exactly_once' && task.producer) await task.producer.close().catch(() => {})
    task.store.wipe()
    this.ctx.traces.forget(partition)
    this.ctx.telemetry.emit({
      type: 'task-closed',
      workerId: this.ctx.workerId,
      taskId: task.id,
      clean: false,
      atMs: this.ctx.time.now(),
    })
  }

  /** Fence, read the committed offset, restore the store, resume from the offset. */
  private async createTask(tp: TopicPartition): Promise<void> {
    const { config: c, telemetry, time, workerId } = this.ctx
    const task = new StreamTask(tp.partition, this.ctx.topics, this.ctx.deserializationPolicy)
    this.tasks.set(tp.partition, task)
    task.state = 'restoring'
    telemetry.emit({ type: 'task-created', workerId, taskId: task.id, atMs: time.now() })
    // 1. Fence: under exactly_once the task's own transactional.id; under v2 the worker's producer did it at start.
    if (this.guarantee === 'exactly_once') {
      task.producer = this.ctx.taskProducer(`${c['application.id']}-${task.id}`, task.id)
      await task.producer.initTransaction()
    } else {
      task.producer = this.ctx.threadProducer()
    }
    const changelog = { topic: this.ctx.topics.changelog, partition: tp.partition }
    // A previous owner's open transaction on the changelog must end (aborted by the fence above,
    // or by transaction.timeout.ms) before the store can be restored completely.
    if (isExactlyOnce(this.guarantee)) await awaitStableChangelog(this.ctx.reader, changelog, (ms) => time.sleep(ms))
    telemetry.emit({ type: 'fence-complete', workerId, taskId: task.id, atMs: time.now() })
    // 2. Committed offsets, stable (waits for pending transactional commits).
    const committed = (await this.ctx.consumer().committed([tp])).get(tpKey(tp.topic, tp.partition)) ?? null
    // 3. Restore the store from the changelog.
    const isolation = isExactlyOnce(this.guarantee) ? 'read_committed' : 'read_uncommitted'
    telemetry.emit({ type: 'restore-start', workerId, taskId: task.id, fromOffset: 0, toOffset: 0, atMs: time.now() })
    const restored = await restoreFromChangelog(task.store, this.ctx.reader, changelog, isolation, () => time.yield())
    telemetry.emit({
      type: 'restore-end',
      workerId,
      taskId: task.id,
      records: restored.records,
      fromOffset: restored.fromOffset,
      toOffset: restored.toOffset,
      atMs: time.now(),
    })
    // 4. Resume from the committed offset (auto.offset.reset=earliest).
    const start = committed ?? 0
    this.ctx.consumer().seek(tp, start)
    task.resumeAt(start, committed)
    task.state = 'running'
  }

  async closeClean(partition: number): Promise<void> {
    await this.close(partition, 'clean')
  }

  async closeDirty(partition: number): Promise<void> {
    await this.close(partition, 'dirty')
  }

  async closeDirtyTasks(taskIds: readonly string[]): Promise<void> {
    for (const id of taskIds) await this.closeDirty(partitionOfTask(id))
  }

  async closeAllClean(): Promise<void> {
    for (const p of [...this.tasks.keys()]) await this.closeClean(p)
  }

  /** Every task dirty; under exactly_once_v2 the worker's transaction is aborted and its producer replaced first. */
  async closeAllDirty(): Promise<void> {
    const producer = this.ctx.threadProducer()
    if (this.guarantee === 'exactly_once_v2' && producer) {
      await producer.abortTransaction('fenced')
      await producer.replace()
      await producer.initTransaction()
    }
    for (const p of [...this.tasks.keys()]) await this.closeDirty(p)
  }

  private async close(partition: number, mode: CloseMode): Promise<void> {
    const task = this.tasks.get(partition)
    if (!task) return
    this.tasks.delete(partition)
    task.state = 'closed'
    if (this.guarantee === 'exactly_once' && task.producer) {
      if (mode === 'dirty') await task.producer.abortTransaction('fenced')
      await task.producer.close()
    }
    task.store.wipe()
    task.takePending()
    this.ctx.traces.forget(partition)
    this.ctx.telemetry.emit({
      type: 'task-closed',
      workerId: this.ctx.workerId,
      taskId: task.id,
      clean: mode === 'clean',
      atMs: this.ctx.time.now(),
    })
  }
}
