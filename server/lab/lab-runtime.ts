// One running lab on the embedded log: the cluster, the load generator, worker slots under a
// supervisor, fault injection (kills at a step, pauses, dropped acks), recovery tracking and the
// aggregation of telemetry. Used by the dashboard's lab and by the headless CLI alike.

import type { Step } from '../../lib/lab-protocol.ts'
import { changelogTopic, DEFAULT_DLQ_TOPIC, DEFAULT_INPUT_TOPIC, DEFAULT_OUTPUT_TOPIC } from '../../lib/records.ts'
import { isExactlyOnce, type StreamsConfig, validateStreamsConfig } from '../../lib/streams-config.ts'
import { ProcessKilledError } from '../log/errors.ts'
import type { Time } from '../log/time.ts'
import { SeededRandom } from '../log/time.ts'
import type { LogConnection, TopicPartition } from '../log/types.ts'
import { tpKey } from '../log/types.ts'
import { EmbeddedCluster, type BrokerEvent } from '../log/embedded/embedded-cluster.ts'
import { ClientFaults, EmbeddedConnection, type AckDropped } from '../log/embedded/embedded-connection.ts'
import { latencyModel } from '../log/embedded/latency-model.ts'
import { ProcessHandle } from '../log/embedded/process-handle.ts'
import { StreamWorker } from '../engine/stream-worker.ts'
import type { DeserializationPolicy, TaskTopics } from '../engine/stream-task.ts'
import type { EngineEvent, TelemetrySink } from '../engine/telemetry.ts'
import { LoadGenerator } from './load-generator.ts'
import { partitionForKey } from '../../lib/partitioner.ts'
import { RecoveryTracker, type KilledPartition } from './recovery-tracker.ts'

export interface LabRuntimeOptions {
  config: StreamsConfig
  workers: number
  partitions: number
  ratePerSec: number
  maxRecords: number
  keys: number
  seed: number
  latency: 'default' | 'off'
  /** A killed worker is replaced by a fresh one (new member id, same slot) after this long; null: never. */
  restartAfterMs: number | null
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

export type LabEvent = EngineEvent | ({ source: 'broker' } & BrokerEvent) | ({ type: 'ack-dropped' } & AckDropped) | { type: 'worker-killed'; workerId: string; step: Step | null; atMs: number }
  | { type: 'worker-paused'; workerId: string; step: Step | null; atMs: number }

export class LabRuntime {
  readonly cluster: EmbeddedCluster
  readonly topics: TaskTopics
  readonly slots: WorkerSlot[] = []
  readonly tracker = new RecoveryTracker()
  readonly random: SeededRandom
  readonly generator: LoadGenerator
  readonly workerFaults = new ClientFaults()
  private readonly labConn: EmbeddedConnection
  private readonly armedKills = new Map<string, Step>()
  private readonly armedPauses = new Map<string, Step>()
  private readonly listeners: ((e: LabEvent) => void)[] = []
  private stopped = false
  private tickerDone: Promise<void> = Promise.resolve()
  private workerSeq = 0
  config: StreamsConfig
  deserializationPolicy: DeserializationPolicy
  kills = 0
  droppedAcks = 0
  fenced = 0
  readonly startedAtMs: number

  constructor(
    readonly time: Time,
    readonly options: LabRuntimeOptions,
  ) {
    this.config = validateStreamsConfig({ ...options.config })
    this.deserializationPolicy = options.deserializationPolicy
    this.random = new SeededRandom(options.seed)
    this.cluster = new EmbeddedCluster(time, { latency: latencyModel(options.latency) })
    const appId = this.config['application.id']
    this.topics = { input: DEFAULT_INPUT_TOPIC, output: DEFAULT_OUTPUT_TOPIC, changelog: changelogTopic(appId), deadLetter: DEFAULT_DLQ_TOPIC }
    for (const topic of [this.topics.input, this.topics.output, this.topics.deadLetter]) this.cluster.createTopic({ topic, partitions: options.partitions })
    this.cluster.createTopic({ topic: this.topics.changelog, partitions: options.partitions, compacted: true })
    this.labConn = new EmbeddedConnection(this.cluster, new ProcessHandle('lab'), new ClientFaults())
    this.generator = new LoadGenerator(
      this.labConn.producer({ clientId: 'load-generator', idempotent: true }),
      {
        topic: this.topics.input,
        partitions: options.partitions,
        ratePerSec: options.ratePerSec,
        maxRecords: options.maxRecords,
        keys: options.keys,
        seed: options.seed ^ 0x5eed,
        poisonRatio: options.poisonRatio,
        maxBacklog: options.maxBacklog,
        backlog: () => this.backlog(),
      },
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

  onEvent(l: (e: LabEvent) => void): void {
    this.listeners.push(l)
  }
  private emit(e: LabEvent): void {
    for (const l of this.listeners) l(e)
  }

  private readonly telemetry: TelemetrySink = {
    emit: (e: EngineEvent) => {
      const t = this.tracker
      switch (e.type) {
        case 'fence-complete':
          t.onFenced(Number(e.taskId.split('_')[1]), e.atMs)
          break
        case 'restore-end':
          t.onRestored(Number(e.taskId.split('_')[1]), e.atMs)
          break
        case 'offsets-committed':
          for (const o of e.offsets) t.onCommitted(o.partition, o.offset, e.atMs)
          break
      }
      this.emit(e)
    },
  }

  private onBrokerEvent(e: BrokerEvent): void {
    if (e.type === 'group' && e.groupId === this.groupId) {
      const g = e.event
      if (g.type === 'member-expired' || g.type === 'member-left') this.tracker.onMemberGone(g.memberId, g.atMs)
      if (g.type === 'partitions-assigned') this.tracker.onAssigned(g.partitions.filter((p) => p.topic === this.topics.input).map((p) => p.partition), g.atMs)
    }
    if (e.type === 'txn-ended' && e.outcome === 'aborted') {
      this.tracker.onTxnAborted(e.transactionalId, e.endMs)
      // An older epoch's open transaction aborted by a new owner's InitProducerId: a fencing.
      if (e.reason === 'fenced') this.fenced++
    }
    this.emit({ source: 'broker', ...e })
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  async start(): Promise<void> {
    for (let i = 0; i < this.options.workers; i++) this.addWorker()
    this.generator.start()
    this.tickerDone = this.runTicker()
  }

  private async runTicker(): Promise<void> {
    while (!this.stopped) {
      this.cluster.tick()
      await this.time.sleep(50)
    }
  }

  addWorker(): WorkerSlot {
    const slot: WorkerSlot = { slotId: `worker-${this.slots.length + 1}`, incarnation: 0, worker: null, process: new ProcessHandle('none'), startedAtMs: this.time.now() }
    this.slots.push(slot)
    this.startInSlot(slot)
    return slot
  }

  private startInSlot(slot: WorkerSlot): void {
    slot.incarnation++
    this.workerSeq++
    const id = slot.incarnation === 1 ? slot.slotId : `${slot.slotId}.${slot.incarnation}`
    slot.process = new ProcessHandle(id)
    slot.startedAtMs = this.time.now()
    const conn = new EmbeddedConnection(this.cluster, slot.process, this.workerFaults)
    slot.worker = new StreamWorker(
      id,
      conn,
      { slotId: slot.slotId, config: this.config, topics: this.topics, deserializationPolicy: this.deserializationPolicy, traceIntervalMs: this.options.traceIntervalMs },
      this.time,
      this.telemetry,
      { atStep: (workerId, step) => this.atStep(slot, workerId, step) },
    )
    slot.worker.start()
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
    return this.slots.filter((s) => s.worker && s.process.alive && s.worker.state !== 'stopped' && s.worker.state !== 'failed')
  }

  slotOf(workerId: string): WorkerSlot | undefined {
    return this.slots.find((s) => s.worker?.id === workerId)
  }

  /** Kills a worker abruptly, now or when it next reaches `step`. */
  kill(workerId: string, step: Step | null = null): boolean {
    const slot = this.slotOf(workerId)
    if (!slot || !slot.process.alive) return false
    if (step !== null && slot.process.state === 'running') {
      this.armedKills.set(workerId, step)
      return true
    }
    this.killNow(slot, step)
    return true
  }

  private killNow(slot: WorkerSlot, step: Step | null): void {
    const worker = slot.worker!
    const now = this.time.now()
    const owned = [...worker.tasks.values()]
    const tps: TopicPartition[] = owned.map((t) => ({ topic: this.topics.input, partition: t.partition }))
    const committed = this.cluster.group(this.groupId).fetchCommitted(tps)
    const partitions: KilledPartition[] = owned.map((t) => ({
      partition: t.partition,
      positionAtKill: t.consumedOffset,
      committedAtKill: committed.get(tpKey(this.topics.input, t.partition)) ?? null,
    }))
    const g = this.config['processing.guarantee']
    const transactionalIds = g === 'exactly_once' ? owned.map((t) => `${this.groupId}-${t.id}`) : g === 'exactly_once_v2' ? [`${this.groupId}-${slot.slotId}`] : []
    const hadOpenTxn = owned.some((t) => t.producer?.transactionInFlight === true)
    this.tracker.onKill({ workerId: worker.id, memberId: worker.memberId, transactionalIds, guarantee: g, t0: now, partitions, hadOpenTxn })
    slot.process.kill(now)
    this.kills++
    this.emit({ type: 'worker-killed', workerId: worker.id, step, atMs: now })
    if (this.options.restartAfterMs !== null && !this.stopped) {
      const delay = this.options.restartAfterMs
      void this.time.sleep(delay).then(() => {
        if (!this.stopped && slot.process.state === 'killed') this.startInSlot(slot)
      })
    }
  }

  /** Pauses a worker now, or when it next reaches `step` (SIGSTOP: no heartbeats, it becomes a zombie). */
  pause(workerId: string, step: Step | null = null): boolean {
    const slot = this.slotOf(workerId)
    if (!slot || slot.process.state !== 'running') return false
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
    if (!slot || slot.process.state !== 'paused') return false
    slot.process.resume()
    return true
  }

  /** Appends input records whose values do not parse (poison), keyed like the rest. */
  async injectPoison(count: number): Promise<void> {
    const keys = Array.from({ length: count }, () => `k${String(this.random.int(0, this.options.keys)).padStart(4, '0')}`)
    const producer = this.labConn.producer({ clientId: 'poison-injector', idempotent: false })
    await producer.send(keys.map((key) => ({ topic: this.topics.input, partition: partitionForKey(key, this.options.partitions), key, value: `not-a-number-${this.random.int(0, 1_000_000)}` })))
  }

  /** Committed records in the dead-letter topic (what a read_committed consumer of it sees). */
  deadLetters(): number {
    let n = 0
    for (let p = 0; p < this.options.partitions; p++) n += this.cluster.partitionLog({ topic: this.topics.deadLetter, partition: p }).read(0, Number.MAX_SAFE_INTEGER, 'read_committed').records.length
    return n
  }

  dropAcks(n: number): void {
    this.workerFaults.dropNextAcks(n)
  }

  /** Restarts every worker cleanly with a new config (commit, close, leave; then start). */
  async reconfigure(config: StreamsConfig, deserializationPolicy: DeserializationPolicy = this.deserializationPolicy): Promise<void> {
    const next = validateStreamsConfig({ ...config })
    this.deserializationPolicy = deserializationPolicy
    for (const s of this.slots) if (s.process.state === 'paused') s.process.resume()
    for (const s of this.slots) if (s.process.alive) s.worker?.requestStop()
    await Promise.all(this.slots.map((s) => s.worker?.done))
    this.armedKills.clear()
    this.armedPauses.clear()
    this.config = next
    for (const s of this.slots) this.startInSlot(s)
  }

  /** Sets the number of worker slots: adds new ones or stops the last ones cleanly. */
  async setWorkers(n: number): Promise<void> {
    while (this.slots.length < n) this.addWorker()
    while (this.slots.length > n) {
      const s = this.slots.pop()!
      if (s.process.state === 'paused') s.process.resume()
      s.worker?.requestStop()
      await s.worker?.done
    }
  }

  // ---- queries ------------------------------------------------------------------------------

  inputEndOffsets(): number[] {
    return Array.from({ length: this.options.partitions }, (_, p) => this.cluster.partitionLog({ topic: this.topics.input, partition: p }).highWatermark)
  }
  committedOffsets(): (number | null)[] {
    const tps = Array.from({ length: this.options.partitions }, (_, p) => ({ topic: this.topics.input, partition: p }))
    const m = this.cluster.group(this.groupId).fetchCommitted(tps)
    return tps.map((tp) => m.get(tpKey(tp.topic, tp.partition)) ?? null)
  }
  /** Input records not yet consumed: the input end offsets minus the consumer positions (or committed offsets). */
  backlog(): number {
    const ends = this.inputEndOffsets()
    const committed = this.committedOffsets()
    const position = ends.map((_, p) => committed[p] ?? 0)
    for (const s of this.slots) {
      if (!s.process.alive || !s.worker) continue
      for (const t of s.worker.tasks.values()) position[t.partition] = Math.max(position[t.partition]!, t.consumedOffset)
    }
    return ends.reduce((n, e, p) => n + Math.max(0, e - position[p]!), 0)
  }

  committedTotal(): number {
    return this.committedOffsets().reduce<number>((a, b) => a + (b ?? 0), 0)
  }
  /** All input produced and committed by the group. */
  caughtUp(): boolean {
    if (!this.generator.finished) return false
    const ends = this.inputEndOffsets()
    const committed = this.committedOffsets()
    return ends.every((e, p) => (committed[p] ?? 0) >= e)
  }
  openTransactions(): number {
    return this.cluster.txnCoordinator.ongoing().length
  }
  isExactlyOnce(): boolean {
    return isExactlyOnce(this.config['processing.guarantee'])
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
  async destroy(): Promise<void> {
    this.stopped = true
    this.generator.stop()
    for (const s of this.slots) s.process.kill(this.time.now())
    await Promise.allSettled(this.slots.map((s) => s.worker?.done))
  }
}
