// The dashboard's lab on a Kafka cluster: a KafkaLabRuntime (worker processes, telemetry and
// commands topics) watched the way the embedded Lab watches its runtime, with what a real cluster
// changes: every view is read from the cluster over the network (cached, refreshed by loops),
// kills are SIGKILL, pauses SIGSTOP/SIGCONT, workers started elsewhere show up and can be killed,
// and a cluster that stops answering is shown as an outage while it lasts.

import {
  type BackendHealth,
  type CommandName,
  type CommandPayload,
  type CommandResult,
  type LabConfig,
  type LabSnapshot,
  type PartitionLogView,
  type ProducerTimeline,
  type Step,
  type TaskView,
  type Unavailable,
  type WorkerView,
} from '../../../lib/lab-protocol.ts'
import { ConfigException, KAFKA_STREAMS_DEFAULTS, type ProcessingGuarantee, type StreamsConfig, streamsConfigFor } from '../../../lib/streams-config.ts'
import type { KafkaClientConfig } from '../../log/kafka/kafka-client.ts'
import { KafkaConnection } from '../../log/kafka/kafka-connection.ts'
import { SystemTime } from '../../log/time.ts'
import { IncrementalValidator } from '../../validator/incremental-validator.ts'
import { DuplicateLedger } from '../duplicate-ledger.ts'
import { configAfter, LabShell } from '../lab-shell.ts'
import type { LabEvent } from '../lab-runtime.ts'
import { correctnessView, ledgerWindows, logCell, recoveryViews } from '../snapshot-parts.ts'
import { TransactionBoard } from '../transaction-board.ts'
import { VisibilityTracker } from '../visibility-tracker.ts'
import { guaranteeRefusal, refusal } from '../../log/capabilities.ts'
import { KAFKA_CAPABILITIES } from '../../log/kafka/capabilities.ts'
import { WorkerProcessRuntime as KafkaLabRuntime, type KafkaWorkerView } from './worker-process-runtime.ts'
import { RetryingLoadProducer } from './retrying-load-producer.ts'
import { descriptorOf, LAB_DIRECTORY_TOPIC, publishClosed, publishLab } from './lab-directory.ts'

export interface KafkaLabOptions {
  client: KafkaClientConfig
  /** Each lab (and each reset) gets a fresh application.id: `<prefix>-<time>`. */
  applicationIdPrefix?: string
  partitions?: number
  workers?: number
  ratePerSec?: number
  guarantee?: ProcessingGuarantee
  seed?: number
  snapshotIntervalMs?: number
  validateIntervalMs?: number
  /** Worker processes' stderr to this one's (default: kept, shown when a worker fails). */
  workerLogs?: boolean
  /** Delete the previous application's topics on reset and close (default true). */
  deleteTopics?: boolean
}

const SERIES_WINDOW_MS = 500
/** A read_committed fetch per partition per poll: coarser than the embedded lab's 20 ms, on purpose. */
const VISIBILITY_POLL_MS = 100
const HEALTH_POLL_MS = 1_000
const LOG_VIEW_POLL_MS = 1_000
/** A worker started elsewhere that has not published for this long is shown as stopped. */
const REMOTE_SILENT_MS = 5_000
const REMOTE_FORGOTTEN_MS = 60_000
/** How far back the partition log view looks for the latest ABORT marker. */
const ABORT_SEARCH_RECORDS = 20_000
const LOG_WINDOW = 120
/** After a reset, how long workers following the lab get to move to the new application before the old topics go. */
const FOLLOWERS_LEAVE_MS = 5_000
const DELETE_ATTEMPTS = 3
const ANNOUNCE_WITHIN_MS = 5_000
/** How long the load generator retries one send through an outage before it gives up (and says so). */
const LOAD_SEND_DEADLINE_MS = 15 * 60_000

export const KAFKA_UNAVAILABLE: Unavailable = {
  dropAcks: refusal(KAFKA_CAPABILITIES, 'drop-acks')!,
  scenarios: 'guided scenarios run on the embedded log: they place each fault at an exact step on a virtual clock, which a real cluster cannot replay; start eoscope without EOSCOPE_BACKEND=kafka to run them',
  exactlyOnceV2: KAFKA_CAPABILITIES.unavailable.exactly_once_v2!,
  latencyModel: 'real network and broker latency: no model',
}

const NOTES_BEFORE_RUNTIME = [
  'Workers are operating-system processes (eoscope worker): kill is SIGKILL, pause is SIGSTOP and resume SIGCONT.',
  `Visible output and end-to-end latency come from a read_committed fetch of each output partition every ${VISIBILITY_POLL_MS} ms: latency is known to within that.`,
  'Per-partition sequence numbers are shown on the embedded backend only; here the partition log view shows each record\'s producer id, epoch and sequence as the broker stores them.',
]

export class KafkaLab extends LabShell {
  private runtime!: KafkaLabRuntime
  private visibility!: VisibilityTracker
  private validator!: IncrementalValidator
  private validating = false
  private rate: number
  private guarantee: ProcessingGuarantee
  private ledger = new DuplicateLedger()
  private board = this.newBoard()
  private inputEnds: number[] = []
  private deadLetters = 0
  private logView: PartitionLogView | null = null
  private selected: { topic: 'input' | 'output' | 'changelog'; partition: number; window: 'latest' | 'last-abort' } = { topic: 'output', partition: 0, window: 'latest' }
  private health: BackendHealth
  private readonly killedWorkers = new Set<string>()
  private loadProducer: RetryingLoadProducer | null = null
  private loadError: string | null = null
  private closed = false

  constructor(private readonly options: KafkaLabOptions) {
    super(new SystemTime())
    this.rate = options.ratePerSec ?? 500
    this.guarantee = options.guarantee ?? 'exactly_once'
    const refused = guaranteeRefusal(KAFKA_CAPABILITIES, this.guarantee)
    if (refused !== null) throw new ConfigException('processing.guarantee', this.guarantee, refused)
    this.health = { reachable: true, sinceMs: this.time.now(), error: null, outages: 0, lastOutage: null }
  }

  private newApplicationId(): string {
    return `${this.options.applicationIdPrefix ?? 'eoscope-lab'}-${Date.now().toString(36)}`
  }

  async start(config?: StreamsConfig): Promise<void> {
    const c = config ?? streamsConfigFor(this.guarantee, { applicationId: this.newApplicationId() })
    const rt = new KafkaLabRuntime(this.time, {
      client: this.options.client,
      config: c,
      workers: this.options.workers ?? 3,
      partitions: this.options.partitions ?? 6,
      ratePerSec: this.rate,
      maxRecords: Number.POSITIVE_INFINITY,
      keys: 50,
      seed: this.options.seed ?? 1,
      restartAfterMs: 3_000,
      restartFailed: true,
      workerLogs: this.options.workerLogs,
      // Through a broker outage the load waits and resumes; a send that fails for good is shown.
      wrapLoadProducer: (make) => (this.loadProducer = new RetryingLoadProducer(make, LOAD_SEND_DEADLINE_MS)),
    })
    this.loadError = null
    this.runtime = rt
    const ledger = (this.ledger = new DuplicateLedger())
    this.killedWorkers.clear()
    this.validator = new IncrementalValidator(rt.connection.inspector(), { groupId: rt.groupId, inputTopic: rt.topics.input, outputTopic: rt.topics.output, changelogTopic: rt.topics.changelog, dlqTopic: rt.topics.deadLetter })
    this.visibility = new VisibilityTracker(rt.connection.reader(), rt.topics.output, rt.options.partitions, (r) => ledger.observe(r), false)
    this.inputEnds = Array.from({ length: rt.options.partitions }, () => 0)
    this.deadLetters = 0
    this.logView = null
    rt.onEvent((e) => this.onEvent(e))
    this.restartSeries()
    this.latest = this.build()
    // The loops run before the cluster has answered: a start that fails (an outage during a reset)
    // leaves a live lab that shows the outage and can be reset again.
    const timers = { stop: false }
    this.timers = timers
    void this.loop(timers, this.options.snapshotIntervalMs ?? 100, () => this.publish())
    void this.loop(timers, VISIBILITY_POLL_MS, () => this.visibility.poll(this.time.now()))
    void this.loop(timers, SERIES_WINDOW_MS, () => this.sample())
    void this.loop(timers, this.options.validateIntervalMs ?? 2_000, () => this.validate())
    void this.loop(timers, HEALTH_POLL_MS, () => this.checkHealth())
    void this.loop(timers, LOG_VIEW_POLL_MS, () => this.refreshLogView())
    try {
      await rt.start()
    } catch (e) {
      await rt.close().catch(() => {})
      throw e
    }
    if (this.closed) {
      await rt.close()
      return
    }
    void rt.generator.done.catch((e: unknown) => {
      if (this.runtime === rt) this.loadError = e instanceof Error ? e.message : String(e)
    })
    await this.publishDescriptor(rt.config)
  }

  /**
   * Tells workers started elsewhere with --follow-lab which application to join, with which
   * settings. A failure is shown, not fatal: the lab runs on, only followers do not learn of it.
   */
  private async publishDescriptor(config: StreamsConfig): Promise<void> {
    const rt = this.runtime
    try {
      await publishLab(rt.connection, descriptorOf(config, rt.options.partitions, this.time.now()))
    } catch (e) {
      this.mark('outage', `lab directory (${LAB_DIRECTORY_TOPIC}) not updated: ${(e instanceof Error ? e.message : String(e)).slice(0, 80)}`)
    }
  }

  private newBoard(): TransactionBoard {
    return new TransactionBoard((workerId) => this.killedWorkers.has(workerId))
  }

  private onEvent(e: LabEvent): void {
    if ('source' in e) return
    if (e.type === 'producer-init' || e.type === 'txn-begin' || e.type === 'txn-end') this.board.onEngineEvent(e)
    switch (e.type) {
      case 'worker-killed':
        this.killedWorkers.add(e.workerId)
        this.mark('kill', `${e.workerId} killed (SIGKILL)${e.step ? ` at step ${e.step}` : ''}`, e.atMs)
        this.traces.onKilled(e.workerId)
        break
      case 'worker-paused':
        this.mark('pause', `${e.workerId} paused (SIGSTOP): zombie to be`, e.atMs)
        break
      case 'task-migrated':
        this.mark('fenced', `${e.workerId}: ${e.reason.slice(0, 80)}`, e.atMs)
        break
      case 'trace':
        this.traces.onTrace(e)
        break
    }
  }

  // ---- loops that read the cluster ---------------------------------------------------------

  /** One cheap request a second: the input's end offsets. Failing means the cluster is unreachable. */
  private async checkHealth(): Promise<void> {
    const now = this.time.now()
    const rt = this.runtime
    try {
      const ends = await rt.fetchInputEnds()
      if (rt !== this.runtime) return // a reset happened meanwhile: this answer is about the old application
      this.inputEnds = ends
      if (!this.health.reachable) {
        const from = this.health.sinceMs
        this.health = { reachable: true, sinceMs: now, error: null, outages: this.health.outages, lastOutage: { fromMs: from, toMs: now } }
        this.mark('outage', `cluster reachable again after ${((now - from) / 1000).toFixed(1)} s`)
      }
    } catch (e) {
      if (rt !== this.runtime || this.closed) return // the old runtime's connection was closed under it: not an outage
      const error = e instanceof Error ? e.message : String(e)
      if (this.health.reachable) {
        this.health = { reachable: false, sinceMs: now, error, outages: this.health.outages + 1, lastOutage: this.health.lastOutage }
        this.mark('outage', `cluster unreachable: ${error.slice(0, 80)}`)
      } else {
        this.health.error = error
      }
    }
  }

  private sample(): void {
    this.addSample(this.runtime.committedTotal(), this.visibility.drain())
  }

  private async validate(): Promise<void> {
    if (this.validating) return
    this.validating = true
    const rt = this.runtime
    try {
      const report = await this.validator.check()
      if (rt !== this.runtime) return
      this.correctness = correctnessView(report, rt.config['processing.guarantee'], this.time.now())
      this.deadLetters = report.dlqRecords
    } finally {
      this.validating = false
    }
  }

  private topicOf(which: 'input' | 'output' | 'changelog'): string {
    const t = this.runtime.topics
    return which === 'input' ? t.input : which === 'output' ? t.output : t.changelog
  }

  /** The selected partition's newest stored records, or those around its latest ABORT marker. */
  private async refreshLogView(): Promise<void> {
    const rt = this.runtime
    const sel = this.selected
    const topic = this.topicOf(sel.topic)
    const partition = Math.min(sel.partition, rt.options.partitions - 1)
    const tp = { topic, partition }
    const inspector = rt.connection.inspector()
    const o = await inspector.offsets(tp)
    let end = o.highWatermark
    if (sel.window === 'last-abort') {
      const abort = await this.lastAbortOffset(tp, o.logStartOffset, o.highWatermark)
      if (abort !== null) end = Math.min(o.highWatermark, abort + 10)
    }
    const raw = await inspector.readRaw(tp, Math.max(o.logStartOffset, end - LOG_WINDOW), end, LOG_WINDOW)
    const cells = raw.map((x) => logCell(x, topic === rt.topics.input, partition))
    const rc = topic === rt.topics.output ? (this.visibility.positions[partition] ?? o.lastStableOffset) : o.lastStableOffset
    // Only the latest selection of the latest application is shown (an older refresh may end later).
    if (rt !== this.runtime || sel !== this.selected) return
    this.logView = { topic, partition, logStartOffset: o.logStartOffset, lastStableOffset: o.lastStableOffset, highWatermark: o.highWatermark, cells, readCommittedPosition: rc, readUncommittedPosition: o.highWatermark }
  }

  private async lastAbortOffset(tp: { topic: string; partition: number }, logStart: number, hw: number): Promise<number | null> {
    const inspector = this.runtime.connection.inspector()
    for (let to = hw; to > logStart && hw - to < ABORT_SEARCH_RECORDS; to -= 1_000) {
      const from = Math.max(logStart, to - 1_000)
      const raw = await inspector.readRaw(tp, from, to, 1_000)
      for (let i = raw.length - 1; i >= 0; i--) if (raw[i]!.control === 'ABORT') return raw[i]!.offset
    }
    return null
  }

  // ---- the snapshot ---------------------------------------------------------------------------

  private config(): LabConfig {
    const c = this.runtime.config
    return {
      'processing.guarantee': c['processing.guarantee'],
      'commit.interval.ms': c['commit.interval.ms'],
      'transaction.timeout.ms': c['transaction.timeout.ms'],
      'session.timeout.ms': c['session.timeout.ms'],
      'enable.idempotence': c['enable.idempotence'],
      inputRatePerSec: this.rate,
      workers: this.runtime.slots.length,
      partitions: this.runtime.options.partitions,
      latencyModel: 'off',
      'default.deserialization.exception.handler': 'log-and-continue',
    }
  }

  private workerViews(): WorkerView[] {
    const rt = this.runtime
    const now = this.time.now()
    const own: WorkerView[] = rt.slots.map((s) => {
      const w = s.worker
      const state = s.process.state === 'killed' ? 'killed' : s.process.state === 'paused' ? 'paused' : s.process.state === 'exited' || w?.state === 'stopped' || w?.state === 'failed' ? 'stopped' : 'running'
      const alive = state === 'running' || state === 'paused'
      return {
        id: w?.id ?? s.slotId,
        memberId: w?.memberId ?? null,
        state,
        taskIds: alive && w ? [...w.tasks.values()].map((t) => `0_${t.partition}`) : [],
        producers: alive && w ? w.producers.map((p) => ({ ...p })) : [],
        startedAtMs: s.startedAtMs,
        error: s.process.state === 'exited' && s.stderr.length > 0 ? s.stderr.at(-1)!.slice(0, 200) : null,
        pid: w?.pid ?? null,
        host: w?.host ?? null,
      }
    })
    // A remote worker that died or went silent a minute ago is dropped (a restarted follower comes back as a new pid).
    for (const w of rt.remoteWorkers.values()) if (now - w.lastSeenMs > REMOTE_FORGOTTEN_MS) rt.remoteWorkers.delete(w.id)
    const remote: WorkerView[] = [...rt.remoteWorkers.values()].map((w) => {
      const state = w.state === 'dead' ? 'killed' : now - w.lastSeenMs > REMOTE_SILENT_MS || w.state === 'stopped' ? 'stopped' : 'running'
      return {
        id: w.id,
        memberId: w.memberId,
        state,
        taskIds: state === 'running' ? [...w.tasks.values()].map((t) => `0_${t.partition}`) : [],
        producers: state === 'running' ? w.producers.map((p) => ({ ...p })) : [],
        startedAtMs: w.firstSeenMs,
        error: null,
        pid: w.pid,
        host: w.host,
        remote: true,
      }
    })
    return [...own, ...remote]
  }

  private taskViews(committed: (number | null)[]): TaskView[] {
    const rt = this.runtime
    const now = this.time.now()
    const views = [...rt.slots.filter((s) => s.process.state === 'running' || s.process.state === 'paused').map((s) => s.worker), ...[...rt.remoteWorkers.values()].filter((w) => w.state !== 'dead' && now - w.lastSeenMs <= REMOTE_SILENT_MS)]
    // During a rebalance the old owner's last status and the new owner's first one can both claim a
    // partition: the group's assignment decides, then the freshest status.
    const claims = new Map<number, KafkaWorkerView>()
    for (const w of views) {
      if (!w) continue
      for (const t of w.tasks.values()) {
        const other = claims.get(t.partition)
        const owner = rt.ownerOf(t.partition)
        if (!other || (other.memberId !== owner && (w.memberId === owner || w.lastSeenMs > other.lastSeenMs))) claims.set(t.partition, w)
      }
    }
    const tasks: TaskView[] = []
    for (const w of views) {
      if (!w) continue
      for (const t of w.tasks.values()) {
        if (claims.get(t.partition) !== w) continue
        const c = committed[t.partition] ?? t.committedOffset
        tasks.push({
          taskId: `0_${t.partition}`,
          partition: t.partition,
          workerId: w.id,
          state: t.state === 'running' ? 'running' : t.state === 'restoring' ? 'restoring' : 'suspended',
          steps: t.steps ? { ...t.steps } : { consumed: 0, processed: 0, produced: 0, acked: 0, committed: 0 },
          position: t.consumedOffset,
          committedOffset: c ?? null,
          lag: Math.max(0, (this.inputEnds[t.partition] ?? 0) - (c ?? 0)),
        })
      }
    }
    return tasks.sort((a, b) => a.partition - b.partition)
  }

  private producerViews(workers: WorkerView[]): ProducerTimeline[] {
    const idempotent: ProducerTimeline[] = []
    for (const w of workers) {
      if (w.state !== 'running' && w.state !== 'paused') continue
      for (const p of w.producers) if (p.transactionalId === null) idempotent.push({ transactionalId: `idempotent producer of ${w.id}`, producerId: p.producerId, epochs: [{ epoch: p.epoch, atMs: w.startedAtMs }], fencings: [], lastSequence: [] })
    }
    return [...idempotent, ...this.board.producerTimelines()].map((tl) => ({ ...tl, epochs: [...tl.epochs], fencings: [...tl.fencings], lastSequence: [] }))
  }

  protected build(): LabSnapshot {
    const rt = this.runtime
    const committed = rt.committedOffsets()
    const workers = this.workerViews()
    this.ledger.windows = ledgerWindows(rt.tracker.recoveries)
    const notes = [...NOTES_BEFORE_RUNTIME, ...rt.notes]
    if (this.loadError !== null) notes.unshift(`The load generator stopped: ${this.loadError} (${this.loadProducer?.failedRecords ?? 0} input records not written). Reset the lab to start again.`)
    if (!this.health.reachable) notes.unshift(`The cluster (${this.options.client.brokers.join(',')}) does not answer since ${new Date(this.health.sinceMs).toISOString()}: ${this.health.error ?? 'no reply'}. Workers retry; figures resume when it is back.`)
    return {
      seq: ++this.seq,
      atMs: this.time.now(),
      startedAtMs: rt.startedAtMs,
      backend: 'kafka',
      notes,
      unavailable: KAFKA_UNAVAILABLE,
      health: { ...this.health },
      applicationId: rt.groupId,
      config: this.config(),
      kafkaStreamsDefaults: { commitIntervalMs: { ...KAFKA_STREAMS_DEFAULTS.commitIntervalMs } },
      workers,
      tasks: this.taskViews(committed),
      series: this.series.slice(-120),
      markers: [...this.markers],
      transactions: this.board.transactions(),
      txnTotals: this.board.totals(),
      recoveries: recoveryViews(rt.tracker.recoveries, this.ledger),
      correctness: this.correctness,
      scenario: null,
      scenarios: [],
      traces: this.traces.list(),
      partitionLog: this.logView,
      producers: this.producerViews(workers),
      duplicateLedger: this.ledger.entries(),
      totals: {
        inputRecords: this.inputEnds.reduce((a, b) => a + b, 0),
        committedInput: committed.reduce<number>((a, b) => a + (b ?? 0), 0),
        outputRecords: this.visibility.total,
        kills: rt.kills,
        droppedAcks: 0,
        fenced: rt.fenced,
        deadLetters: this.deadLetters,
      },
    }
  }

  protected refusal(): string | null {
    return this.closed ? 'the lab is shutting down' : null
  }

  protected async runCommand(name: CommandName, payload: unknown): Promise<CommandResult | void> {
    const rt = this.runtime
    switch (name) {
      case 'setConfig': {
        const p = payload as CommandPayload<'setConfig'>
        const { inputRatePerSec, workers, 'default.deserialization.exception.handler': handler, ...streams } = p
        const refused = streams['processing.guarantee'] && guaranteeRefusal(rt.connection.capabilities, streams['processing.guarantee'])
        if (refused) return { ok: false, error: refused }
        if (handler !== undefined && handler !== 'log-and-continue') return { ok: false, error: 'the Kafka backend\'s workers use log-and-continue (poison records go to the dead-letter topic); the fail policy is shown on the embedded backend' }
        if (Object.keys(streams).length > 0) {
          const next = configAfter(rt.config, streams) // throws ConfigException; nothing changed then
          this.guarantee = next['processing.guarantee']
          // Followers first: the group should not run mixed settings longer than it must.
          await this.publishDescriptor(next)
          await rt.restartWorkers(next)
          this.mark('config', `${Object.entries(streams).map(([k, v]) => `${k}=${v}`).join(', ')}: worker processes restarted`)
        }
        if (inputRatePerSec !== undefined) {
          this.rate = inputRatePerSec
          rt.generator.setRate(inputRatePerSec)
          this.mark('config', `input rate ${inputRatePerSec}/s`)
        }
        if (workers !== undefined) {
          while (rt.slots.length < workers) rt.addWorker()
          while (rt.slots.length > workers && (await rt.removeWorker())) {
            // stopped cleanly, one at a time
          }
          this.mark('config', `workers=${workers}`)
        }
        break
      }
      case 'killWorker': {
        const { workerId, step } = payload as CommandPayload<'killWorker'>
        if (!(await rt.killConfirmed(workerId, (step ?? null) as Step | null))) return { ok: false, error: `no live worker ${workerId}` }
        break
      }
      case 'pauseWorker': {
        const { workerId } = payload as CommandPayload<'pauseWorker'>
        if (rt.remoteWorkers.has(workerId)) return { ok: false, error: `${workerId} runs on another machine: only this server's own worker processes can be paused (SIGSTOP)` }
        if (!rt.pause(workerId)) return { ok: false, error: `no running worker ${workerId} to pause` }
        break
      }
      case 'resumeWorker': {
        const { workerId } = payload as CommandPayload<'resumeWorker'>
        if (!rt.resume(workerId)) return { ok: false, error: `no paused worker ${workerId}` }
        this.mark('resume', `${workerId} woke up (SIGCONT)`)
        break
      }
      case 'addWorker': {
        if (rt.slots.length >= 12) return { ok: false, error: 'at most 12 workers' }
        const s = rt.addWorker()
        this.mark('worker-added', `${s.slotId} added (new process)`)
        break
      }
      case 'dropAcks':
        return { ok: false, error: KAFKA_UNAVAILABLE.dropAcks! }
      case 'runScenario':
        return { ok: false, error: KAFKA_UNAVAILABLE.scenarios! }
      case 'reset':
        await this.reset()
        break
      case 'injectPoison': {
        const { count } = payload as CommandPayload<'injectPoison'>
        await rt.injectPoison(count)
        this.mark('config', `${count} poison record(s) appended to the input`)
        break
      }
      case 'selectPartition': {
        const sel = payload as CommandPayload<'selectPartition'>
        if (sel.partition >= rt.options.partitions) return { ok: false, error: `partition ${sel.partition} does not exist: the lab has ${rt.options.partitions}` }
        this.selected = sel
        void this.refreshLogView().catch(() => {})
        break
      }
    }
  }

  /**
   * Ends this application (SIGKILL to its own workers) and starts a fresh one; the old topics are
   * deleted only once the new application is published, so workers following the lab move over first.
   */
  private async reset(): Promise<void> {
    const old = this.runtime
    this.timers.stop = true
    await old.close()
    this.clearViews()
    this.board = this.newBoard()
    try {
      await this.start()
      this.mark('reset', `lab reset: application.id ${this.runtime.groupId}`)
    } catch (e) {
      // The old application is gone either way: its followers stop and wait for the next start.
      await this.announceClosed(old)
      throw e
    } finally {
      void this.deleteTopicsOf(old, FOLLOWERS_LEAVE_MS)
    }
  }

  /** Deletes an ended application's topics on a fresh connection (the runtime's own is closed), retrying through an outage for a while. */
  private async deleteTopicsOf(rt: KafkaLabRuntime, afterMs: number): Promise<void> {
    if (this.options.deleteTopics === false) return
    await new Promise((r) => setTimeout(r, afterMs))
    const t = rt.topics
    for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
      const conn = new KafkaConnection({ ...this.options.client, clientId: `${this.options.client.clientId}-cleanup` })
      try {
        await conn.admin().deleteTopics([t.input, t.output, t.changelog, t.deadLetter, t.telemetry, t.commands])
        return
      } catch (e) {
        if (attempt === DELETE_ATTEMPTS) process.stderr.write(`eoscope: the topics of ${rt.groupId} were not deleted: ${(e as Error).message}\n`)
        else await new Promise((r) => setTimeout(r, 2_000 * attempt))
      } finally {
        await conn.close().catch(() => {})
      }
    }
  }

  /** Stops the lab for good: no command runs after it, the workers are killed, followers told, the topics deleted. */
  async close(): Promise<void> {
    this.closed = true
    this.timers.stop = true
    // A reset or worker change under way finishes first (bounded: a shutdown must not hang on it).
    await Promise.race([this.commandsSettled(), new Promise((r) => setTimeout(r, 3_000))])
    const rt = this.runtime
    await rt.close()
    await this.announceClosed(rt)
    await this.deleteTopicsOf(rt, 0)
  }

  /** Tells followers that this application has ended (bounded: a cluster that is down cannot be told). */
  private async announceClosed(rt: KafkaLabRuntime): Promise<void> {
    const conn = new KafkaConnection({ ...this.options.client, clientId: `${this.options.client.clientId}-directory` })
    try {
      await Promise.race([publishClosed(conn, rt.groupId, this.time.now()), new Promise((r) => setTimeout(r, ANNOUNCE_WITHIN_MS))])
    } catch {
      // followers of an application whose topics are gone fail and wait for the directory
    } finally {
      await conn.close().catch(() => {})
    }
  }
}

export async function createKafkaLab(options: KafkaLabOptions): Promise<KafkaLab> {
  const lab = new KafkaLab(options)
  await lab.start()
  return lab
}
