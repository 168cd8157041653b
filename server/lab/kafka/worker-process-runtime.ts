// The runtime port on a Kafka cluster: the application's topics created up front with the admin
// client, the load generator on a KafkaConnection producer, N local worker processes
// (`eoscope worker`) under a supervisor, kills by SIGKILL (at once, or at a step through the
// commands topic), pauses by SIGSTOP/SIGCONT, and recovery tracking from the telemetry topic.
//
// How each recovery instant is observed on a real cluster (the in-process runtime sees the broker's
// own events; a Kafka client sees none of them):
// - t0 and the position at kill: a kill at a step is published by the worker itself just before
//   its SIGKILL (exact). A kill by the parent's SIGKILL uses the worker's last status message
//   (at most ~100 ms old): positions only grow, so they are a lower bound.
// - detection and rebalance: group-watch.ts (describeGroups), or, if earlier, the new owner's
//   task-created telemetry for that partition.
// - fence, restore, catch-up: the new owner's fence-complete, restore-end and offsets-committed
//   events, timed by the worker's clock (same machine for local workers).

import type { Admin } from 'kafkajs'
import type { Step } from '../../../lib/lab-protocol.ts'
import { ConfigException, type StreamsConfig, validateStreamsConfig } from '../../../lib/streams-config.ts'
import { partitionOfTask } from '../../../lib/task-id.ts'
import type { DeserializationPolicy } from '../../engine/stream-task.ts'
import type { EngineEvent } from '../../engine/telemetry.ts'
import type { Logger } from '../../logging.ts'
import { requireGuarantee } from '../../log/capabilities.ts'
import { createKafka } from '../../log/kafka/kafka-client.ts'
import { KafkaConnection, type KafkaClientConfig } from '../../log/kafka/kafka-connection.ts'
import { SeededRandom, type Time } from '../../log/time.ts'
import type { LogProducer } from '../../log/types.ts'
import { EventHub, type LabEvent, type LabRuntime, type Retirement, type TaskStatus } from '../lab-runtime.ts'
import { LoadGenerator } from '../load-generator.ts'
import { RecoveryTracker } from '../recovery-tracker.ts'
import { poisonRecords, trackRecovery, transactionalIdsAtKill } from '../runtime-common.ts'
import { announceClosed, deleteApplicationTopics } from './application-end.ts'
import { GroupWatch } from './group-watch.ts'
import { kafkaAppTopics, kafkaAppTopicSpecs, type KafkaAppTopics, type WorkerCommand } from './kafka-app.ts'
import { componentLogger } from './kafka-log.ts'
import { descriptorOf, LAB_DIRECTORY_TOPIC, publishLab } from './lab-directory.ts'
import { RetryingLoadProducer } from './retrying-load-producer.ts'
import { KAFKA_LAB_NOTES, KAFKA_RUN_NOTES, KAFKA_VISIBILITY_POLL_MS, KAFKA_WORDING, untilStable } from './worker-process-notes.ts'
import { spawnWorker, workerArgs, type KafkaSlot, type WorkerLogs } from './worker-spawn.ts'
import { WorkerTelemetry, type KafkaWorkerView } from './worker-telemetry.ts'

export type { KafkaSlot, KafkaProcessState } from './worker-spawn.ts'
export type { KafkaWorkerView } from './worker-telemetry.ts'

const STOP_GRACE_MS = 20_000
/** After a reset, how long workers following the lab get to move to the new application before the old topics go. */
const FOLLOWERS_LEAVE_MS = 5_000

export interface WorkerProcessRuntimeOptions {
  client: KafkaClientConfig
  /** Its application.id names the group and every topic: use a fresh one per run. */
  config: StreamsConfig
  workers: number
  partitions: number
  ratePerSec: number
  maxRecords: number
  keys: number
  seed: number
  /** A killed worker is replaced (new process, new member id, same slot) after this long; null: never. */
  restartAfterMs: number | null
  traceIntervalMs?: number
  /** Start the load generator only when startLoad() is called (a benchmark waits for a stable group). */
  holdLoad?: boolean
  /** Write all maxRecords input records before any worker starts: the workers then run on a backlog (a benchmark). */
  prefill?: boolean
  /** Worker processes' stderr to this process's log (default: kept, shown only when a worker fails). */
  workerLogs?: boolean
  /** A worker process that exits with an error (a broker outage, say) is replaced like a killed one. */
  restartFailed?: boolean
  /** Wraps the load generator's producer (given a way to make a fresh one): a soak retries sends across a broker restart. */
  wrapLoadProducer?: (make: () => LogProducer) => LogProducer
  /** Publish the application to the lab directory for workers started with --follow-lab (the dashboard's lab). */
  labDirectory?: 'publish'
  /** Keep the application's topics when it is retired (default: deleted). */
  keepTopics?: boolean
  logger?: Logger
}

export class WorkerProcessRuntime implements LabRuntime {
  readonly backend = 'kafka' as const
  readonly topics: KafkaAppTopics
  readonly slots: KafkaSlot[] = []
  readonly tracker = new RecoveryTracker()
  readonly random: SeededRandom
  readonly generator: LoadGenerator
  readonly connection: KafkaConnection
  readonly config: StreamsConfig
  readonly deserializationPolicy: DeserializationPolicy = 'log-and-continue'
  readonly latencyModel = 'off' as const
  readonly notes = KAFKA_RUN_NOTES
  readonly labNotes = KAFKA_LAB_NOTES
  readonly wording = KAFKA_WORDING
  readonly pollMs = { visibility: KAFKA_VISIBILITY_POLL_MS, logView: 1_000 }
  readonly statusByMessages = true
  readonly clusterAddress: string
  kills = 0
  /** Worker processes that exited with an error (restarted when restartFailed is set). */
  failedExits = 0
  readonly droppedAcks = 0
  fenced = 0
  readonly startedAtMs: number
  private readonly admin: Admin
  private adminConnected = false
  private commandsProducer: LogProducer | null = null
  private poisonProducer: LogProducer | null = null
  private readonly loadProducer: LogProducer
  private loadError: string | null = null
  private readonly hub = new EventHub()
  private readonly log: Logger
  private readonly group: GroupWatch
  private readonly telemetry: WorkerTelemetry
  private stopped = false
  private loops: Promise<void>[] = []
  /** Slot numbers are never reused: a re-added slot is a new worker, not a killed one come back. */
  private slotSeq = 0
  private reconfiguring = false
  private txns = { committed: 0, aborted: 0 }

  constructor(
    readonly time: Time,
    readonly options: WorkerProcessRuntimeOptions,
  ) {
    this.config = validateStreamsConfig({ ...options.config })
    this.random = new SeededRandom(options.seed)
    this.topics = kafkaAppTopics(this.config['application.id'])
    this.clusterAddress = options.client.brokers.join(',')
    this.log = componentLogger('worker-process-runtime', options.logger).child({ applicationId: this.groupId })
    this.connection = new KafkaConnection({ ...options.client, clientId: `${options.client.clientId}-lab` })
    requireGuarantee(this.connection.capabilities, this.config['processing.guarantee'])
    this.admin = createKafka(options.client, `${options.client.clientId}-lab-groups`).admin()
    const makeLoadProducer = () => this.connection.producer({ clientId: `${this.config['application.id']}-load-generator`, idempotent: true })
    this.loadProducer = options.wrapLoadProducer ? options.wrapLoadProducer(makeLoadProducer) : makeLoadProducer()
    const { partitions, ratePerSec, maxRecords, keys } = options
    this.generator = new LoadGenerator(this.loadProducer, { topic: this.topics.input, partitions, ratePerSec, maxRecords, keys, seed: options.seed ^ 0x5eed }, time)
    this.startedAtMs = time.now()
    const emit = (e: LabEvent) => this.emit(e)
    this.group = new GroupWatch({ admin: this.admin, groupId: this.groupId, inputTopic: this.topics.input, partitions, tracker: this.tracker, time, log: this.log, emit, loadFinished: () => this.generator.finished })
    this.telemetry = new WorkerTelemetry({
      time,
      log: this.log,
      emit,
      endedOwnWorker: (id) => this.telemetry.ownWorkers.has(id) && !['starting', 'running', 'paused'].includes(this.slotOf(id)?.process.state ?? 'exited'),
      onSelfKill: (view, atMs, step, tasks, memberId) => {
        this.recordKill(view, atMs, step, tasks, memberId)
        const slot = this.slotOf(view.id)
        if (slot) slot.process.state = 'killed'
      },
      onEngineEvent: (e, memberId) => this.onEngineEvent(e, memberId),
    })
  }

  get groupId(): string {
    return this.config['application.id']
  }
  get partitions(): number {
    return this.options.partitions
  }
  /** Workers seen on the telemetry topic that this runtime did not start (other machines). */
  get remoteWorkers(): Map<string, KafkaWorkerView> {
    return this.telemetry.remoteWorkers
  }

  onEvent(l: (e: LabEvent) => void): () => void {
    return this.hub.on(l)
  }
  private emit(e: LabEvent): void {
    trackRecovery(this.tracker, e)
    this.hub.emit(e)
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  async start(): Promise<void> {
    await this.connection.admin().createTopics(kafkaAppTopicSpecs(this.topics, this.options.partitions))
    await this.admin.connect()
    this.adminConnected = true
    this.commandsProducer = this.connection.producer({ clientId: `${this.groupId}-commands`, idempotent: false })
    if (this.options.prefill) {
      if (!Number.isFinite(this.options.maxRecords)) throw new Error('prefill needs a finite maxRecords')
      await this.generator.start()
    }
    for (let i = 0; i < this.options.workers; i++) this.addWorker()
    const stopped = () => this.stopped
    this.loops = [this.telemetry.loop(this.connection.reader(), this.topics.telemetry, stopped, this.startedAtMs), this.group.groupLoop(stopped), this.group.healthLoop(stopped)]
    if (!this.options.holdLoad && !this.options.prefill) this.startLoad()
    await this.publishToDirectory(this.config)
  }

  startLoad(): void {
    void this.generator.start().catch((e: unknown) => {
      this.loadError = e instanceof Error ? e.message : String(e)
    })
  }

  /**
   * Tells workers started elsewhere with --follow-lab which application to join, with which
   * settings. A failure is shown, not fatal: the lab runs on, only followers do not learn of it.
   */
  private async publishToDirectory(config: StreamsConfig): Promise<void> {
    if (this.options.labDirectory !== 'publish') return
    try {
      await publishLab(this.connection, descriptorOf(config, this.options.partitions, this.time.now()))
    } catch (e) {
      this.emit({ type: 'runtime-notice', marker: 'outage', label: `lab directory (${LAB_DIRECTORY_TOPIC}) not updated: ${(e instanceof Error ? e.message : String(e)).slice(0, 80)}`, atMs: this.time.now() })
    }
  }

  /** Every partition owned by a running task, and every local worker owning at least one. */
  groupSettled(): boolean {
    const live = this.liveSlots()
    const owned = new Set<number>()
    for (const s of live) for (const t of s.worker?.tasks.values() ?? []) if (t.state === 'running') owned.add(t.partition)
    return owned.size === this.options.partitions && live.every((s) => (s.worker?.tasks.size ?? 0) > 0)
  }

  addWorker(): KafkaSlot {
    const slot: KafkaSlot = { slotId: `worker-${++this.slotSeq}`, incarnation: 0, process: { state: 'starting' }, worker: null, child: null, startedAtMs: this.time.now(), exited: Promise.resolve(), stderr: [] }
    this.slots.push(slot)
    this.startInSlot(slot)
    return slot
  }

  private startInSlot(slot: KafkaSlot): void {
    if (this.stopped) return
    slot.incarnation++
    const id = slot.incarnation === 1 ? slot.slotId : `${slot.slotId}.${slot.incarnation}`
    const process$ = (slot.process = { state: 'running' })
    slot.startedAtMs = this.time.now()
    const logs: WorkerLogs = this.options.workerLogs ? 'forward' : 'keep'
    const args = workerArgs(this.options.client.brokers, this.config, this.options.partitions, slot.slotId, id)
    const child = spawnWorker(slot, args, logs, this.log.child({ workerId: id }), (code, signal) => this.onExit(slot, child, id, process$, code, signal))
    const now = this.time.now()
    slot.worker = { id, slotId: slot.slotId, tasks: new Map(), memberId: null, state: 'starting', producers: [], pid: child.pid ?? null, host: null, lastSeenMs: now, firstSeenMs: now }
    this.telemetry.ownWorkers.set(id, slot.worker)
    const status = { state: 'starting', memberId: null, tasks: [], producers: [], error: null }
    this.emit({ type: 'worker-status', workerId: id, slotId: slot.slotId, origin: 'own', pid: child.pid ?? null, host: null, status, atMs: now })
  }

  private onExit(slot: KafkaSlot, child: KafkaSlot['child'], id: string, process$: KafkaSlot['process'], code: number | null, signal: NodeJS.Signals | null): void {
    const failed = process$.state !== 'killed' && signal === null && code !== 0
    if (process$.state !== 'killed') process$.state = signal === 'SIGKILL' ? 'killed' : 'exited'
    if (failed && !this.stopped && !this.options.workerLogs) this.log.warn({ workerId: id, code, stderr: slot.stderr }, `worker ${id} exited with code ${code}`)
    if (slot.worker?.id === id && process$.state === 'killed') slot.worker.state = 'dead'
    if (process$.state === 'exited' && slot.stderr.length > 0) {
      const status = { state: 'stopped', memberId: null, tasks: [], producers: [], error: slot.stderr.at(-1)!.slice(0, 200) }
      this.emit({ type: 'worker-status', workerId: id, slotId: slot.slotId, origin: 'own', pid: child?.pid ?? null, host: null, status, atMs: this.time.now() })
    }
    if (failed) this.failedExits++
    if ((process$.state === 'killed' || (failed && this.options.restartFailed)) && this.options.restartAfterMs !== null && !this.stopped) {
      setTimeout(() => {
        // Not while the workers restart with new settings, nor for a slot removed meanwhile.
        if (!this.stopped && !this.reconfiguring && slot.child === child && this.slots.includes(slot)) this.startInSlot(slot)
      }, this.options.restartAfterMs)
    }
  }

  liveSlots(): KafkaSlot[] {
    return this.slots.filter((s) => s.process.state === 'running' || s.process.state === 'paused')
  }

  slotOf(workerId: string): KafkaSlot | undefined {
    return this.slots.find((s) => s.worker?.id === workerId)
  }

  isRemote(workerId: string): boolean {
    return this.telemetry.remoteWorkers.has(workerId)
  }

  /** SIGKILL now, or (step given) the worker kills itself with SIGKILL when it next reaches that step. */
  kill(workerId: string, step: Step | null = null): boolean {
    const sent = this.killNow(workerId, step)
    if (sent === false) return false
    if (sent !== true) sent.catch((e: unknown) => this.log.warn({ err: e, workerId }, `kill command for ${workerId} not sent: ${(e as Error).message}`))
    return true
  }

  /** As kill, but a kill that travels on the commands topic resolves once the cluster took it (and throws if it did not). */
  async killConfirmed(workerId: string, step: Step | null = null): Promise<boolean> {
    const sent = this.killNow(workerId, step)
    if (typeof sent === 'boolean') return sent
    await sent
    return true
  }

  /** false: no such live worker; true: killed by SIGKILL here; a promise: a kill command on its way. */
  private killNow(workerId: string, step: Step | null): boolean | Promise<void> {
    const slot = this.slotOf(workerId)
    const now = this.time.now()
    if (!slot || !slot.child || (slot.process.state !== 'running' && slot.process.state !== 'paused')) {
      if (!this.isRemote(workerId)) return false
      return this.sendCommand(step === null ? { target: workerId, command: 'kill', issuedAtMs: now } : { target: workerId, command: 'kill-at-step', step, issuedAtMs: now })
    }
    if (step !== null && slot.process.state === 'running') return this.sendCommand({ target: workerId, command: 'kill-at-step', step, issuedAtMs: now })
    slot.process.state = 'killed'
    slot.child.kill('SIGKILL')
    this.recordKill(slot.worker!, now, null)
    return true
  }

  /** SIGSTOP: the process stops heartbeating and becomes a zombie once its session expires. */
  pause(workerId: string): boolean {
    const slot = this.slotOf(workerId)
    if (!slot?.child || slot.process.state !== 'running') return false
    slot.child.kill('SIGSTOP')
    slot.process.state = 'paused'
    this.emit({ type: 'worker-paused', workerId, step: null, atMs: this.time.now() })
    return true
  }
  resume(workerId: string): boolean {
    const slot = this.slotOf(workerId)
    if (!slot?.child || slot.process.state !== 'paused') return false
    slot.child.kill('SIGCONT')
    slot.process.state = 'running'
    return true
  }

  /** Worker processes take no deserialization handler: poison records go to the dead-letter topic. */
  async reconfigure(config: StreamsConfig, deserializationPolicy: DeserializationPolicy = this.deserializationPolicy): Promise<void> {
    if (deserializationPolicy !== this.deserializationPolicy) {
      throw new ConfigException('default.deserialization.exception.handler', deserializationPolicy, "the Kafka backend's workers use log-and-continue (poison records go to the dead-letter topic); the fail policy is shown on the embedded backend")
    }
    const next = validateStreamsConfig({ ...config, 'application.id': this.groupId })
    requireGuarantee(this.connection.capabilities, next['processing.guarantee'])
    // Followers first: the group should not run mixed settings longer than it must.
    await this.publishToDirectory(next)
    await this.restartWorkers(next)
  }

  /** Stops every worker process cleanly and starts each slot again with `changes` applied to the config. */
  async restartWorkers(changes: Partial<StreamsConfig> = {}): Promise<void> {
    const next = validateStreamsConfig({ ...this.config, ...changes })
    requireGuarantee(this.connection.capabilities, next['processing.guarantee'])
    this.reconfiguring = true
    try {
      await this.stopWorkers(this.slots)
      Object.assign(this.config, next)
    } finally {
      this.reconfiguring = false
    }
    if (!this.stopped) for (const s of this.slots) this.startInSlot(s)
  }

  /** Stops the last slot's worker cleanly (SIGTERM: commit, close, leave) and forgets the slot. */
  async removeWorker(): Promise<KafkaSlot | null> {
    const slot = this.slots.at(-1)
    if (!slot || this.slots.length <= 1) return null
    this.slots.pop()
    await this.stopWorkers([slot])
    return slot
  }

  /** Appends input records whose values do not parse (the workers' deserialization handler decides). */
  async injectPoison(count: number): Promise<void> {
    this.poisonProducer ??= this.connection.producer({ clientId: `${this.groupId}-poison-injector`, idempotent: false })
    await this.poisonProducer.send(poisonRecords(this.random, count, this.options.keys, this.topics.input, this.options.partitions))
  }

  dropAcks(): void {
    // Not injectable into a real broker: connection.capabilities says so, and every caller asks it first.
  }

  private recordKill(worker: KafkaWorkerView, t0: number, step: Step | null, status?: TaskStatus[], memberId?: string | null): void {
    const tasks = status ?? [...worker.tasks.values()]
    const member = memberId ?? worker.memberId
    if (member) this.group.memberDied(member)
    const g = this.config['processing.guarantee']
    const partitions = tasks.map((t) => ({ partition: t.partition, positionAtKill: t.consumedOffset, committedAtKill: t.committedOffset }))
    const transactionalIds = transactionalIdsAtKill(g, this.groupId, worker.slotId, partitions.map((p) => p.partition))
    this.tracker.onKill({ workerId: worker.id, memberId: member, transactionalIds, guarantee: g, t0, partitions, hadOpenTxn: tasks.some((t) => t.inTransaction) })
    this.kills++
    this.emit({ type: 'worker-killed', workerId: worker.id, step, atMs: t0 })
  }

  async sendCommand(cmd: WorkerCommand): Promise<void> {
    await this.commandsProducer?.send([{ topic: this.topics.commands, partition: 0, key: cmd.target, value: JSON.stringify(cmd) }])
  }

  private onEngineEvent(e: EngineEvent, memberId: string | null): void {
    if (e.type === 'task-created') this.onTaskCreated(e.workerId, partitionOfTask(e.taskId), memberId, e.atMs)
    if (e.type === 'offsets-committed') for (const o of e.offsets) this.group.noteCommitted(o.partition, o.offset)
    if (e.type === 'txn-end' && e.outcome === 'committed') this.txns.committed++
    if (e.type === 'txn-end' && e.outcome === 'aborted') this.txns.aborted++
    if (e.type === 'task-migrated') this.fenced++
    this.emit(e)
  }

  /** The new owner has the partition: the rebalance is over for it, whatever describeGroups said so far. */
  private onTaskCreated(workerId: string, p: number, memberId: string | null, atMs: number): void {
    for (const r of this.tracker.recoveries) {
      if (r.t1 !== null || !r.partitions.some((k) => k.partition === p) || r.workerId === workerId) continue
      if (r.detectedAt === null && r.memberId) this.emit({ type: 'member-gone', memberId: r.memberId, atMs })
      if (!r.assignedAt.has(p)) {
        if (memberId) this.group.setOwner(p, memberId)
        this.emit({ type: 'partitions-assigned', memberId, partitions: [p], atMs })
      }
    }
  }

  // ---- queries ------------------------------------------------------------------------------

  /** The member the group last assigned this partition to. */
  ownerOf(partition: number): string | undefined {
    return this.group.ownerOf(partition)
  }
  inputEndOffsets(): number[] {
    return [...this.group.inputEnds]
  }
  fetchInputEnds(): Promise<number[]> {
    return this.group.fetchInputEnds()
  }
  committedOffsets(): (number | null)[] {
    return [...this.group.committed]
  }
  committedTotal(): number {
    return this.group.committed.reduce<number>((a, b) => a + (b ?? 0), 0)
  }
  /** All input produced, and committed by the group (as of the last poll). */
  caughtUp(): boolean {
    const ends = this.group.finalEnds
    if (!this.generator.finished || ends === null) return false
    return ends.every((e, p) => (this.group.committed[p] ?? 0) >= e)
  }
  /** Kills go on while the workers still have input to process. */
  faultWindowOpen(): boolean {
    return !this.caughtUp()
  }
  transactionCounts(): { committed: number; aborted: number } {
    return { ...this.txns }
  }
  /** The coordinator writes a transaction's markers after EndTxn has answered: bounded, so a transaction left open is still reported. */
  settle(): Promise<void> {
    return untilStable(this.connection.inspector(), [this.topics.output, this.topics.changelog, this.topics.deadLetter])
  }
  producerSequences(): { partition: string; sequence: number }[] {
    return []
  }
  applyRetention(): void {
    // The broker applies its own retention.
  }
  loadFailure(): string | null {
    if (this.loadError === null) return null
    const unwritten = this.loadProducer instanceof RetryingLoadProducer ? this.loadProducer.failedRecords : 0
    return `${this.loadError} (${unwritten} input records not written)`
  }

  /** Stops the generator, then every worker process cleanly (SIGCONT first if paused, then SIGTERM). */
  async stop(): Promise<void> {
    this.generator.stop()
    await this.generator.done.catch(() => {})
    await this.stopWorkers(this.slots)
    this.stopped = true
    await Promise.allSettled(this.loops)
  }

  private async stopWorkers(slots: readonly KafkaSlot[]): Promise<void> {
    const live = slots.filter((s) => s.child && (s.process.state === 'running' || s.process.state === 'paused'))
    for (const s of live) {
      if (s.process.state === 'paused') s.child!.kill('SIGCONT')
      s.child!.kill('SIGTERM')
    }
    await Promise.all(
      live.map(async (s) => {
        const timer = setTimeout(() => s.child?.kill('SIGKILL'), STOP_GRACE_MS)
        await s.exited
        clearTimeout(timer)
      }),
    )
  }

  /** Ends every worker process (SIGKILL), the loops and the connections. Safe to call twice. */
  async close(): Promise<void> {
    this.stopped = true
    this.generator.stop()
    for (const s of this.slots) if (s.child && s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
    await Promise.allSettled(this.slots.map((s) => s.exited))
    await Promise.allSettled(this.loops)
    // A send still retrying through an outage gives up now (a retrying wrapper makes no fresh producer once closed).
    await this.loadProducer.close().catch(() => {})
    if (this.adminConnected) await this.admin.disconnect().catch(() => {})
    this.adminConnected = false
    await this.connection.close()
  }

  /** Deletes the application's topics (fresh runs use fresh names; this keeps a test broker small). */
  async deleteTopics(): Promise<void> {
    const t = this.topics
    await this.connection.admin().deleteTopics([t.input, t.output, t.changelog, t.deadLetter, t.telemetry, t.commands])
  }

  /**
   * After close: replaced by a fresh application (a reset), the topics go once followers have had
   * time to move over; ended for good, followers are told first and the topics go at once.
   */
  async retire(how: Retirement): Promise<void> {
    if (how === 'replaced') await new Promise((r) => setTimeout(r, FOLLOWERS_LEAVE_MS))
    else if (this.options.labDirectory === 'publish') await announceClosed(this.options.client, this.groupId, this.time.now())
    if (!this.options.keepTopics) await deleteApplicationTopics(this.options.client, this.groupId, this.topics, this.log)
  }
}
