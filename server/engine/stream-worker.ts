// A worker: like a Kafka Streams StreamThread, one member of the application's consumer group,
// running its tasks through the five steps:
//   1 consume  2 process + update state  3 produce  4 broker ack  5 commit offsets
// Under exactly_once the sink records, changelog records and offsets of a commit interval are one
// transaction. Under at_most_once (eoscope's teaching mode, not a Kafka Streams setting) step 5 comes
// first: the polled offsets are committed before steps 2-4. A killed worker stops where it is: no
// flush, no commit, no abort, no leave-group.

import type { Step } from '../../lib/five-steps.ts'
import {
  isExactlyOnce,
  type OffsetCommitPoint,
  offsetCommitPointOf,
  type StreamsConfig,
} from '../../lib/streams-config.ts'
import { taskIdOf, type TaskId } from '../../lib/task-id.ts'
import { ProcessKilledError } from '../log/errors.ts'
import { retryingNotNow, TASK_CREATION_RETRY_MS } from './not-now-retry.ts'
import { isRetriable, KAFKA_CLIENT_DEADLINES_MS, retryRetriableUntilDeadline } from './retry-until-deadline.ts'
import { type Batch as PollBatch, batchOfPoll } from './poll-batch.ts'
import { refuseRedeliveries } from './redelivery.ts'
import type {
  ConsumedRecord,
  LogConnection,
  LogConsumer,
  OffsetToCommit,
  ProduceRecord,
  TopicPartition,
} from '../log/types.ts'
import type { Time } from '../log/time.ts'
import { isMigrationError, TaskCorruptedError, TaskMigratedError } from './errors.ts'
import { RecordTraces, type Trace } from './record-traces.ts'
import { PoisonRecordError, type DeserializationPolicy, type StreamTask, type TaskTopics } from './stream-task.ts'
import { StreamsProducer } from './streams-producer.ts'
import { TaskManager } from './task-manager.ts'
import { taskOutcomes } from './task-outcomes.ts'
import type { TelemetrySink } from './telemetry.ts'
import type { TaskStop } from '../../lib/task-stop.ts'

export type WorkerState = 'starting' | 'running' | 'stopping' | 'stopped' | 'dead' | 'failed'

/** The lab's fault-injection point at each step: may kill (throws ProcessKilledError) or hold (paused). */
export interface StepHook {
  atStep(workerId: string, step: Step): Promise<void>
}

export interface WorkerOptions {
  /** Stable per worker slot: a replacement in the same slot reuses it (like Streams' process id). */
  slotId: string
  config: StreamsConfig
  topics: TaskTopics
  deserializationPolicy: DeserializationPolicy
  /** Sample one record per task this often for the five-steps trace; 0 traces every record. */
  traceIntervalMs: number
}

/** The first wait after a retriable error out of the loop, doubling up to the max (handleRetriable). */
const RETRIABLE_LOOP_BACKOFF_MS = 100
const RETRIABLE_LOOP_MAX_BACKOFF_MS = 5_000

/** The records of one poll, per task, on their way through steps 1-4. */
type Batch = PollBatch<StreamTask>

interface Send {
  producer: StreamsProducer
  records: ProduceRecord[]
  tasks: StreamTask[]
}

export class StreamWorker {
  readonly id: string
  state: WorkerState = 'starting'
  error: string | null = null
  /** The record that stopped this worker's task, when a poison record under the fail policy did. */
  stop: TaskStop | null = null
  private consumer!: LogConsumer
  private threadProducer: StreamsProducer | null = null
  private readonly taskManager: TaskManager
  private readonly traces: RecordTraces
  private lastCommitMs: number
  private stopRequested = false
  private readonly guarantee
  private readonly commitPoint: OffsetCommitPoint
  /** When the current run of retriable failures out of the loop began (null: the last iteration worked). */
  private retriableSince: number | null = null
  private retriableBackoffMs = RETRIABLE_LOOP_BACKOFF_MS
  done: Promise<void> = Promise.resolve()

  constructor(
    id: string,
    private readonly conn: LogConnection,
    private readonly options: WorkerOptions,
    private readonly time: Time,
    private readonly telemetry: TelemetrySink,
    private readonly hook: StepHook,
  ) {
    this.id = id
    this.lastCommitMs = time.now()
    this.guarantee = options.config['processing.guarantee']
    this.commitPoint = offsetCommitPointOf(this.guarantee)
    this.traces = new RecordTraces(id, options.traceIntervalMs, time, telemetry)
    this.taskManager = new TaskManager({
      workerId: id,
      config: options.config,
      topics: options.topics,
      deserializationPolicy: options.deserializationPolicy,
      reader: conn.reader(),
      consumer: () => this.consumer,
      time,
      telemetry,
      traces: this.traces,
      threadProducer: () => this.threadProducer,
      taskProducer: (transactionalId, taskId) => this.newProducer(transactionalId, () => [taskId]),
    })
  }

  /** The tasks by input partition. */
  get tasks(): ReadonlyMap<number, StreamTask> {
    return this.taskManager.tasks
  }

  get memberId(): string | null {
    return this.consumer ? this.consumer.groupMetadata().memberId || null : null
  }

  /** The group generation its consumer last joined (ConsumerGroupMetadata); -1 before it joined. */
  get generationId(): number {
    return this.consumer ? this.consumer.groupMetadata().generationId : -1
  }

  producers() {
    const out = []
    if (this.threadProducer?.identity()) out.push(this.threadProducer.identity()!)
    for (const t of this.tasks.values())
      if (t.producer && t.producer !== this.threadProducer && t.producer.identity()) out.push(t.producer.identity()!)
    return out
  }

  start(): Promise<void> {
    this.done = this.run()
    return this.done
  }

  /** Asks for a clean stop: commit, close tasks, leave the group. */
  requestStop(): void {
    this.stopRequested = true
  }

  private async run(): Promise<void> {
    try {
      await this.startClients()
      this.state = 'running'
      while (!this.stopRequested) {
        try {
          await this.runOnce()
          this.retriableSince = null
          this.retriableBackoffMs = RETRIABLE_LOOP_BACKOFF_MS
        } catch (e) {
          await this.recover(e)
        }
      }
      this.state = 'stopping'
      await this.closeClean()
      this.state = 'stopped'
    } catch (e) {
      if (e instanceof ProcessKilledError) {
        this.state = 'dead'
        return
      }
      this.state = 'failed'
      this.error = e instanceof Error ? e.message : String(e)
      if (e instanceof PoisonRecordError) this.stop = e.stop
      this.telemetry.emit({ type: 'worker-failed', workerId: this.id, error: this.error, atMs: this.time.now() })
      await this.shutdownAfterFailure()
    }
  }

  /**
   * What the loop does with an error out of an iteration: migrated and corrupted tasks are handled
   * as Kafka Streams does; a retriable error (its own retries spent) corrupts every task and the
   * loop goes on after a backoff, for up to max.poll.interval.ms of such failures in a row. A
   * handler's own retriable failure is handled the same way. Anything else is fatal: it is thrown.
   */
  private async recover(e: unknown): Promise<void> {
    try {
      if (e instanceof TaskMigratedError) await this.handleTaskMigrated(e)
      else if (e instanceof TaskCorruptedError) await this.handleTaskCorrupted(e)
      else if (isRetriable(e)) await this.handleRetriable(e)
      else throw e
    } catch (next) {
      if (next === e || !isRetriable(next)) throw next
      await this.handleRetriable(next)
    }
  }

  /**
   * A retriable error its call's own retries did not outlast (a coordinator away longer than
   * default.api.timeout.ms, say): every task is closed dirty, as corrupted, and recreated from its
   * committed offsets and changelog once the loop goes on. Fatal only when such failures have
   * followed one another for max.poll.interval.ms.
   */
  private async handleRetriable(e: unknown): Promise<void> {
    const now = this.time.now()
    this.retriableSince ??= now
    if (now - this.retriableSince >= KAFKA_CLIENT_DEADLINES_MS['max.poll.interval.ms']) throw e
    const taskIds = this.taskManager.all().map((t) => t.id)
    if (taskIds.length > 0)
      this.telemetry.emit({
        type: 'task-migrated',
        workerId: this.id,
        taskIds,
        reason: `task corrupted: ${e instanceof Error ? e.message : String(e)} (retriable: the worker goes on)`,
        atMs: now,
      })
    await this.time.sleep(this.retriableBackoffMs)
    this.retriableBackoffMs = Math.min(RETRIABLE_LOOP_MAX_BACKOFF_MS, this.retriableBackoffMs * 2)
    try {
      await this.taskManager.closeAllDirty()
    } catch (again) {
      // Tasks left open are closed by the next failure's round, within the same bound.
      if (!isRetriable(again) && !isMigrationError(again)) throw again
    }
  }

  /** A failed worker closes its tasks dirty and leaves the group, as a dying StreamThread does. */
  private async shutdownAfterFailure(): Promise<void> {
    try {
      await this.taskManager.closeAllDirty()
      await this.consumer?.close()
    } catch {
      // best effort: the process may be gone too
    }
  }

  private async startClients(): Promise<void> {
    const c = this.options.config
    this.consumer = this.conn.consumer({
      groupId: c['application.id'],
      clientId: this.id,
      isolationLevel: isExactlyOnce(this.guarantee) ? 'read_committed' : c['isolation.level'],
      sessionTimeoutMs: c['session.timeout.ms'],
      heartbeatIntervalMs: c['heartbeat.interval.ms'],
    })
    if (!isExactlyOnce(this.guarantee)) {
      this.threadProducer = this.newProducer(null)
    } else if (this.guarantee === 'exactly_once_v2') {
      const producer = this.newProducer(`${c['application.id']}-${this.options.slotId}`)
      this.threadProducer = producer
      // A transaction coordinator that is away (its broker restarting) is waited for, as Java's initTransactions does.
      await retryRetriableUntilDeadline(
        this.time,
        { deadlineMs: KAFKA_CLIENT_DEADLINES_MS['max.block.ms'], stopped: () => this.stopRequested },
        () => producer.initTransaction(),
      )
    }
    await this.consumer.subscribe([this.options.topics.input], {
      onPartitionsRevoked: (tps) => this.handleRevoked(tps),
      onPartitionsAssigned: async () => {},
      onPartitionsLost: (tps) => this.handleLost(tps),
    })
  }

  /**
   * A transactional producer (always idempotent), or with no transactional.id a plain one as enable.idempotence says.
   */
  private newProducer(transactionalId: string | null, taskIds?: () => string[]): StreamsProducer {
    return new StreamsProducer(
      this.conn,
      {
        workerId: this.id,
        clientId: transactionalId ?? `${this.id}-producer`,
        transactionalId,
        idempotent: transactionalId !== null || this.options.config['enable.idempotence'],
        transactionTimeoutMs: this.options.config['transaction.timeout.ms'],
        changelogTopic: this.options.topics.changelog,
        taskIds: taskIds ?? (() => this.taskManager.all().map((t) => t.id)),
      },
      this.time,
      this.telemetry,
    )
  }

  // ---- the loop ------------------------------------------------------------------------------

  private async runOnce(): Promise<void> {
    await this.hook.atStep(this.id, 1)
    const records = await this.consumer.poll(this.options.config['max.poll.records'])
    // A task created now sought its partition to its committed offset: what this poll returned for it
    // is fetched again. A broker answering "not now" is retried (not-now-retry.ts), the worker not failed.
    const created = await retryingNotNow(
      this.time,
      { boundMs: TASK_CREATION_RETRY_MS, stopped: () => this.stopRequested, whenStopped: () => new Set<number>() },
      () => this.taskManager.ensureTasks(),
    )
    const batch = this.consume(records, created)
    if (batch.size > 0) await this.processBatch(batch)
    await this.maybeCommit()
  }

  /**
   * Step 1: the records of the running tasks, each task's in offset order from its position
   * (the consumer's promise, checked: redelivery.ts).
   */
  private consume(records: readonly ConsumedRecord[], created: ReadonlySet<number>): Batch {
    const taskOf = (partition: number) => this.tasks.get(partition) ?? null
    return refuseRedeliveries(
      batchOfPoll(records, (p) => (taskOf(p)?.state === 'running' && !created.has(p) ? taskOf(p) : null)),
    )
  }

  private async processBatch(batch: Batch): Promise<void> {
    const now = this.time.now()
    const traced: Trace[] = []
    for (const [task, recs] of batch) {
      task.steps.consumed += recs.length
      const t = this.traces.sample(task, recs[0]!, now)
      if (t) traced.push(t)
    }
    this.traces.emit(traced, 1)
    if (this.commitPoint === 'on-poll') await this.commitPolled(batch)

    await this.hook.atStep(this.id, 2)
    this.process(batch)
    this.traces.emit(traced, 2)

    await this.hook.atStep(this.id, 3)
    const { sent, failed } = await this.produce(batch)
    this.traces.emit(traced, 3)

    // The broker has acknowledged; a worker killed here dies before acting on the ack.
    await this.hook.atStep(this.id, 4)
    for (const task of sent) {
      task.steps.acked = task.steps.produced
      task.markAcked()
    }
    this.traces.emit(traced, 4)
    if (failed) throw failed
  }

  /** Step 2: process with state; poison records go to the dead-letter topic. */
  private process(batch: Batch): void {
    for (const [task, recs] of batch) {
      for (const p of task.process(recs))
        this.telemetry.emit({
          type: 'poison-record',
          workerId: this.id,
          taskId: task.id,
          partition: p.partition,
          offset: p.offset,
          policy: 'log-and-continue',
          atMs: this.time.now(),
        })
    }
  }

  /**
   * Step 3: send. Under exactly_once each task sends through its own producer, all at once: a fenced one migrates that
   * task only (a lost connection corrupts it), and the other tasks' records are still sent: no task is left with
   * processed records never sent.
   */
  private async produce(
    batch: Batch,
  ): Promise<{ sent: StreamTask[]; failed: TaskMigratedError | TaskCorruptedError | null }> {
    const sends = this.sends(batch)
    for (const s of sends) for (const t of s.tasks) t.steps.produced = t.steps.processed
    if (this.threadProducer) {
      await sends[0]?.producer.send(sends[0].records)
      return { sent: sends.flatMap((s) => s.tasks), failed: null }
    }
    const outcomes = await Promise.allSettled(sends.map((s) => s.producer.send(s.records)))
    return taskOutcomes(sends.map((s, i) => ({ tasks: s.tasks, outcome: outcomes[i]! })))
  }

  private sends(batch: Batch): Send[] {
    const tasks = [...batch.keys()]
    if (!this.threadProducer)
      return tasks.map((task) => ({ producer: task.producer!, records: task.takePending(), tasks: [task] }))
    if (tasks.length === 1) return [{ producer: this.threadProducer, records: tasks[0]!.takePending(), tasks }]
    const all: ProduceRecord[] = []
    for (const task of tasks) for (const r of task.takePending()) all.push(r)
    return [{ producer: this.threadProducer, records: all, tasks }]
  }

  // ---- commit --------------------------------------------------------------------------------

  /**
   * at_most_once: step 5 before steps 2-4. The polled records' offsets are committed before they
   * are processed and produced, so a crash from here until their ack loses them: the next owner
   * starts past them. Nothing is ever redone, hence never duplicated by a crash.
   */
  private async commitPolled(batch: Batch): Promise<void> {
    await this.hook.atStep(this.id, 5)
    const input = this.options.topics.input
    const tasks = [...batch.keys()]
    const offsets = [...batch].map(([task, recs]) => ({
      topic: input,
      partition: task.partition,
      offset: recs[recs.length - 1]!.offset + 1,
    }))
    await this.commitConsumerOffsets(tasks, offsets)
    for (let i = 0; i < tasks.length; i++) tasks[i]!.markCommittedOnPoll(offsets[i]!.offset)
    this.telemetry.emit({
      type: 'offsets-committed',
      workerId: this.id,
      offsets: offsets.map((o) => ({ partition: o.partition, offset: o.offset })),
      atMs: this.time.now(),
    })
    this.traces.committed(tasks)
  }

  private async maybeCommit(): Promise<void> {
    // at_most_once committed each batch's offsets when it polled them: nothing waits for a commit.
    if (this.commitPoint === 'on-poll') return
    if (this.time.now() - this.lastCommitMs < this.options.config['commit.interval.ms']) return
    if (!this.taskManager.all().some((t) => t.needsCommit())) {
      this.lastCommitMs = this.time.now()
      return
    }
    await this.hook.atStep(this.id, 5)
    await this.commitAll()
  }

  /** One commit point: the offsets of every task with progress, with their records under exactly_once. */
  private async commitAll(): Promise<void> {
    if (this.commitPoint === 'on-poll') return
    const now = this.time.now()
    // A task whose processed records never reached the broker must not commit past them: its state
    // and position are ahead of the log. It is corrupted: close it dirty and restore it.
    const corrupted = this.taskManager.all().filter((t) => t.hasUnackedWork())
    if (corrupted.length > 0)
      throw new TaskCorruptedError(
        corrupted.map((t) => t.id),
        'processed records were never acknowledged by the broker',
      )
    const dirty = this.taskManager.all().filter((t) => t.needsCommit())
    const { committed, failed } = await this.commitOffsets(dirty)
    // A killed worker stops where it is: what it committed meanwhile is for the log to tell.
    if (failed instanceof ProcessKilledError) throw failed
    for (const t of committed) {
      t.markCommitted()
      t.steps.committed = t.steps.acked
    }
    if (committed.length > 0) {
      this.telemetry.emit({
        type: 'offsets-committed',
        workerId: this.id,
        offsets: committed.map((t) => ({ partition: t.partition, offset: t.ackedOffset })),
        atMs: this.time.now(),
      })
      this.traces.committed(committed)
    }
    if (failed) throw failed
    this.lastCommitMs = now
  }

  /**
   * Step 5 as the guarantee does it: an offset commit, the worker's transaction, or each task's
   * (all at once, each on its own producer). Returns the tasks whose offsets were committed, and
   * the failure of the others: under exactly_once one task's transaction can commit while
   * another's is refused.
   */
  private async commitOffsets(dirty: StreamTask[]): Promise<{ committed: StreamTask[]; failed: Error | null }> {
    const input = this.options.topics.input
    const offsetOf = (t: StreamTask): OffsetToCommit => ({
      topic: input,
      partition: t.partition,
      offset: t.ackedOffset,
    })
    if (!isExactlyOnce(this.guarantee)) {
      if (dirty.length === 0) return { committed: [], failed: null }
      await this.commitConsumerOffsets(dirty, dirty.map(offsetOf))
    } else if (this.guarantee === 'exactly_once_v2') {
      await this.threadProducer!.commitTransaction(dirty.map(offsetOf), this.consumer.groupMetadata())
    } else {
      const group = { groupId: this.options.config['application.id'], memberId: '', generationId: -1 }
      const ending = this.taskManager.all().filter((t) => t.needsCommit() || t.producer?.transactionInFlight)
      const outcomes = await Promise.allSettled(
        ending.map((t) => t.producer!.commitTransaction(t.needsCommit() ? [offsetOf(t)] : [], group)),
      )
      const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
      return {
        committed: dirty.filter((t) => outcomes[ending.indexOf(t)]?.status === 'fulfilled'),
        failed: failure ? (failure.reason as Error) : null,
      }
    }
    return { committed: dirty, failed: null }
  }

  /** A plain consumer offset commit (no transaction), as commitSync does it. */
  private async commitConsumerOffsets(tasks: readonly StreamTask[], offsets: OffsetToCommit[]): Promise<void> {
    try {
      // commitSync retries what is retriable (the group's coordinator away or moved) for default.api.timeout.ms.
      await retryRetriableUntilDeadline(
        this.time,
        { deadlineMs: KAFKA_CLIENT_DEADLINES_MS['default.api.timeout.ms'] },
        () => this.consumer.commitOffsets(offsets),
      )
    } catch (e) {
      // A commit refused by the group (this member was dropped, or its generation is over): migrated.
      if (isMigrationError(e))
        throw new TaskMigratedError(
          tasks.map((t) => t.id),
          `offset commit refused: ${(e as Error).message}`,
          { cause: e },
        )
      throw e
    }
  }

  // ---- revocation, loss, migration, corruption ------------------------------------------------

  private async handleRevoked(tps: TopicPartition[]): Promise<void> {
    // A clean hand-off: commit everything, then close the revoked tasks.
    try {
      await this.commitAll()
    } catch (e) {
      if (e instanceof TaskMigratedError) {
        await this.taskManager.closeAllDirty()
        return
      }
      throw e
    }
    for (const tp of tps) await this.taskManager.closeClean(tp.partition)
  }

  private async handleLost(tps: TopicPartition[]): Promise<void> {
    const taskIds: TaskId[] = tps.map((tp) => taskIdOf(tp.partition))
    this.telemetry.emit({
      type: 'task-migrated',
      workerId: this.id,
      taskIds,
      reason: 'partitions lost: this member was removed from the group',
      atMs: this.time.now(),
    })
    if (this.guarantee === 'exactly_once_v2') await this.threadProducer?.abortTransaction('fenced')
    for (const tp of tps) await this.taskManager.closeDirty(tp.partition)
  }

  private async handleTaskMigrated(e: TaskMigratedError): Promise<void> {
    this.telemetry.emit({
      type: 'task-migrated',
      workerId: this.id,
      taskIds: [...e.taskIds],
      reason: e.message,
      atMs: this.time.now(),
    })
    await this.closeDirty(e.taskIds)
    // Rejoin before any task is recreated, so a fenced member never fences its successor back.
    this.consumer.enforceRebalance?.()
  }

  /**
   * Wipe and restore: close the tasks dirty; ensureTasks recreates them from the committed offsets and the changelog.
   */
  private async handleTaskCorrupted(e: TaskCorruptedError): Promise<void> {
    this.telemetry.emit({
      type: 'task-migrated',
      workerId: this.id,
      taskIds: [...e.taskIds],
      reason: `task corrupted: ${e.message}`,
      atMs: this.time.now(),
    })
    await this.closeDirty(e.taskIds)
  }

  /**
   * Under exactly_once the named tasks; otherwise one producer (under v2 one
   * transaction) for all tasks: all of them go.
   */
  private async closeDirty(taskIds: readonly string[]): Promise<void> {
    if (this.guarantee === 'exactly_once') await this.taskManager.closeDirtyTasks(taskIds)
    else await this.taskManager.closeAllDirty()
  }

  private async closeClean(): Promise<void> {
    try {
      await this.commitAll()
    } catch (e) {
      if (!(e instanceof TaskMigratedError)) throw e
      await this.taskManager.closeAllDirty()
    }
    await this.taskManager.closeAllClean()
    await this.consumer.close()
    await this.threadProducer?.close()
  }
}
