// The Kafka counterpart of LabRuntime for headless runs: the application's topics created up front
// with the admin client, the load generator on a KafkaConnection producer, N local worker
// processes (`eoscope worker`) under a supervisor, kills by SIGKILL (at once, or at a step through
// the commands topic), pauses by SIGSTOP/SIGCONT, and recovery tracking from the telemetry topic.
//
// How each recovery instant is observed on a real cluster (the embedded runtime sees the broker's
// own events; a Kafka client sees none of them):
// - t0 and the position at kill: a kill at a step is published by the worker itself just before
//   its SIGKILL (exact). A kill by the parent's SIGKILL uses the worker's last status message
//   (at most ~100 ms old): positions only grow, so they are a lower bound.
// - detection: the group is polled with admin.describeGroups every GROUP_POLL_MS; the dead
//   member's disappearance from the member list is the detection instant (to that resolution).
// - rebalance: the first describeGroups in state Stable that assigns a dead worker's partition to
//   another member; or, if earlier, the new owner's task-created telemetry for that partition.
// - fence, restore, catch-up: the new owner's fence-complete, restore-end and offsets-committed
//   events, timed by the worker's clock (same machine for local workers).

import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { AssignerProtocol, type Admin } from 'kafkajs'
import type { Step } from '../../../lib/lab-protocol.ts'
import { type StreamsConfig, validateStreamsConfig } from '../../../lib/streams-config.ts'
import type { EngineEvent } from '../../engine/telemetry.ts'
import { createKafka } from '../../log/kafka/kafka-client.ts'
import { KafkaConnection, type KafkaClientConfig } from '../../log/kafka/kafka-connection.ts'
import { SeededRandom, type Time } from '../../log/time.ts'
import type { LogProducer, ProducerIdentity } from '../../log/types.ts'
import type { LabEvent } from '../lab-runtime.ts'
import { LoadGenerator } from '../load-generator.ts'
import { partitionForKey } from '../../../lib/partitioner.ts'
import { RecoveryTracker } from '../recovery-tracker.ts'
import type { RunRuntime } from '../run-runtime.ts'
import { retrying } from './kafka-worker.ts'
import { EXACTLY_ONCE_V2_UNAVAILABLE, kafkaAppTopics, kafkaAppTopicSpecs, type KafkaAppTopics, type TaskStatus, type TelemetryEnvelope, type WorkerCommand } from './kafka-app.ts'

const BIN = fileURLToPath(new URL('../../../bin/eoscope.mjs', import.meta.url))
const TELEMETRY_POLL_MS = 50
const GROUP_POLL_MS = 100
const STOP_GRACE_MS = 20_000

export interface KafkaLabRuntimeOptions {
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
  /** Worker processes' stderr goes to this one's stderr (default: kept, shown only when a worker fails). */
  workerLogs?: boolean
  /** A worker process that exits with an error (a broker outage, say) is replaced like a killed one. */
  restartFailed?: boolean
  /** Wraps the load generator's producer (given a way to make a fresh one): a soak retries sends across a broker restart. */
  wrapLoadProducer?: (make: () => LogProducer) => LogProducer
}

export type KafkaProcessState = 'starting' | 'running' | 'paused' | 'killed' | 'exited'

export interface KafkaWorkerView {
  readonly id: string
  readonly slotId: string
  tasks: Map<number, TaskStatus>
  memberId: string | null
  state: string
  producers: ProducerIdentity[]
  pid: number | null
  host: string | null
  lastSeenMs: number
  /** When its first telemetry arrived (remote workers) or its process started (local ones). */
  firstSeenMs: number
}

export interface KafkaSlot {
  slotId: string
  incarnation: number
  process: { state: KafkaProcessState }
  worker: KafkaWorkerView | null
  child: ChildProcess | null
  startedAtMs: number
  exited: Promise<void>
  /** The last lines the process wrote to stderr. */
  stderr: string[]
}

export class KafkaLabRuntime implements RunRuntime {
  readonly backend = 'kafka' as const
  readonly topics: KafkaAppTopics
  readonly slots: KafkaSlot[] = []
  /** Workers seen on the telemetry topic that this runtime did not start (other machines). */
  readonly remoteWorkers = new Map<string, KafkaWorkerView>()
  readonly tracker = new RecoveryTracker()
  readonly random: SeededRandom
  readonly generator: LoadGenerator
  readonly connection: KafkaConnection
  readonly config: StreamsConfig
  readonly notes: readonly string[] = [
    'droppedAcks is always 0: a real broker cannot be made to drop a produce acknowledgement.',
    'fenced counts the task migrations that workers reported (a fenced producer or lost partitions); the broker tells no client about the fencings it does.',
    'transactions are counted from the workers\' txn-end telemetry; a killed worker\'s open transaction, aborted by the broker, is not among them.',
    `detection is observed by polling describeGroups every ${GROUP_POLL_MS} ms; a parent's SIGKILL takes the position at kill from the worker's last status (at most ~100 ms old, a lower bound); a kill at a step is reported exactly by the worker before it dies.`,
  ]
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
  private readonly listeners: ((e: LabEvent) => void)[] = []
  private stopped = false
  private loops: Promise<void>[] = []
  private workerSeq = 0
  /** Slot numbers are never reused: a re-added slot is a new worker, not a killed one come back. */
  private slotSeq = 0
  private reconfiguring = false
  private committed: (number | null)[]
  private endOffsets: number[] | null = null
  private readonly owner = new Map<number, string>()
  private readonly deadMembers = new Set<string>()
  private txnCommitted = 0
  private txnAborted = 0
  /** Self-kills already turned into recoveries (by worker id). */
  private readonly killReported = new Set<string>()
  /** Every worker this runtime started, by id, current and past incarnations alike. */
  private readonly ownWorkers = new Map<string, KafkaWorkerView>()

  constructor(
    readonly time: Time,
    readonly options: KafkaLabRuntimeOptions,
  ) {
    this.config = validateStreamsConfig({ ...options.config })
    if (this.config['processing.guarantee'] === 'exactly_once_v2') throw new Error(EXACTLY_ONCE_V2_UNAVAILABLE)
    this.random = new SeededRandom(options.seed)
    this.topics = kafkaAppTopics(this.config['application.id'])
    this.connection = new KafkaConnection({ ...options.client, clientId: `${options.client.clientId}-lab` })
    this.admin = createKafka(options.client, `${options.client.clientId}-lab-groups`).admin()
    this.committed = Array.from({ length: options.partitions }, () => null)
    const makeLoadProducer = () => this.connection.producer({ clientId: `${this.config['application.id']}-load-generator`, idempotent: true })
    this.loadProducer = options.wrapLoadProducer ? options.wrapLoadProducer(makeLoadProducer) : makeLoadProducer()
    this.generator = new LoadGenerator(
      this.loadProducer,
      { topic: this.topics.input, partitions: options.partitions, ratePerSec: options.ratePerSec, maxRecords: options.maxRecords, keys: options.keys, seed: options.seed ^ 0x5eed },
      time,
    )
    this.startedAtMs = time.now()
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
    this.loops = [this.telemetryLoop(), this.groupLoop()]
    if (!this.options.holdLoad && !this.options.prefill) this.startLoad()
  }

  startLoad(): void {
    void this.generator.start()
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

  workerArgs(slotId: string, workerId: string): string[] {
    const c = this.config
    return [
      'worker',
      '--brokers', this.options.client.brokers.join(','),
      '--application-id', c['application.id'],
      '--slot-id', slotId,
      '--worker-id', workerId,
      '--guarantee', c['processing.guarantee'],
      '--commit-interval-ms', String(c['commit.interval.ms']),
      '--session-timeout-ms', String(c['session.timeout.ms']),
      '--transaction-timeout-ms', String(c['transaction.timeout.ms']),
      '--idempotence', c['enable.idempotence'] ? 'on' : 'off',
      '--partitions', String(this.options.partitions),
      '--max-poll-records', String(c['max.poll.records']),
    ]
  }

  private startInSlot(slot: KafkaSlot): void {
    if (this.stopped) return
    slot.incarnation++
    this.workerSeq++
    const id = slot.incarnation === 1 ? slot.slotId : `${slot.slotId}.${slot.incarnation}`
    const child = spawn(process.execPath, [BIN, ...this.workerArgs(slot.slotId, id)], { stdio: ['ignore', 'ignore', 'pipe'] })
    slot.child = child
    slot.stderr = []
    slot.process = { state: 'running' }
    slot.startedAtMs = this.time.now()
    slot.worker = { id, slotId: slot.slotId, tasks: new Map(), memberId: null, state: 'starting', producers: [], pid: child.pid ?? null, host: null, lastSeenMs: this.time.now(), firstSeenMs: this.time.now() }
    this.ownWorkers.set(id, slot.worker)
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) {
        if (line.length === 0) continue
        slot.stderr.push(line)
        if (slot.stderr.length > 40) slot.stderr.shift()
        if (this.options.workerLogs) process.stderr.write(`[${id}] ${line}\n`)
      }
    })
    const process$ = slot.process
    slot.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        if (process$.state !== 'killed') {
          process$.state = signal === 'SIGKILL' ? 'killed' : 'exited'
          if (signal === null && code !== 0 && !this.stopped && !this.options.workerLogs) {
            process.stderr.write(`eoscope: worker ${id} exited with code ${code}:\n${slot.stderr.map((l) => `  ${l}`).join('\n')}\n`)
          }
        }
        if (slot.worker?.id === id) slot.worker.state = process$.state === 'killed' ? 'dead' : slot.worker.state
        const failed = process$.state === 'exited' && signal === null && code !== 0
        if (failed) this.failedExits++
        if ((process$.state === 'killed' || (failed && this.options.restartFailed)) && this.options.restartAfterMs !== null && !this.stopped) {
          setTimeout(() => {
            // Not while the workers restart with new settings, nor for a slot removed meanwhile.
            if (!this.stopped && !this.reconfiguring && slot.child === child && this.slots.includes(slot)) this.startInSlot(slot)
          }, this.options.restartAfterMs)
        }
        resolve()
      })
    })
  }

  liveSlots(): KafkaSlot[] {
    return this.slots.filter((s) => s.process.state === 'running' || s.process.state === 'paused')
  }

  slotOf(workerId: string): KafkaSlot | undefined {
    return this.slots.find((s) => s.worker?.id === workerId)
  }

  /** SIGKILL now, or (step given) the worker kills itself with SIGKILL when it next reaches that step. */
  kill(workerId: string, step: Step | null = null): boolean {
    const sent = this.killNow(workerId, step)
    if (sent === false) return false
    if (sent !== true) sent.catch((e: unknown) => process.stderr.write(`eoscope: kill command for ${workerId} not sent: ${(e as Error).message}\n`))
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
    if (!slot || !slot.child || (slot.process.state !== 'running' && slot.process.state !== 'paused')) {
      if (this.remoteWorkers.has(workerId)) {
        return this.sendCommand(step === null ? { target: workerId, command: 'kill', issuedAtMs: this.time.now() } : { target: workerId, command: 'kill-at-step', step, issuedAtMs: this.time.now() })
      }
      return false
    }
    if (step !== null && slot.process.state === 'running') {
      return this.sendCommand({ target: workerId, command: 'kill-at-step', step, issuedAtMs: this.time.now() })
    }
    const now = this.time.now()
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

  /**
   * Stops every worker process cleanly and starts each slot again with `changes` applied to the
   * config (a new commit.interval.ms, say), as LabRuntime.reconfigure does.
   */
  async restartWorkers(changes: Partial<StreamsConfig> = {}): Promise<void> {
    const next = validateStreamsConfig({ ...this.config, ...changes })
    if (next['processing.guarantee'] === 'exactly_once_v2') throw new Error(EXACTLY_ONCE_V2_UNAVAILABLE)
    this.reconfiguring = true
    try {
      await this.stopWorkers()
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
    if (slot.child && (slot.process.state === 'running' || slot.process.state === 'paused')) {
      if (slot.process.state === 'paused') slot.child.kill('SIGCONT')
      slot.child.kill('SIGTERM')
      const timer = setTimeout(() => slot.child?.kill('SIGKILL'), STOP_GRACE_MS)
      await slot.exited
      clearTimeout(timer)
    }
    return slot
  }

  /** Appends input records whose values do not parse (the workers' deserialization handler decides). */
  async injectPoison(count: number): Promise<void> {
    const keys = Array.from({ length: count }, () => `k${String(this.random.int(0, this.options.keys)).padStart(4, '0')}`)
    this.poisonProducer ??= this.connection.producer({ clientId: `${this.groupId}-poison-injector`, idempotent: false })
    await this.poisonProducer.send(keys.map((key) => ({ topic: this.topics.input, partition: partitionForKey(key, this.options.partitions), key, value: `not-a-number-${this.random.int(0, 1_000_000)}` })))
  }

  /** The input topic's high watermarks, asked of the cluster (throws while it is unreachable). */
  async fetchInputEnds(): Promise<number[]> {
    const ends = await this.admin.fetchTopicOffsets(this.topics.input)
    const out = Array.from({ length: this.options.partitions }, () => 0)
    for (const e of ends) if (e.partition < out.length) out[e.partition] = Number(e.high)
    return out
  }

  dropAcks(_n: number): void {
    // Not injectable into a real broker; the CLI refuses --drop-acks on Kafka.
  }

  private recordKill(worker: KafkaWorkerView, t0: number, step: Step | null, status?: TaskStatus[], memberId?: string | null): void {
    const tasks = status ?? [...worker.tasks.values()]
    const member = memberId ?? worker.memberId
    if (member) this.deadMembers.add(member)
    const g = this.config['processing.guarantee']
    this.tracker.onKill({
      workerId: worker.id,
      memberId: member,
      transactionalIds: g === 'exactly_once' ? tasks.map((t) => `${this.groupId}-0_${t.partition}`) : [],
      guarantee: g,
      t0,
      partitions: tasks.map((t) => ({ partition: t.partition, positionAtKill: t.consumedOffset, committedAtKill: t.committedOffset })),
      hadOpenTxn: tasks.some((t) => t.inTransaction),
    })
    this.kills++
    this.emit({ type: 'worker-killed', workerId: worker.id, step, atMs: t0 })
  }

  async sendCommand(cmd: WorkerCommand): Promise<void> {
    await this.commandsProducer?.send([{ topic: this.topics.commands, partition: 0, key: cmd.target, value: JSON.stringify(cmd) }])
  }

  // ---- telemetry ----------------------------------------------------------------------------

  private async telemetryLoop(): Promise<void> {
    const reader = this.connection.reader()
    const tp = { topic: this.topics.telemetry, partition: 0 }
    let offset = 0
    while (!this.stopped) {
      try {
        for (;;) {
          const r = await reader.read(tp, offset, 1_000, 'read_uncommitted')
          offset = r.nextOffset
          for (const rec of r.records) {
            try {
              this.onEnvelope(JSON.parse(rec.value ?? 'null') as TelemetryEnvelope)
            } catch {
              // one malformed envelope (another version's worker, say) is skipped, not the rest of the batch
            }
          }
          if (r.records.length === 0) break
        }
      } catch (e) {
        // A just-created topic answers "not the leader" for a moment: only later failures are news.
        if (!this.stopped && this.time.now() - this.startedAtMs > 10_000) process.stderr.write(`eoscope: telemetry not read: ${(e as Error).message}\n`)
      }
      await this.time.sleep(TELEMETRY_POLL_MS)
    }
  }

  private viewOf(env: TelemetryEnvelope): KafkaWorkerView {
    const own = this.ownWorkers.get(env.workerId)
    if (own) return own
    let v = this.remoteWorkers.get(env.workerId)
    if (!v) this.remoteWorkers.set(env.workerId, (v = { id: env.workerId, slotId: env.slotId, tasks: new Map(), memberId: null, state: 'running', producers: [], pid: env.pid, host: env.host, lastSeenMs: env.atMs, firstSeenMs: env.atMs }))
    return v
  }

  private onEnvelope(env: TelemetryEnvelope | null): void {
    if (!env || typeof env.workerId !== 'string' || !Array.isArray(env.events) || !Array.isArray(env.status?.tasks)) return
    const view = this.viewOf(env)
    const slot = this.slotOf(env.workerId)
    // A killed process's last words must not bring its view back to life.
    const dead = this.ownWorkers.has(env.workerId) && (slot === undefined || slot.process.state === 'killed' || slot.process.state === 'exited')
    if (!dead) {
      view.tasks = new Map(env.status.tasks.map((t) => [t.partition, t]))
      view.memberId = env.status.memberId
      view.state = env.status.state
      view.producers = env.status.producers
      view.pid = env.pid
      view.host = env.host
      view.lastSeenMs = env.atMs
    }
    for (const e of env.events) this.onEngineEvent(e, env.status.memberId)
    if (env.killed && !this.killReported.has(env.workerId)) {
      this.killReported.add(env.workerId)
      this.recordKill(view, env.atMs, env.killed.step, env.status.tasks, env.status.memberId)
      view.state = 'dead'
      if (slot) slot.process.state = 'killed'
    }
  }

  private onEngineEvent(e: EngineEvent, memberId: string | null): void {
    const t = this.tracker
    const partitionOf = (taskId: string) => Number(taskId.split('_')[1])
    switch (e.type) {
      case 'task-created': {
        // The new owner has the partition: the rebalance is over for it, whatever describeGroups said so far.
        const p = partitionOf(e.taskId)
        for (const r of t.recoveries) {
          if (r.t1 !== null || !r.partitions.some((k) => k.partition === p) || r.workerId === e.workerId) continue
          if (r.detectedAt === null && r.memberId) t.onMemberGone(r.memberId, e.atMs)
          if (!r.assignedAt.has(p)) {
            if (memberId) this.owner.set(p, memberId)
            t.onAssigned([p], e.atMs)
          }
        }
        break
      }
      case 'fence-complete':
        t.onFenced(partitionOf(e.taskId), e.atMs)
        break
      case 'restore-end':
        t.onRestored(partitionOf(e.taskId), e.atMs)
        break
      case 'offsets-committed':
        for (const o of e.offsets) {
          t.onCommitted(o.partition, o.offset, e.atMs)
          const c = this.committed[o.partition]
          if (o.partition < this.committed.length && (c === null || c === undefined || o.offset > c)) this.committed[o.partition] = o.offset
        }
        break
      case 'txn-end':
        if (e.outcome === 'committed') this.txnCommitted++
        else this.txnAborted++
        break
      case 'task-migrated':
        this.fenced++
        break
    }
    this.emit(e)
  }

  // ---- the group and its offsets -------------------------------------------------------------

  private async groupLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.pollGroup()
      } catch (e) {
        if (!this.stopped) process.stderr.write(`eoscope: group not described: ${(e as Error).message}\n`)
      }
      await this.time.sleep(GROUP_POLL_MS)
    }
  }

  private async pollGroup(): Promise<void> {
    const now = this.time.now()
    const { groups } = await this.admin.describeGroups([this.groupId])
    const g = groups[0]
    if (g) {
      const members = new Set(g.members.map((m) => m.memberId))
      for (const r of this.tracker.recoveries) {
        if (r.t1 === null && r.detectedAt === null && r.memberId && !members.has(r.memberId)) this.tracker.onMemberGone(r.memberId, now)
      }
      if (g.state === 'Stable') {
        const changed: number[] = []
        for (const m of g.members) {
          if (this.deadMembers.has(m.memberId) || m.memberAssignment.length === 0) continue
          const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment)
          for (const p of decoded?.assignment[this.topics.input] ?? []) {
            if (this.owner.get(p) !== m.memberId) {
              this.owner.set(p, m.memberId)
              changed.push(p)
            }
          }
        }
        if (changed.length > 0) this.tracker.onAssigned(changed, now)
      }
    }
    await this.refreshCommitted()
  }

  private async refreshCommitted(): Promise<void> {
    const fetched = await this.admin.fetchOffsets({ groupId: this.groupId, topics: [this.topics.input] })
    const now = this.time.now()
    for (const p of fetched[0]?.partitions ?? []) {
      const o = Number(p.offset)
      if (o < 0 || p.partition >= this.committed.length) continue
      if (this.committed[p.partition] === null || o > this.committed[p.partition]!) {
        this.committed[p.partition] = o
        this.tracker.onCommitted(p.partition, o, now)
      }
    }
    if (this.generator.finished && this.endOffsets === null) {
      const ends = await retrying(() => this.admin.fetchTopicOffsets(this.topics.input), 10_000)
      const out = Array.from({ length: this.options.partitions }, () => 0)
      for (const e of ends) out[e.partition] = Number(e.high)
      this.endOffsets = out
    }
  }

  // ---- queries ------------------------------------------------------------------------------

  /** The member the group last assigned this partition to (describeGroups, or the new owner's task-created telemetry). */
  ownerOf(partition: number): string | undefined {
    return this.owner.get(partition)
  }

  committedOffsets(): (number | null)[] {
    return [...this.committed]
  }
  committedTotal(): number {
    return this.committed.reduce<number>((a, b) => a + (b ?? 0), 0)
  }
  /** All input produced, and committed by the group (as of the last poll). */
  caughtUp(): boolean {
    if (!this.generator.finished || this.endOffsets === null) return false
    return this.endOffsets.every((e, p) => (this.committed[p] ?? 0) >= e)
  }
  /** Kills go on while the workers still have input to process. */
  faultWindowOpen(): boolean {
    return !this.caughtUp()
  }
  transactionCounts(): { committed: number; aborted: number } {
    return { committed: this.txnCommitted, aborted: this.txnAborted }
  }
  isExactlyOnce(): boolean {
    return this.config['processing.guarantee'] !== 'at_least_once'
  }

  /** Stops the generator, then every worker process cleanly (SIGCONT first if paused, then SIGTERM). */
  async stop(): Promise<void> {
    this.generator.stop()
    await this.generator.done.catch(() => {})
    await this.stopWorkers()
    this.stopped = true
    await Promise.allSettled(this.loops)
  }

  private async stopWorkers(): Promise<void> {
    const live = this.slots.filter((s) => s.child && (s.process.state === 'running' || s.process.state === 'paused'))
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
}
