// A worker: like a Kafka Streams StreamThread, one member of the application's consumer group,
// running its tasks through the five steps:
//   1 consume  2 process + update state  3 produce  4 broker ack  5 commit offsets
// Under exactly_once the sink records, changelog records and offsets of a commit interval are one
// transaction. A killed worker stops where it is: no flush, no commit, no abort, no leave-group.

import type { Step } from '../../lib/five-steps.ts'
import { isExactlyOnce, type StreamsConfig } from '../../lib/streams-config.ts'
import { ProcessKilledError } from '../log/errors.ts'
import type { ConsumedRecord, LogConnection, LogConsumer, LogReader, OffsetToCommit, ProduceRecord, TopicPartition } from '../log/types.ts'
import type { Time } from '../log/time.ts'
import { isMigrationError, TaskCorruptedError, TaskMigratedError } from './errors.ts'
import { awaitStableChangelog, restoreFromChangelog } from './state-store.ts'
import { type DeserializationPolicy, StreamTask, type TaskTopics } from './stream-task.ts'
import { StreamsProducer } from './streams-producer.ts'
import type { TelemetrySink } from './telemetry.ts'

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

interface Trace {
  key: string
  partition: number
  offset: number
}

export class StreamWorker {
  readonly id: string
  state: WorkerState = 'starting'
  error: string | null = null
  private consumer!: LogConsumer
  private readonly reader: LogReader
  private threadProducer: StreamsProducer | null = null
  readonly tasks = new Map<number, StreamTask>()
  private lastCommitMs: number
  private stopRequested = false
  private readonly traces = new Map<number, { lastMs: number; open: Trace[] }>()
  private readonly guarantee
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
    this.reader = conn.reader()
    this.lastCommitMs = time.now()
    this.guarantee = options.config['processing.guarantee']
  }

  get memberId(): string | null {
    return this.consumer ? this.consumer.groupMetadata().memberId || null : null
  }

  producers() {
    const out = []
    if (this.threadProducer?.identity()) out.push(this.threadProducer.identity()!)
    for (const t of this.tasks.values()) if (t.producer && t.producer !== this.threadProducer && t.producer.identity()) out.push(t.producer.identity()!)
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
        } catch (e) {
          if (e instanceof TaskMigratedError) await this.handleTaskMigrated(e)
          else if (e instanceof TaskCorruptedError) await this.handleTaskCorrupted(e)
          else throw e
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
      this.telemetry.emit({ type: 'worker-failed', workerId: this.id, error: this.error, atMs: this.time.now() })
      await this.shutdownAfterFailure()
    }
  }

  /** A failed worker closes its tasks dirty and leaves the group, as a dying StreamThread does. */
  private async shutdownAfterFailure(): Promise<void> {
    try {
      await this.closeAllDirty()
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
    if (this.guarantee === 'at_least_once') {
      this.threadProducer = this.newProducer(null, c['enable.idempotence'])
    } else if (this.guarantee === 'exactly_once_v2') {
      this.threadProducer = this.newProducer(`${c['application.id']}-${this.options.slotId}`, true)
      await this.threadProducer.initTransaction()
    }
    await this.consumer.subscribe([this.options.topics.input], {
      onPartitionsRevoked: (tps) => this.handleRevoked(tps),
      onPartitionsAssigned: async () => {},
      onPartitionsLost: (tps) => this.handleLost(tps),
    })
  }

  private newProducer(transactionalId: string | null, idempotent: boolean, taskIds?: () => string[]): StreamsProducer {
    return new StreamsProducer(
      this.conn,
      {
        workerId: this.id,
        clientId: transactionalId ?? `${this.id}-producer`,
        transactionalId,
        idempotent,
        transactionTimeoutMs: this.options.config['transaction.timeout.ms'],
        changelogTopic: this.options.topics.changelog,
        taskIds: taskIds ?? (() => [...this.tasks.values()].map((t) => t.id)),
      },
      this.time,
      this.telemetry,
    )
  }

  // ---- the loop ------------------------------------------------------------------------------

  private async runOnce(): Promise<void> {
    await this.hook.atStep(this.id, 1)
    const records = await this.consumer.poll(this.options.config['max.poll.records'])
    await this.ensureTasks()
    if (records.length > 0) await this.processBatch(records)
    await this.maybeCommit()
  }

  private async processBatch(records: ConsumedRecord[]): Promise<void> {
    const now = this.time.now()
    const byTask = new Map<StreamTask, ConsumedRecord[]>()
    const stale = new Set<StreamTask>()
    for (const r of records) {
      const task = this.tasks.get(r.partition)
      if (!task || task.state !== 'running') continue // not ours any more: its next owner reads it from the committed offset
      // Position guard: a task processes its input in offset order from where it resumed, without
      // gaps (the input topic is written without transactions, so its offsets are dense). Records
      // fetched before its seek (a batch from a closed predecessor's position), and everything after
      // a gap, are dropped, and the partition is fetched again from the task's own position: no
      // input record is ever skipped.
      if (stale.has(task)) continue
      let list = byTask.get(task)
      const expected = task.consumedOffset + (list?.length ?? 0)
      if (r.offset < expected) continue
      if (r.offset > expected) {
        stale.add(task)
        this.consumer.seek({ topic: r.topic, partition: r.partition }, expected)
        continue
      }
      if (!list) byTask.set(task, (list = []))
      list.push(r)
    }
    const traced: Trace[] = []
    for (const [task, recs] of byTask) {
      task.steps.consumed += recs.length
      const t = this.maybeTrace(task, recs[0]!, now)
      if (t) traced.push(t)
    }
    this.emitTraces(traced, 1)

    await this.hook.atStep(this.id, 2)
    for (const [task, recs] of byTask) {
      const poison = task.process(recs)
      for (const p of poison) {
        this.telemetry.emit({ type: 'poison-record', workerId: this.id, taskId: task.id, partition: p.partition, offset: p.offset, policy: 'log-and-continue', atMs: this.time.now() })
      }
    }
    this.emitTraces(traced, 2)

    await this.hook.atStep(this.id, 3)
    const sends: { producer: StreamsProducer; records: ProduceRecord[]; tasks: StreamTask[] }[] = []
    if (this.threadProducer) {
      const all: ProduceRecord[] = []
      for (const task of byTask.keys()) for (const r of task.takePending()) all.push(r)
      sends.push({ producer: this.threadProducer, records: all, tasks: [...byTask.keys()] })
    } else {
      for (const task of byTask.keys()) sends.push({ producer: task.producer!, records: task.takePending(), tasks: [task] })
    }
    // Under exactly_once each task sends through its own producer: a fenced one migrates that task
    // only, and the other tasks' records are still sent, so that no task is left with processed
    // records that never reached the broker.
    let migrated: TaskMigratedError | null = null
    const sent: StreamTask[] = []
    for (const s of sends) {
      for (const t of s.tasks) t.steps.produced = t.steps.processed
      try {
        await s.producer.send(s.records)
        sent.push(...s.tasks)
      } catch (e) {
        if (!(e instanceof TaskMigratedError) || !s.producer || this.threadProducer) throw e
        migrated = new TaskMigratedError([...(migrated?.taskIds ?? []), ...e.taskIds], e.message, { cause: e })
      }
    }
    this.emitTraces(traced, 3)

    // The broker has acknowledged; a worker killed here dies before acting on the ack.
    await this.hook.atStep(this.id, 4)
    for (const task of sent) {
      task.steps.acked = task.steps.produced
      task.markAcked()
    }
    this.emitTraces(traced, 4)
    if (migrated) throw migrated
  }

  private maybeTrace(task: StreamTask, r: ConsumedRecord, now: number): Trace | null {
    let t = this.traces.get(task.partition)
    if (!t) this.traces.set(task.partition, (t = { lastMs: Number.NEGATIVE_INFINITY, open: [] }))
    if (now - t.lastMs < this.options.traceIntervalMs || r.key === null) return null
    t.lastMs = now
    const trace = { key: r.key, partition: r.partition, offset: r.offset }
    t.open.push(trace)
    if (t.open.length > 50) t.open.shift()
    return trace
  }

  private emitTraces(traces: readonly Trace[], step: Step): void {
    const atMs = this.time.now()
    for (const t of traces) this.telemetry.emit({ type: 'trace', workerId: this.id, taskId: `0_${t.partition}`, key: t.key, partition: t.partition, offset: t.offset, step, atMs })
  }

  // ---- commit --------------------------------------------------------------------------------

  private commitDue(): boolean {
    return this.time.now() - this.lastCommitMs >= this.options.config['commit.interval.ms']
  }

  private async maybeCommit(): Promise<void> {
    if (!this.commitDue()) return
    const dirty = [...this.tasks.values()].some((t) => t.needsCommit())
    if (!dirty) {
      this.lastCommitMs = this.time.now()
      return
    }
    await this.hook.atStep(this.id, 5)
    await this.commitAll()
  }

  /** One commit point: the offsets of every task with progress, with their records under exactly_once. */
  private async commitAll(): Promise<void> {
    const now = this.time.now()
    const input = this.options.topics.input
    // A task whose processed records never reached the broker must not commit past them: its state
    // and position are ahead of the log. It is corrupted: close it dirty and restore it.
    const corrupted = [...this.tasks.values()].filter((t) => t.hasUnackedWork())
    if (corrupted.length > 0) throw new TaskCorruptedError(corrupted.map((t) => t.id), 'processed records were never acknowledged by the broker')
    const dirty = [...this.tasks.values()].filter((t) => t.needsCommit())
    const offsetOf = (t: StreamTask): OffsetToCommit => ({ topic: input, partition: t.partition, offset: t.ackedOffset })
    if (this.guarantee === 'at_least_once') {
      if (dirty.length > 0) {
        try {
          await this.consumer.commitOffsets(dirty.map(offsetOf))
        } catch (e) {
          // A commit refused by the group (this member was dropped, or its generation is over): migrated.
          if (isMigrationError(e)) throw new TaskMigratedError(dirty.map((t) => t.id), `offset commit refused: ${(e as Error).message}`, { cause: e })
          throw e
        }
      }
    } else if (this.guarantee === 'exactly_once_v2') {
      await this.threadProducer!.commitTransaction(dirty.map(offsetOf), this.consumer.groupMetadata())
    } else {
      const group = { groupId: this.options.config['application.id'], memberId: '', generationId: -1 }
      for (const t of this.tasks.values()) {
        if (t.needsCommit() || t.producer?.transactionInFlight) await t.producer!.commitTransaction(t.needsCommit() ? [offsetOf(t)] : [], group)
      }
    }
    for (const t of dirty) {
      t.markCommitted()
      t.steps.committed = t.steps.acked
    }
    if (dirty.length > 0) {
      this.telemetry.emit({ type: 'offsets-committed', workerId: this.id, offsets: dirty.map((t) => ({ partition: t.partition, offset: t.ackedOffset })), atMs: this.time.now() })
      const done: Trace[] = []
      for (const t of dirty) {
        const tr = this.traces.get(t.partition)
        if (!tr) continue
        tr.open = tr.open.filter((x) => (x.offset < t.ackedOffset ? (done.push(x), false) : true))
      }
      this.emitTraces(done, 5)
    }
    this.lastCommitMs = now
  }

  // ---- tasks: assignment, revocation, migration -----------------------------------------------

  /** Creates a task for every assigned partition that has none: fence, read committed offsets, restore, resume. */
  private async ensureTasks(): Promise<void> {
    for (const tp of this.consumer.assignment()) {
      if (!this.tasks.has(tp.partition)) await this.createTask(tp)
    }
  }

  private async createTask(tp: TopicPartition): Promise<void> {
    const c = this.options.config
    const task = new StreamTask(tp.partition, this.options.topics, this.options.deserializationPolicy)
    this.tasks.set(tp.partition, task)
    task.state = 'restoring'
    this.telemetry.emit({ type: 'task-created', workerId: this.id, taskId: task.id, atMs: this.time.now() })
    // 1. Fence: under exactly_once the task's own transactional.id; under v2 the worker's producer did it at start.
    if (this.guarantee === 'exactly_once') {
      task.producer = this.newProducer(`${c['application.id']}-${task.id}`, true, () => [task.id])
      await task.producer.initTransaction()
    } else {
      task.producer = this.threadProducer
    }
    const changelog = { topic: this.options.topics.changelog, partition: tp.partition }
    // A previous owner's open transaction on the changelog must end (aborted by the fence above,
    // or by transaction.timeout.ms) before the store can be restored completely.
    if (isExactlyOnce(this.guarantee)) await awaitStableChangelog(this.reader, changelog, (ms) => this.time.sleep(ms))
    this.telemetry.emit({ type: 'fence-complete', workerId: this.id, taskId: task.id, atMs: this.time.now() })
    // 2. Committed offsets, stable (waits for pending transactional commits).
    const committed = (await this.consumer.committed([tp])).get(`${tp.topic}-${tp.partition}`) ?? null
    // 3. Restore the store from the changelog.
    const isolation = isExactlyOnce(this.guarantee) ? 'read_committed' : 'read_uncommitted'
    this.telemetry.emit({ type: 'restore-start', workerId: this.id, taskId: task.id, fromOffset: 0, toOffset: 0, atMs: this.time.now() })
    const restored = await restoreFromChangelog(task.store, this.reader, changelog, isolation)
    this.telemetry.emit({ type: 'restore-end', workerId: this.id, taskId: task.id, records: restored.records, atMs: this.time.now() })
    // 4. Resume from the committed offset (auto.offset.reset=earliest).
    const start = committed ?? 0
    this.consumer.seek(tp, start)
    task.resumeAt(start, committed)
    task.state = 'running'
  }

  private async handleRevoked(tps: TopicPartition[]): Promise<void> {
    // A clean hand-off: commit everything, then close the revoked tasks.
    try {
      await this.commitAll()
    } catch (e) {
      if (e instanceof TaskMigratedError) {
        await this.closeAllDirty()
        return
      }
      throw e
    }
    for (const tp of tps) await this.closeTask(tp.partition, true)
  }

  private async handleLost(tps: TopicPartition[]): Promise<void> {
    this.telemetry.emit({ type: 'task-migrated', workerId: this.id, taskIds: tps.map((tp) => `0_${tp.partition}`), reason: 'partitions lost: this member was removed from the group', atMs: this.time.now() })
    if (this.guarantee === 'exactly_once_v2') await this.threadProducer?.abortTransaction('fenced')
    for (const tp of tps) await this.closeTask(tp.partition, false)
  }

  private async handleTaskMigrated(e: TaskMigratedError): Promise<void> {
    this.telemetry.emit({ type: 'task-migrated', workerId: this.id, taskIds: [...e.taskIds], reason: e.message, atMs: this.time.now() })
    if (this.guarantee === 'exactly_once') {
      for (const id of e.taskIds) {
        const p = Number(id.split('_')[1])
        await this.closeTask(p, false)
      }
    } else {
      await this.closeAllDirty()
    }
    // Rejoin before any task is recreated, so a fenced member never fences its successor back.
    this.consumer.enforceRebalance?.()
  }

  /** Wipe and restore: close the tasks dirty; ensureTasks recreates them from the committed offsets and the changelog. */
  private async handleTaskCorrupted(e: TaskCorruptedError): Promise<void> {
    this.telemetry.emit({ type: 'task-migrated', workerId: this.id, taskIds: [...e.taskIds], reason: `task corrupted: ${e.message}`, atMs: this.time.now() })
    if (this.guarantee === 'exactly_once') {
      for (const id of e.taskIds) await this.closeTask(Number(id.split('_')[1]), false)
    } else {
      // One producer (and under exactly_once_v2 one transaction) for all tasks: all of them go.
      await this.closeAllDirty()
    }
  }

  private async closeAllDirty(): Promise<void> {
    if (this.guarantee === 'exactly_once_v2' && this.threadProducer) {
      await this.threadProducer.abortTransaction('fenced')
      await this.threadProducer.replace()
      await this.threadProducer.initTransaction()
    }
    for (const p of [...this.tasks.keys()]) await this.closeTask(p, false)
  }

  /** closeClean keeps nothing pending; closeDirty aborts what it can and discards the state. */
  private async closeTask(partition: number, clean: boolean): Promise<void> {
    const task = this.tasks.get(partition)
    if (!task) return
    this.tasks.delete(partition)
    task.state = 'closed'
    if (this.guarantee === 'exactly_once' && task.producer) {
      if (!clean) await task.producer.abortTransaction('fenced')
      await task.producer.close()
    }
    task.store.wipe()
    task.takePending()
    this.traces.delete(partition)
    this.telemetry.emit({ type: 'task-closed', workerId: this.id, taskId: task.id, clean, atMs: this.time.now() })
  }

  private async closeClean(): Promise<void> {
    try {
      await this.commitAll()
    } catch (e) {
      if (!(e instanceof TaskMigratedError)) throw e
      await this.closeAllDirty()
    }
    for (const p of [...this.tasks.keys()]) await this.closeTask(p, true)
    await this.consumer.close()
    await this.threadProducer?.close()
  }
}

