// The runtime port on the embedded log: the cluster, the load generator, worker slots under a
// supervisor, fault injection (kills at a step, pauses, dropped acks) and recovery tracking, all
// in this process. It publishes the same events as the worker-process runtime (each worker's
// status every STATUS_EVERY_MS, partition assignments, kills, pauses), plus the broker's own.
// Used by the dashboard's lab, headless runs, the scenarios, the soak and the sweep.

import type { Step } from '../../lib/lab-protocol.ts'
import { changelogTopic, DEFAULT_DLQ_TOPIC, DEFAULT_INPUT_TOPIC, DEFAULT_OUTPUT_TOPIC } from '../../lib/records.ts'
import { type StreamsConfig, validateStreamsConfig } from '../../lib/streams-config.ts'
import { requireGuarantee } from '../log/capabilities.ts'
import { ProcessKilledError } from '../log/errors.ts'
import { SeededRandom, type Time } from '../log/time.ts'
import type { LogConnection, TopicPartition } from '../log/types.ts'
import { EmbeddedCluster, type BrokerEvent } from '../log/embedded/embedded-cluster.ts'
import { ClientFaults, EmbeddedConnection } from '../log/embedded/embedded-connection.ts'
import { latencyModel } from '../log/embedded/latency-model.ts'
import { ProcessHandle } from '../log/embedded/process-handle.ts'
import { StreamWorker } from '../engine/stream-worker.ts'
import type { DeserializationPolicy, TaskTopics } from '../engine/stream-task.ts'
import type { EngineEvent, TelemetrySink } from '../engine/telemetry.ts'
import { committedRecords, groupOffsets, highWatermarks, lastSequences } from './embedded-reads.ts'
import {
  EventHub,
  type LabEvent,
  type LabRuntime,
  type RevivalSettings,
  type RuntimeSettings,
  type RuntimeWording,
  type TaskStatus,
  type WorkerCrash,
} from './lab-runtime.ts'
import { LoadGenerator } from './load-generator.ts'
import { RecoveryTracker, type KilledPartition } from './recovery-tracker.ts'
import { poisonRecords, trackKill, trackRecovery, workerStatusOf } from './runtime-common.ts'
import { waitingRecords } from './waiting-records.ts'

export interface InProcessRuntimeOptions extends RuntimeSettings {
  latency: 'default' | 'off'
  deserializationPolicy: DeserializationPolicy
  traceIntervalMs: number
  poisonRatio?: number
  /** At full speed, the generator pauses while the workers have more than this many records left to consume. */
  maxBacklog?: number
}

export interface WorkerSlot {
  slotId: string
  incarnation: number
  worker: StreamWorker | null
  process: ProcessHandle
  startedAtMs: number
}

const TICK_MS = 50
/** Each worker's status is published this often, as a worker process publishes its telemetry. */
const STATUS_EVERY_MS = 100
/** Records kept per partition of input, output and dead-letter topics (retention.bytes, by count). */
const RETAINED_RECORDS = 50_000
const WORDING: RuntimeWording = {
  killed: '',
  paused: ' (zombie to be)',
  resumed: '',
  restarted: '',
  added: '',
  latencyModel: null,
}

export class InProcessRuntime implements LabRuntime {
  readonly cluster: EmbeddedCluster
  readonly topics: TaskTopics
  readonly slots: WorkerSlot[] = []
  readonly tracker = new RecoveryTracker()
  readonly random: SeededRandom
  readonly generator: LoadGenerator
  readonly workerFaults = new ClientFaults()
  readonly notes: readonly string[] = []
  readonly labNotes: readonly string[] = []
  readonly wording = WORDING
  readonly pollMs = { visibility: 20, logView: 100 }
  readonly statusByMessages = false
  private readonly labConn: EmbeddedConnection
  private readonly armedKills = new Map<string, Step>()
  private readonly armedPauses = new Map<string, Step>()
  private readonly hub = new EventHub()
  private stopped = false
  private tickerDone: Promise<void> = Promise.resolve()
  private txns = { committed: 0, aborted: 0 }
  config: StreamsConfig
  deserializationPolicy: DeserializationPolicy
  kills = 0
  /** Workers whose engine failed (WorkerCrash); replaced after restartAfterMs when restartFailed is set. */
  readonly crashes: WorkerCrash[] = []
  droppedAcks = 0
  fenced = 0
  readonly startedAtMs: number
  /** Each worker's tasks as it last reported holding some: what a crash leaves to recover. */
  private readonly lastHeld = new Map<string, TaskStatus[]>()

  constructor(
    readonly time: Time,
    readonly options: InProcessRuntimeOptions,
  ) {
    this.config = validateStreamsConfig({ ...options.config })
    this.deserializationPolicy = options.deserializationPolicy
    this.random = new SeededRandom(options.seed)
    this.cluster = new EmbeddedCluster(time, { latency: latencyModel(options.latency) })
    this.labConn = new EmbeddedConnection(this.cluster, new ProcessHandle('lab'), new ClientFaults())
    requireGuarantee(this.labConn.capabilities, this.config['processing.guarantee'])
    const appId = this.config['application.id']
    this.topics = {
      input: DEFAULT_INPUT_TOPIC,
      output: DEFAULT_OUTPUT_TOPIC,
      changelog: changelogTopic(appId),
      deadLetter: DEFAULT_DLQ_TOPIC,
    }
    for (const topic of [this.topics.input, this.topics.output, this.topics.deadLetter])
      this.cluster.createTopic({ topic, partitions: options.partitions })
    this.cluster.createTopic({ topic: this.topics.changelog, partitions: options.partitions, compacted: true })
    const { partitions, ratePerSec, maxRecords, keys, poisonRatio, maxBacklog } = options
    const load = {
      topic: this.topics.input,
      partitions,
      ratePerSec,
      maxRecords,
      keys,
      seed: options.seed ^ 0x5eed,
      poisonRatio,
      maxBacklog,
      backlog: () => this.backlog(),
    }
    this.generator = new LoadGenerator(
      this.labConn.producer({ clientId: 'load-generator', idempotent: true }),
      load,
      time,
    )
    this.startedAtMs = time.now()
    this.cluster.onEvent((e) => this.onBrokerEvent(e))
    this.workerFaults.onAckDropped((e) => {
      this.droppedAcks++
      this.emit({ type: 'ack-dropped', ...e })
    })
  }

  get connection(): LogConnection {
    return this.labConn
  }
  get groupId(): string {
    return this.config['application.id']
  }
  get partitions(): number {
    return this.options.partitions
  }
  get latencyModel(): 'default' | 'off' {
    return this.options.latency
  }
  get backend(): 'embedded' | 'kafka' {
    return this.labConn.capabilities.backend
  }
  readonly clusterAddress = null

  onEvent(l: (e: LabEvent) => void): () => void {
    return this.hub.on(l)
  }
  private emit(e: LabEvent): void {
    if (e.type === 'worker-status' && e.status.tasks.length > 0) this.lastHeld.set(e.workerId, e.status.tasks)
    trackRecovery(this.tracker, e)
    this.hub.emit(e)
  }

  private readonly telemetry: TelemetrySink = { emit: (e: EngineEvent) => this.emit(e) }

  private onBrokerEvent(e: BrokerEvent): void {
    if (e.type === 'group' && e.groupId === this.groupId) {
      const g = e.event
      if (g.type === 'member-expired' || g.type === 'member-left')
        this.emit({ type: 'member-gone', memberId: g.memberId, atMs: g.atMs })
      if (g.type === 'partitions-assigned') {
        const partitions = g.partitions.filter((p) => p.topic === this.topics.input).map((p) => p.partition)
        this.emit({ type: 'partitions-assigned', memberId: g.memberId, partitions, atMs: g.atMs })
      }
    }
    if (e.type === 'txn-ended' && e.outcome === 'committed') this.txns.committed++
    if (e.type === 'txn-ended' && e.outcome === 'aborted') {
      this.txns.aborted++
      this.tracker.onTxnAborted(e.transactionalId, e.endMs)
      // An older epoch's open transaction aborted by a new owner's InitProducerId: a fencing.
      if (e.reason === 'fenced') this.fenced++
    }
    this.emit({ source: 'broker', ...e })
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  async start(): Promise<void> {
    if (this.options.prefill) {
      if (!Number.isFinite(this.options.maxRecords)) throw new Error('prefill needs a finite maxRecords')
      await this.generator.start()
    }
    for (let i = 0; i < this.options.workers; i++) this.addWorker()
    if (!this.options.prefill) void this.generator.start()
    this.tickerDone = this.runTicker()
  }

  private async runTicker(): Promise<void> {
    let lastStatus = this.time.now()
    while (!this.stopped) {
      this.cluster.tick()
      if (this.time.now() - lastStatus >= STATUS_EVERY_MS) {
        lastStatus = this.time.now()
        for (const s of this.slots) if (s.process.alive) this.publishStatus(s)
      }
      await this.time.sleep(TICK_MS)
    }
  }

  private publishStatus(slot: WorkerSlot): void {
    const w = slot.worker
    if (!w) return
    this.emit({
      type: 'worker-status',
      workerId: w.id,
      slotId: slot.slotId,
      origin: 'own',
      pid: null,
      host: null,
      status: workerStatusOf(w),
      atMs: this.time.now(),
    })
  }

  addWorker(): WorkerSlot {
    const slot: WorkerSlot = {
      slotId: `worker-${this.slots.length + 1}`,
      incarnation: 0,
      worker: null,
      process: new ProcessHandle('none'),
      startedAtMs: this.time.now(),
    }
    this.slots.push(slot)
    this.startInSlot(slot)
    return slot
  }

  private startInSlot(slot: WorkerSlot): void {
    slot.incarnation++
    const id = slot.incarnation === 1 ? slot.slotId : `${slot.slotId}.${slot.incarnation}`
    slot.process = new ProcessHandle(id)
    slot.startedAtMs = this.time.now()
    const conn = new EmbeddedConnection(this.cluster, slot.process, this.workerFaults)
    const { config, topics, deserializationPolicy } = this
    const options = {
      slotId: slot.slotId,
      config,
      topics,
      deserializationPolicy,
      traceIntervalMs: this.options.traceIntervalMs,
    }
    const worker = new StreamWorker(id, conn, options, this.time, this.telemetry, {
      atStep: (workerId, step) => this.atStep(slot, workerId, step),
    })
    slot.worker = worker
    void worker.start().then(() => this.onWorkerEnded(slot, worker))
    this.publishStatus(slot)
  }

  /** A worker whose engine failed (not killed, not stopped): a crash, reported, and replaced when restartFailed. */
  private onWorkerEnded(slot: WorkerSlot, worker: StreamWorker): void {
    if (worker.state !== 'failed' || this.stopped) return
    const atMs = this.time.now()
    const crash: WorkerCrash = {
      workerId: worker.id,
      slotId: slot.slotId,
      atMs,
      cause: worker.error ?? 'failed',
      exitCode: null,
      signal: null,
    }
    this.crashes.push(crash)
    const held = this.lastHeld.get(worker.id) ?? []
    trackKill(this.tracker, this.config, {
      workerId: worker.id,
      slotId: slot.slotId,
      memberId: worker.memberId,
      t0: atMs,
      partitions: held.map((t) => ({
        partition: t.partition,
        positionAtKill: t.consumedOffset,
        committedAtKill: t.committedOffset,
        ackedAtKill: t.ackedOffset ?? null,
      })),
      hadOpenTxn: held.some((t) => t.inTransaction),
    })
    this.emit({ type: 'worker-crashed', ...crash })
    if (!this.options.restartFailed || this.options.restartAfterMs === null) return
    void this.time.sleep(this.options.restartAfterMs).then(() => {
      if (!this.stopped && slot.worker === worker && this.slots.includes(slot)) this.startInSlot(slot)
    })
  }

  private async atStep(slot: WorkerSlot, workerId: string, step: Step): Promise<void> {
    await slot.process.gate()
    if (this.armedKills.get(workerId) === step) {
      this.armedKills.delete(workerId)
      this.killNow(slot, step)
      throw new ProcessKilledError(workerId)
    }
    if (this.armedPauses.get(workerId) === step) {
      this.armedPauses.delete(workerId)
      slot.process.pause()
      this.emit({ type: 'worker-paused', workerId, step, atMs: this.time.now() })
      await slot.process.gate()
    }
  }

  liveSlots(): WorkerSlot[] {
    return this.slots.filter(
      (s) => s.worker && s.process.alive && s.worker.state !== 'stopped' && s.worker.state !== 'failed',
    )
  }

  slotOf(workerId: string): WorkerSlot | undefined {
    return this.slots.find((s) => s.worker?.id === workerId)
  }

  isRemote(): boolean {
    return false
  }

  /** Kills a worker abruptly, now or when it next reaches `step`. */
  kill(workerId: string, step: Step | null = null): boolean {
    const slot = this.slotOf(workerId)
    if (!slot?.process.alive) return false
    if (step !== null && slot.process.state === 'running') {
      this.armedKills.set(workerId, step)
      return true
    }
    this.killNow(slot, step)
    return true
  }

  async killConfirmed(workerId: string, step: Step | null = null): Promise<boolean> {
    return this.kill(workerId, step)
  }

  private killNow(slot: WorkerSlot, step: Step | null): void {
    const worker = slot.worker!
    const now = this.time.now()
    const owned = [...worker.tasks.values()]
    const committed = this.committedOffsets()
    const partitions: KilledPartition[] = owned.map((t) => ({
      partition: t.partition,
      positionAtKill: t.consumedOffset,
      committedAtKill: committed[t.partition] ?? null,
      ackedAtKill: t.ackedOffset,
    }))
    const hadOpenTxn = owned.some((t) => t.producer?.transactionInFlight === true)
    trackKill(this.tracker, this.config, {
      workerId: worker.id,
      slotId: slot.slotId,
      memberId: worker.memberId,
      t0: now,
      partitions,
      hadOpenTxn,
    })
    slot.process.kill(now)
    this.kills++
    this.emit({ type: 'worker-killed', workerId: worker.id, step, atMs: now })
    if (this.options.restartAfterMs !== null && !this.stopped) {
      void this.time.sleep(this.options.restartAfterMs).then(() => {
        if (!this.stopped && slot.process.state === 'killed') this.startInSlot(slot)
      })
    }
  }

  /** Pauses a worker now, or when it next reaches `step` (SIGSTOP: no heartbeats, it becomes a zombie). */
  pause(workerId: string, step: Step | null = null): boolean {
    const slot = this.slotOf(workerId)
    if (slot?.process.state !== 'running') return false
    if (step !== null) {
      this.armedPauses.set(workerId, step)
      return true
    }
    slot.process.pause()
    this.emit({ type: 'worker-paused', workerId, step: null, atMs: this.time.now() })
    return true
  }
  resume(workerId: string): boolean {
    const slot = this.slotOf(workerId)
    if (slot?.process.state !== 'paused') return false
    slot.process.resume()
    return true
  }

  /** Appends input records whose values do not parse (poison), keyed like the rest. */
  async injectPoison(count: number): Promise<void> {
    const producer = this.labConn.producer({ clientId: 'poison-injector', idempotent: false })
    await producer.send(
      poisonRecords(this.random, count, this.options.keys, this.topics.input, this.options.partitions),
    )
  }

  /** Committed records in the dead-letter topic (what a read_committed consumer of it sees). */
  deadLetters(): number {
    return committedRecords(this.cluster, this.topics.deadLetter, this.options.partitions)
  }

  dropAcks(n: number): void {
    this.workerFaults.ackDrops.arm(n)
  }

  /** Restarts every worker cleanly with a new config (commit, close, leave; then start). */
  async reconfigure(
    config: StreamsConfig,
    deserializationPolicy: DeserializationPolicy = this.deserializationPolicy,
  ): Promise<void> {
    const next = validateStreamsConfig({ ...config })
    requireGuarantee(this.labConn.capabilities, next['processing.guarantee'])
    this.deserializationPolicy = deserializationPolicy
    for (const s of this.slots) if (s.process.state === 'paused') s.process.resume()
    for (const s of this.slots) if (s.process.alive) s.worker?.requestStop()
    await Promise.all(this.slots.map((s) => s.worker?.done))
    this.armedKills.clear()
    this.armedPauses.clear()
    this.config = next
    for (const s of this.slots) this.startInSlot(s)
  }

  /** Stops the last slot's worker cleanly and forgets the slot. */
  async removeWorker(): Promise<WorkerSlot | null> {
    if (this.slots.length <= 1) return null
    const s = this.slots.pop()!
    if (s.process.state === 'paused') s.process.resume()
    s.worker?.requestStop()
    await s.worker?.done
    return s
  }

  // ---- queries ------------------------------------------------------------------------------

  inputEndOffsets(): number[] {
    return highWatermarks(this.cluster, this.topics.input, this.options.partitions)
  }
  committedOffsets(): (number | null)[] {
    return groupOffsets(this.cluster, this.groupId, this.topics.input, this.options.partitions)
  }
  /** In one process the log and the group are read in one turn: one moment. */
  groupOffsets(): { committed: (number | null)[]; ends: number[] } {
    return { committed: this.committedOffsets(), ends: this.inputEndOffsets() }
  }
  /** Input records not yet consumed: the input end offsets minus the consumer positions (or committed offsets). */
  backlog(): number {
    const live = this.slots.filter((s) => s.process.alive && s.worker).flatMap((s) => [...s.worker!.tasks.values()])
    return waitingRecords(this.inputEndOffsets(), this.committedOffsets(), live)
  }

  committedTotal(): number {
    return this.committedOffsets().reduce<number>((a, b) => a + (b ?? 0), 0)
  }
  caughtUp(): boolean {
    if (!this.generator.finished) return false
    const ends = this.inputEndOffsets()
    const committed = this.committedOffsets()
    return ends.every((e, p) => (committed[p] ?? 0) >= e)
  }
  faultWindowOpen(): boolean {
    return !this.generator.finished
  }
  transactionCounts(): { committed: number; aborted: number } {
    return { ...this.txns }
  }
  async settle(): Promise<void> {
    // The embedded coordinator writes a transaction's markers before EndTxn answers.
  }
  producerSequences(producerId: number): { partition: string; sequence: number }[] {
    return lastSequences(this.cluster, [this.topics.output, this.topics.changelog], this.options.partitions, producerId)
  }
  applyRetention(keepFrom: (tp: TopicPartition) => number): void {
    this.cluster.applyRetention({ maxRecords: RETAINED_RECORDS }, keepFrom)
  }
  loadFailure(): string | null {
    return null
  }

  /** Stops the generator and every worker cleanly (paused ones are resumed first). */
  async stop(): Promise<void> {
    this.generator.stop()
    await this.generator.done
    for (const s of this.slots) if (s.process.state === 'paused') s.process.resume()
    for (const s of this.slots) s.worker?.requestStop()
    await Promise.all(this.slots.map((s) => s.worker?.done))
    this.stopped = true
    await this.tickerDone
  }

  /** Ends everything at once, as a reset does: no cleanup. */
  async close(): Promise<void> {
    this.stopped = true
    this.generator.stop()
    for (const s of this.slots) s.process.kill(this.time.now())
    await Promise.allSettled(this.slots.map((s) => s.worker?.done))
  }
  /**
   * Runs on after stop() or close() (an in-process log outlives both): the broker's ticker again, with these settings.
   */
  async revive(settings: RevivalSettings): Promise<void> {
    this.options.restartAfterMs = settings.restartAfterMs
    this.workerFaults.ackDrops.disarm()
    if (this.options.latency !== settings.latency) {
      this.options.latency = settings.latency
      this.cluster.latency = latencyModel(settings.latency)
    }
    if (!this.stopped) return
    await this.tickerDone
    this.stopped = false
    this.tickerDone = this.runTicker()
  }
  /** The same as close(). */
  destroy(): Promise<void> {
    return this.close()
  }
  async retire(): Promise<void> {
    // Nothing outlives an in-process log.
  }
}
