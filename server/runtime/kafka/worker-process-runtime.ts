// The runtime port on a Kafka cluster: the application's topics created up front, the load
// generator on a KafkaConnection producer, N local worker processes (`eoscope worker`) under a
// supervisor, kills by SIGKILL (at once, or at a step through the commands topic), pauses by
// SIGSTOP/SIGCONT. No client sees the broker's own events: recovery instants come from the workers'
// telemetry (worker-telemetry.ts) and from polling the group (group-watch.ts).

import type { Admin } from 'kafkajs'
import type { Step } from '../../../lib/lab-protocol.ts'
import { ConfigException, type StreamsConfig, validateStreamsConfig } from '../../../lib/streams-config.ts'
import { partitionOfTask } from '../../../lib/task-id.ts'
import type { DeserializationPolicy } from '../../engine/stream-task.ts'
import type { EngineEvent } from '../../engine/telemetry.ts'
import type { Logger } from '../../logging.ts'
import { refusal, requireGuarantee, UnsupportedOnBackendError } from '../../log/capabilities.ts'
import { ackDropProxyRefusal, ackRouteFor, withKafkaGroupTimeouts } from '../../log/kafka/capabilities.ts'
import { type AckDropProxy, hasNetworkDelay } from '../../log/kafka/proxy/ack-drop-proxy.ts'
import { startAckDropProxy } from './ack-drop-route.ts'
import { createKafka } from '../../log/kafka/kafka-client.ts'
import { KafkaConnection } from '../../log/kafka/kafka-connection.ts'
import { SeededRandom, type Time } from '../../log/time.ts'
import type { LogProducer } from '../../log/types.ts'
import {
  EventHub,
  type LabEvent,
  type LabRuntime,
  type RevivalSettings,
  type Retirement,
  type RuntimeWording,
  type TaskStatus,
  type WorkerCrash,
} from '../lab-runtime.ts'
import { LoadGenerator } from '../load-generator.ts'
import { RecoveryTracker } from '../recovery-tracker.ts'
import { poisonRecords, trackKill, trackRecovery } from '../runtime-common.ts'
import { retireApplication } from './application-end.ts'
import { GroupWatch } from './group-watch.ts'
import { appTopicNames, kafkaAppTopics, kafkaAppTopicSpecs, type KafkaAppTopics } from './kafka-app.ts'
import { WorkerCommands } from './worker-commands.ts'
import { componentLogger } from './kafka-log.ts'
import { publishIfDashboardLab } from './lab-directory.ts'
import { loadFailureOf } from './retrying-load-producer.ts'
import {
  KAFKA_LAB_NOTES,
  KAFKA_RUN_NOTES,
  KAFKA_VISIBILITY_POLL_MS,
  kafkaWording,
  untilStable,
} from './worker-process-notes.ts'
import { killWorker, pauseWorker, type FaultTarget } from './worker-faults.ts'
import {
  everyPartitionOwned,
  signalSlot,
  spawnWorker,
  stopProcesses,
  workerArgs,
  type KafkaSlot,
  type WorkerLogs,
} from './worker-spawn.ts'
import type { WorkerProcessRuntimeOptions } from './worker-process-options.ts'
import { WorkerTelemetry, type KafkaWorkerView } from './worker-telemetry.ts'
import { crashCause, exitVerdict } from './worker-exit.ts'

export type { KafkaSlot, KafkaProcessState } from './worker-spawn.ts'
export type { WorkerProcessRuntimeOptions } from './worker-process-options.ts'

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
  readonly wording: RuntimeWording
  readonly pollMs = { visibility: KAFKA_VISIBILITY_POLL_MS, logView: 1_000 }
  readonly statusByMessages = true
  readonly clusterAddress: string
  kills = 0
  /** Worker processes that exited without the runtime ending them (replaced unless restartFailed is false). */
  readonly crashes: WorkerCrash[] = []
  get failedExits(): number {
    return this.crashes.length
  }
  fenced = 0
  readonly startedAtMs: number
  private readonly admin: Admin
  private adminConnected = false
  private readonly commands: WorkerCommands
  private poisonProducer: LogProducer | null = null
  private readonly loadProducer: LogProducer
  private loadError: string | null = null
  private readonly hub = new EventHub()
  private readonly log: Logger
  private readonly group: GroupWatch
  private readonly telemetry: WorkerTelemetry
  private stopped = false
  private closed = false
  private readonly faultTarget: FaultTarget
  private loops: Promise<void>[] = []
  /** Slot numbers are never reused: a re-added slot is a new worker, not a killed one come back. */
  private slotSeq = 0
  private reconfiguring = false
  private txns = { committed: 0, aborted: 0 }
  /** Between the worker processes and the brokers when the route is the ack-drop proxy. */
  private ackProxy: AckDropProxy | null = null
  /** Own workers told to kill themselves at a step: their SIGKILL is a kill, not a crash. */
  private readonly killAsked = new Set<string>()
  /** The error each worker reported when its engine failed (worker-failed), the cause of its crash. */
  private readonly reportedErrors = new Map<string, string>()
  /** Each worker's tasks as it last reported holding some: what a crash leaves to recover. */
  private readonly lastHeld = new Map<string, TaskStatus[]>()

  constructor(
    readonly time: Time,
    readonly options: WorkerProcessRuntimeOptions,
  ) {
    // Every member derives its heartbeat from the session timeout (kafkaGroupTimeouts): so does the config shown.
    this.config = validateStreamsConfig(withKafkaGroupTimeouts({ ...options.config }))
    this.random = new SeededRandom(options.seed)
    this.topics = kafkaAppTopics(this.config['application.id'])
    this.clusterAddress = options.client.brokers.join(',')
    this.log = componentLogger('worker-process-runtime', options.logger).child({ applicationId: this.groupId })
    this.commands = new WorkerCommands(this.topics.commands, this.log)
    this.wording = kafkaWording(options.network)
    const delayed = options.network !== undefined && hasNetworkDelay(options.network)
    const proxyRefused = ackDropProxyRefusal(options.client)
    if (delayed && proxyRefused !== null)
      throw new UnsupportedOnBackendError(
        'drop-acks',
        'kafka',
        `a network delay is put between the workers and the brokers by the same proxy: ${proxyRefused}`,
      )
    this.connection = new KafkaConnection(
      { ...options.client, clientId: `${options.client.clientId}-lab` },
      {},
      ackRouteFor(options.client, delayed ? 'ack-drop-proxy' : (options.ackRoute ?? 'direct')),
      options.localBrokersDir ?? null,
    )
    requireGuarantee(this.connection.capabilities, this.config['processing.guarantee'])
    this.admin = createKafka(options.client, `${options.client.clientId}-lab-groups`).admin()
    const makeLoadProducer = () =>
      this.connection.producer({ clientId: `${this.config['application.id']}-load-generator`, idempotent: true })
    this.loadProducer = options.wrapLoadProducer ? options.wrapLoadProducer(makeLoadProducer) : makeLoadProducer()
    const { partitions, ratePerSec, maxRecords, keys, maxBacklog } = options
    const backlog = () =>
      this.group.backlog(
        this.generator.sent,
        this.liveSlots().flatMap((s) => [...(s.worker?.tasks.values() ?? [])]),
      )
    this.generator = new LoadGenerator(
      this.loadProducer,
      {
        topic: this.topics.input,
        partitions,
        ratePerSec,
        maxRecords,
        keys,
        seed: options.seed ^ 0x5eed,
        maxBacklog,
        backlog,
      },
      time,
    )
    this.startedAtMs = time.now()
    const emit = (e: LabEvent) => this.emit(e)
    this.group = new GroupWatch({
      admin: this.admin,
      groupId: this.groupId,
      inputTopic: this.topics.input,
      partitions,
      tracker: this.tracker,
      time,
      log: this.log,
      emit,
      loadFinished: () => this.generator.finished,
    })
    this.telemetry = new WorkerTelemetry({
      time,
      log: this.log,
      emit,
      endedOwnWorker: (id) =>
        this.telemetry.ownWorkers.has(id) &&
        !['starting', 'running', 'paused'].includes(this.slotOf(id)?.process.state ?? 'exited'),
      onSelfKill: (view, atMs, step, tasks, memberId) => {
        this.recordKill(view, atMs, step, tasks, memberId)
        const slot = this.slotOf(view.id)
        if (slot) slot.process.state = 'killed'
      },
      onSelfPause: (view, atMs, step) => {
        const slot = this.slotOf(view.id)
        if (slot?.process.state === 'running') slot.process.state = 'paused'
        this.emit({ type: 'worker-paused', workerId: view.id, step, atMs })
      },
      onEngineEvent: (e, memberId) => this.onEngineEvent(e, memberId),
    })
    this.faultTarget = {
      time: this.time,
      commands: this.commands,
      slotOf: (id) => this.slotOf(id),
      isRemote: (id) => this.isRemote(id),
      killedHere: (slot, atMs) => this.recordKill(slot.worker!, atMs, null),
      pausedHere: (workerId, atMs) => this.emit({ type: 'worker-paused', workerId, step: null, atMs }),
    }
  }

  get groupId(): string {
    return this.config['application.id']
  }
  get partitions(): number {
    return this.options.partitions
  }
  /** Produce acks to the output topic the ack-drop proxy lost. */
  get droppedAcks(): number {
    return this.ackProxy?.stats.droppedAcks ?? 0
  }

  onEvent(l: (e: LabEvent) => void): () => void {
    return this.hub.on(l)
  }
  private emit(e: LabEvent): void {
    if (e.type === 'worker-status' && e.status.tasks.length > 0) this.lastHeld.set(e.workerId, e.status.tasks)
    trackRecovery(this.tracker, e)
    this.hub.emit(e)
  }

  async start(): Promise<void> {
    await this.connection.admin().createTopics(kafkaAppTopicSpecs(this.topics, this.options.partitions))
    await this.admin.connect()
    this.adminConnected = true
    if (refusal(this.connection.capabilities, 'drop-acks') === null)
      this.ackProxy = await startAckDropProxy(
        this.options.client.brokers,
        this.topics.output,
        this.time,
        (e) => this.emit(e),
        this.options.network,
      )
    this.commands.open(this.connection, `${this.groupId}-commands`)
    if (this.options.prefill) {
      if (!Number.isFinite(this.options.maxRecords)) throw new Error('prefill needs a finite maxRecords')
      await this.generator.start()
    }
    for (let i = 0; i < this.options.workers; i++) this.addWorker()
    this.startLoops()
    if (!this.options.holdLoad && !this.options.prefill) this.startLoad()
    await publishIfDashboardLab(this.options, this.connection, this.config, this.time.now(), (e) => this.emit(e))
  }

  private startLoops(): void {
    const stopped = () => this.stopped
    this.loops = [
      this.telemetry.loop(this.connection.reader(), this.topics.telemetry, stopped, this.startedAtMs),
      this.group.groupLoop(stopped),
      this.group.healthLoop(stopped),
    ]
  }

  /** Runs on after stop(): the telemetry, group and health loops again, from where they were. */
  async revive(settings: RevivalSettings): Promise<void> {
    if (this.closed) throw new Error(`the application ${this.groupId} was closed and cannot run again: reset the lab`)
    this.options.restartAfterMs = settings.restartAfterMs
    this.ackProxy?.disarm()
    if (!this.stopped) return
    await Promise.allSettled(this.loops)
    this.stopped = false
    this.startLoops()
  }

  startLoad(): void {
    void this.generator.start().catch((e: unknown) => {
      this.loadError = e instanceof Error ? e.message : String(e)
    })
  }

  /** Every partition owned by a running task, and every local worker owning at least one. */
  groupSettled(): boolean {
    return everyPartitionOwned(this.liveSlots(), this.options.partitions)
  }

  addWorker(): KafkaSlot {
    const slot: KafkaSlot = {
      slotId: `worker-${++this.slotSeq}`,
      incarnation: 0,
      process: { state: 'starting' },
      worker: null,
      child: null,
      startedAtMs: this.time.now(),
      exited: Promise.resolve(),
      stderr: [],
    }
    this.slots.push(slot)
    this.startInSlot(slot)
    return slot
  }

  private startInSlot(slot: KafkaSlot): void {
    if (this.stopped) return
    slot.incarnation++
    const id = slot.incarnation === 1 ? slot.slotId : `${slot.slotId}.${slot.incarnation}`
    const process$: KafkaSlot['process'] = { state: 'running' }
    slot.process = process$
    slot.startedAtMs = this.time.now()
    const logs: WorkerLogs = this.options.workerLogs ? 'forward' : 'keep'
    const args = workerArgs(
      this.ackProxy?.bootstrap ?? this.options.client.brokers,
      this.config,
      this.options.partitions,
      slot.slotId,
      id,
    )
    const spawn = this.options.spawnWorker ?? spawnWorker
    const child = spawn(slot, args, logs, this.log.child({ workerId: id }), (code, signal) =>
      this.onExit(slot, child, id, process$, code, signal),
    )
    slot.worker = {
      id,
      slotId: slot.slotId,
      tasks: new Map(),
      memberId: null,
      state: 'starting',
      producers: [],
      pid: child.pid ?? null,
      host: null,
      lastSeenMs: slot.startedAtMs,
      firstSeenMs: slot.startedAtMs,
    }
    this.telemetry.ownWorkers.set(id, slot.worker)
    this.processStatus(slot, id, 'starting', null)
  }

  /** What the supervisor knows of its own process before its first telemetry, or after its exit. */
  private processStatus(slot: KafkaSlot, workerId: string, state: string, error: string | null): void {
    const status = { state, memberId: null, tasks: [], producers: [], error }
    this.emit({
      type: 'worker-status',
      workerId,
      slotId: slot.slotId,
      origin: 'own',
      pid: slot.child?.pid ?? null,
      host: null,
      status,
      atMs: this.time.now(),
    })
  }

  private onExit(
    slot: KafkaSlot,
    child: KafkaSlot['child'],
    id: string,
    process$: KafkaSlot['process'],
    code: number | null,
    signal: NodeJS.Signals | null,
  ): void {
    const verdict = exitVerdict({
      state: process$.state,
      stopAsked: this.stopped || process$.stopAsked === true,
      killAsked: this.killAsked.has(id),
      code,
      signal,
    })
    process$.state = verdict === 'killed' ? 'killed' : 'exited'
    if (slot.worker?.id === id && verdict === 'killed') slot.worker.state = 'dead'
    if (verdict === 'crashed') this.recordCrash(slot, id, code, signal)
    else if (verdict === 'stopped' && slot.stderr.length > 0)
      this.processStatus(slot, id, 'stopped', slot.stderr.at(-1)!.slice(0, 200))
    const replace = verdict === 'killed' || (verdict === 'crashed' && this.options.restartFailed !== false)
    if (replace && this.options.restartAfterMs !== null && !this.stopped) {
      setTimeout(() => {
        // Not while the workers restart with new settings, nor for a slot removed meanwhile.
        if (!this.stopped && !this.reconfiguring && slot.child === child && this.slots.includes(slot))
          this.startInSlot(slot)
      }, this.options.restartAfterMs)
    }
  }

  /** A worker that ended without this runtime ending it: its cause journaled, shown and counted (WorkerCrash). */
  private recordCrash(slot: KafkaSlot, workerId: string, code: number | null, signal: NodeJS.Signals | null): void {
    const atMs = this.time.now()
    const cause = crashCause({
      reportedError: this.reportedErrors.get(workerId) ?? null,
      stderr: slot.stderr,
      code,
      signal,
    })
    const crash: WorkerCrash = { workerId, slotId: slot.slotId, atMs, cause, exitCode: code, signal }
    this.crashes.push(crash)
    this.log.warn({ workerId, code, signal, stderr: slot.stderr }, `worker ${workerId} crashed: ${cause}`)
    if (slot.worker?.id === workerId) slot.worker.state = 'crashed'
    // What it held is recovered by the others, as after a kill.
    const held = this.lastHeld.get(workerId) ?? []
    if (slot.worker && held.length > 0) this.recordLoss(slot.worker, atMs, held)
    this.processStatus(slot, workerId, 'crashed', cause.slice(0, 200))
    this.emit({ type: 'worker-crashed', ...crash })
  }

  liveSlots(): KafkaSlot[] {
    return this.slots.filter((s) => s.process.state === 'running' || s.process.state === 'paused')
  }

  slotOf(workerId: string): KafkaSlot | undefined {
    return this.slots.find((s) => s.worker?.id === workerId)
  }

  isRemote = (workerId: string): boolean => this.telemetry.remoteWorkers.has(workerId)

  /** SIGKILL now, or (step given) the worker kills itself with SIGKILL when it next reaches that step. */
  kill(workerId: string, step: Step | null = null): boolean {
    if (step !== null) this.killAsked.add(workerId)
    const sent = killWorker(this.faultTarget, workerId, step)
    if (sent === false) return false
    if (sent !== true)
      sent.catch((e: unknown) =>
        this.log.warn({ err: e, workerId }, `kill command for ${workerId} not sent: ${(e as Error).message}`),
      )
    return true
  }

  /**
   * As kill, but a kill that travels on the commands topic resolves once the
   * cluster took it (and throws if it did not).
   */
  async killConfirmed(workerId: string, step: Step | null = null): Promise<boolean> {
    if (step !== null) this.killAsked.add(workerId)
    const sent = killWorker(this.faultTarget, workerId, step)
    if (typeof sent === 'boolean') return sent
    await sent
    return true
  }

  /** SIGSTOP now, or (step given) the worker stops itself when it next reaches that step (worker-faults.ts). */
  pause(workerId: string, step: Step | null = null): boolean {
    return pauseWorker(this.faultTarget, workerId, step)
  }
  resume(workerId: string): boolean {
    return signalSlot(this.slotOf(workerId), { from: 'paused', signal: 'SIGCONT', to: 'running' })
  }

  /** Worker processes take no deserialization handler: poison records go to the dead-letter topic. */
  async reconfigure(
    config: StreamsConfig,
    deserializationPolicy: DeserializationPolicy = this.deserializationPolicy,
  ): Promise<void> {
    if (deserializationPolicy !== this.deserializationPolicy) {
      throw new ConfigException(
        'default.deserialization.exception.handler',
        deserializationPolicy,
        "the Kafka backend's workers use log-and-continue (poison records go to the dead-letter topic); the " +
          'fail policy is shown on the embedded backend',
      )
    }
    const next = validateStreamsConfig({ ...config, 'application.id': this.groupId })
    requireGuarantee(this.connection.capabilities, next['processing.guarantee'])
    // Followers first: the group should not run mixed settings longer than it must.
    await publishIfDashboardLab(this.options, this.connection, next, this.time.now(), (e) => this.emit(e))
    await this.restartWorkers(next)
  }

  /** Stops every worker process cleanly and starts each slot again with `changes` applied to the config. */
  async restartWorkers(changes: Partial<StreamsConfig> = {}): Promise<void> {
    const next = validateStreamsConfig(withKafkaGroupTimeouts({ ...this.config, ...changes }))
    requireGuarantee(this.connection.capabilities, next['processing.guarantee'])
    this.reconfiguring = true
    try {
      await stopProcesses(this.slots)
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
    await stopProcesses([slot])
    return slot
  }

  /** Appends input records whose values do not parse (the workers' deserialization handler decides). */
  async injectPoison(count: number): Promise<void> {
    this.poisonProducer ??= this.connection.producer({ clientId: `${this.groupId}-poison-injector`, idempotent: false })
    await this.poisonProducer.send(
      poisonRecords(this.random, count, this.options.keys, this.topics.input, this.options.partitions),
    )
  }

  /**
   * The next n produce acks to the output topic are lost by the ack-drop proxy (capabilities refuse it without one).
   */
  dropAcks(n: number): void {
    this.ackProxy?.dropNextAcks(n)
  }

  private recordKill(
    worker: KafkaWorkerView,
    t0: number,
    step: Step | null,
    status?: TaskStatus[],
    memberId?: string | null,
  ): void {
    this.recordLoss(worker, t0, status ?? [...worker.tasks.values()], memberId)
    this.kills++
    this.emit({ type: 'worker-killed', workerId: worker.id, step, atMs: t0 })
  }

  /** A worker gone with these tasks (killed, or crashed): its member is dead, its partitions' recovery tracked. */
  private recordLoss(worker: KafkaWorkerView, t0: number, tasks: TaskStatus[], memberId?: string | null): void {
    const member = memberId ?? worker.memberId
    if (member) this.group.memberDied(member)
    const partitions = tasks.map((t) => ({
      partition: t.partition,
      positionAtKill: t.consumedOffset,
      committedAtKill: t.committedOffset,
      ackedAtKill: t.ackedOffset ?? null,
    }))
    trackKill(this.tracker, this.config, {
      workerId: worker.id,
      slotId: worker.slotId,
      memberId: member,
      t0,
      partitions,
      hadOpenTxn: tasks.some((t) => t.inTransaction),
    })
  }

  private onEngineEvent(e: EngineEvent, memberId: string | null): void {
    if (e.type === 'task-created') this.group.onTaskCreated(e.workerId, partitionOfTask(e.taskId), memberId, e.atMs)
    if (e.type === 'offsets-committed') for (const o of e.offsets) this.group.noteCommitted(o.partition, o.offset)
    if (e.type === 'txn-end') this.txns[e.outcome]++
    if (e.type === 'task-migrated') this.fenced++
    if (e.type === 'worker-failed') this.reportedErrors.set(e.workerId, e.error)
    this.emit(e)
  }

  inputEndOffsets(): number[] {
    return [...this.group.inputEnds]
  }
  committedOffsets(): (number | null)[] {
    return [...this.group.committed]
  }
  groupOffsets(): { committed: (number | null)[]; ends: number[] } {
    return this.group.offsetsAtOneMoment()
  }
  committedTotal(): number {
    return this.group.committedTotal()
  }
  caughtUp(): boolean {
    return this.group.caughtUp()
  }
  faultWindowOpen(): boolean {
    return !this.group.caughtUp()
  }
  transactionCounts(): { committed: number; aborted: number } {
    return { ...this.txns }
  }
  /**
   * The coordinator writes a transaction's markers after EndTxn has answered: bounded,
   * so a transaction left open is still reported.
   */
  settle(): Promise<void> {
    return untilStable(this.connection.inspector(), [this.topics.output, this.topics.changelog, this.topics.deadLetter])
  }
  /** The broker tells no client its producers' sequence numbers. */
  producerSequences(): { partition: string; sequence: number }[] {
    return []
  }
  applyRetention(): void {} // the broker applies its own
  loadFailure(): string | null {
    return loadFailureOf(this.loadError, this.loadProducer)
  }

  /** Stops the generator, then every worker process cleanly (SIGCONT first if paused, then SIGTERM). */
  async stop(): Promise<void> {
    this.generator.stop()
    await this.generator.done.catch(() => {})
    await stopProcesses(this.slots)
    this.stopped = true
    await Promise.allSettled(this.loops)
  }

  /** Ends every worker process (SIGKILL), the loops and the connections. Safe to call twice. */
  async close(): Promise<void> {
    this.stopped = this.closed = true
    this.generator.stop()
    for (const s of this.slots)
      if (s.child && s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
    await Promise.allSettled(this.slots.map((s) => s.exited))
    await Promise.allSettled(this.loops)
    await this.ackProxy?.close()
    // A send still retrying through an outage gives up now (a retrying wrapper makes no fresh producer once closed).
    await this.loadProducer.close().catch(() => {})
    if (this.adminConnected) await this.admin.disconnect().catch(() => {})
    this.adminConnected = false
    await this.connection.close()
  }

  /** Deletes the application's topics (fresh runs use fresh names; this keeps a test broker small). */
  async deleteTopics(): Promise<void> {
    await this.connection.admin().deleteTopics(appTopicNames(this.topics))
  }

  /** After close: a replaced application's topics go once followers have moved; an ended one tells them first. */
  retire(how: Retirement): Promise<void> {
    return retireApplication(how, this.options, this.groupId, this.topics, this.log, this.time.now())
  }
}
