// The dashboard's lab, whatever the backend: a runtime (the port in lab-runtime.ts, made by a
// RuntimeFactory), its events folded into coalesced snapshots, the figures read through the log's
// inspector, and the commands a browser or the REST API may send. What a backend cannot do is
// refused with the reason its log connection's capabilities give.

import type { CommandName, CommandPayload, CommandResult, CorrectnessView, LabSnapshot, ScenarioView, Step } from '../../lib/lab-protocol.ts'
import { KAFKA_STREAMS_DEFAULTS, type ProcessingGuarantee } from '../../lib/streams-config.ts'
import { refusal, type Capability } from '../log/capabilities.ts'
import { SystemTime, type Time } from '../log/time.ts'
import { IncrementalValidator } from '../validator/incremental-validator.ts'
import { DuplicateLedger } from './duplicate-ledger.ts'
import { applySetConfig, CommandQueue, injectPoison, skipPoison } from './lab-commands.ts'
import type { LabController } from './lab-controller.ts'
import type { LabEvent, LabRuntime } from './lab-runtime.ts'
import { LabHealth } from './lab-health.ts'
import { failureLabel, LabTimeline, repeat } from './lab-timeline.ts'
import { PartitionLogBook } from './partition-log-view.ts'
import { validationTarget } from './runtime-common.ts'
import { inProcessRuntimes, type InProcessLabOptions, type RuntimeFactory } from './runtime-factory.ts'
import { SCENARIOS } from './scenarios/index.ts'
import { startScenario } from './lab-scenario.ts'
import type { ScenarioHost } from './scenarios/scenario.ts'
import { correctnessView, labConfig, ledgerWindows, recoveryViews, TraceBook, unavailableControls } from './snapshot-parts.ts'
import { TransactionBoard } from './transaction-board.ts'
import { VisibilityTracker } from './visibility-tracker.ts'
import { idempotentProducers, stoppedTaskViews, WorkerBoard } from './worker-board.ts'

export interface LabLoopOptions {
  ratePerSec?: number
  guarantee?: ProcessingGuarantee
  snapshotIntervalMs?: number
  validateIntervalMs?: number
}

export type LabOptions = LabLoopOptions & Partial<InProcessLabOptions>

const SERIES_WINDOW_MS = 500
const RETENTION_EVERY_MS = 5_000
const MAX_WORKERS = 12
/** The capability a command needs of the backend, if any (a kill at a step needs kill-at-step). */
const CAPABILITY_OF: Partial<Record<CommandName, Capability>> = { dropAcks: 'drop-acks', runScenario: 'scenarios', pauseWorker: 'pause' }

export class Lab implements LabController {
  private runtime!: LabRuntime
  private seq = 0
  private latest!: LabSnapshot
  private readonly listeners = new Set<(s: LabSnapshot) => void>()
  private readonly time: Time
  private readonly timeline: LabTimeline
  private readonly traces = new TraceBook()
  private readonly commands = new CommandQueue({ refusal: () => (this.closed ? 'the lab is shutting down' : null), run: (n, p) => this.runCommand(n, p), published: () => this.publish() })
  private readonly health: LabHealth
  private readonly logBook = new PartitionLogBook()
  private correctness: CorrectnessView | null = null
  private timers = { stop: false }
  private unsubscribe = () => {}
  private visibility!: VisibilityTracker
  private validator!: IncrementalValidator
  private validating = false
  private rate: number
  private scenario: ScenarioView | null = null
  private ledger = new DuplicateLedger()
  private workers = new WorkerBoard()
  private board = this.newBoard()
  private deadLetters = 0
  private closed = false

  constructor(
    private readonly runtimes: RuntimeFactory,
    private readonly options: LabLoopOptions = {},
  ) {
    this.time = runtimes.time
    this.timeline = new LabTimeline(this.time)
    this.health = new LabHealth(this.time, this.timeline)
    this.rate = options.ratePerSec ?? 500
  }

  async start(): Promise<void> {
    await this.startRuntime(this.runtimes.create({ guarantee: this.options.guarantee ?? 'exactly_once', ratePerSec: this.rate }))
  }

  /**
   * Watches a new runtime and starts it. The loops run before the runtime has started: a start that
   * fails (a cluster outage during a reset) leaves a live lab that shows the outage and can be reset again.
   */
  private async startRuntime(rt: LabRuntime): Promise<void> {
    this.unsubscribe()
    this.runtime = rt
    this.rate = rt.generator.rate
    const ledger = (this.ledger = new DuplicateLedger())
    this.workers = new WorkerBoard()
    this.deadLetters = 0
    this.logBook.clear()
    this.validator = new IncrementalValidator(rt.connection.inspector(), validationTarget(rt))
    this.visibility = new VisibilityTracker(rt.connection.reader(), rt.topics.output, rt.partitions, (r) => ledger.observe(r), rt.clusterAddress === null ? 'probe-offsets' : 'fetch-only')
    this.unsubscribe = rt.onEvent((e) => this.onEvent(e))
    this.timeline.restart()
    this.latest = this.build()
    this.startLoops(rt)
    try {
      await rt.start()
    } catch (e) {
      await rt.close().catch(() => {})
      throw e
    }
    if (this.closed) await rt.close()
    this.latest = this.build()
  }

  private startLoops(rt: LabRuntime): void {
    const timers = (this.timers = { stop: false })
    const loop = (everyMs: number, fn: () => unknown) => repeat(this.time, timers, everyMs, fn)
    void loop(this.options.snapshotIntervalMs ?? 100, () => this.publish())
    void loop(rt.pollMs.visibility, () => this.visibility.poll(this.time.now()))
    void loop(SERIES_WINDOW_MS, () => this.timeline.sample(rt.committedTotal(), this.visibility.drain()))
    void loop(this.options.validateIntervalMs ?? 2_000, () => this.validate())
    void loop(RETENTION_EVERY_MS, () => this.applyRetention())
    void loop(rt.pollMs.logView, () => this.refreshLogView())
  }

  private refreshLogView(): Promise<void> {
    return this.logBook.refresh(this.runtime, () => this.runtime, (p) => this.visibility.positions[p])
  }

  /** Stops the current runtime at once and forgets what was shown of it. */
  private async teardown(): Promise<void> {
    this.timers.stop = true
    await this.runtime.close()
    this.timeline.clear()
    this.traces.clear()
    this.correctness = null
    this.board = this.newBoard()
  }

  private newBoard(): TransactionBoard {
    return new TransactionBoard((workerId) => this.workers.wasKilled(workerId))
  }

  /** Where a guided scenario runs: each lab it starts replaces the one on screen. */
  private scenarioHost(name: string): ScenarioHost {
    return {
      time: this.time,
      seed: this.runtimes.seed,
      start: async (setup) => {
        const r = this.runtimes.forScenario(setup)
        await this.teardown()
        await this.startRuntime(r)
        this.timeline.mark('config', `scenario ${name}: ${setup.guarantee}, commit.interval.ms=${r.config['commit.interval.ms']}`)
        return r
      },
    }
  }

  private onEvent(e: LabEvent): void {
    this.workers.onEvent(e)
    if ('source' in e) {
      if (e.type === 'group' && e.event.type === 'member-expired') this.timeline.mark('rebalance', `${e.event.memberId} expired`, e.event.atMs)
      if (e.type === 'txn-ended') this.board.onCoordinatorTxnEnded(e)
      return
    }
    const words = this.runtime.wording
    switch (e.type) {
      case 'producer-init':
      case 'txn-begin':
      case 'txn-end':
        this.board.onEngineEvent(e)
        break
      case 'worker-killed':
        this.timeline.mark('kill', `${e.workerId} killed${words.killed}${e.step ? ` at step ${e.step}` : ''}`, e.atMs)
        this.traces.onKilled(e.workerId)
        break
      case 'worker-paused':
        this.timeline.mark('pause', `${e.workerId} paused${words.paused}`, e.atMs)
        break
      case 'ack-dropped':
        for (const b of e.batches) if (b.topic === this.runtime.topics.output) this.ledger.noteRetriedBatch(b.partition, b.baseOffset, b.count)
        this.timeline.mark('ack-dropped', `ack lost: producer ${e.producerId} epoch ${e.epoch}, sequences ${e.batches.map((b) => b.baseSequence).join(',')}`, e.atMs)
        break
      case 'worker-failed':
        this.timeline.mark('stopped', failureLabel(e.workerId, e.error), e.atMs)
        break
      case 'task-migrated':
        this.timeline.mark('fenced', `${e.workerId}: ${e.reason.slice(0, 80)}`, e.atMs)
        break
      case 'trace':
        this.traces.onTrace(e)
        break
      case 'cluster-unreachable':
        this.health.unreachable(e.error)
        break
      case 'cluster-reachable':
        this.health.reachable()
        break
      case 'runtime-notice':
        this.timeline.mark(e.marker, e.label, e.atMs)
        break
    }
  }

  /**
   * Bounded memory for a lab that runs for hours, never past what a reader still needs: the
   * group's committed offsets (a new owner restarts there), the dashboard's read_committed
   * consumer, and the validator.
   */
  private applyRetention(): void {
    const r = this.runtime
    const committed = r.committedOffsets()
    r.applyRetention((tp) => {
      let keep = this.validator.keepFrom(tp)
      if (tp.topic === r.topics.input) keep = Math.min(keep, committed[tp.partition] ?? 0)
      if (tp.topic === r.topics.output) keep = Math.min(keep, this.visibility.positions[tp.partition] ?? 0)
      return keep
    })
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

  private notes(): string[] {
    const rt = this.runtime
    const notes = [...rt.labNotes, ...rt.notes]
    const load = rt.loadFailure()
    if (load !== null) notes.unshift(`The load generator stopped: ${load}. Reset the lab to start again.`)
    const outage = rt.clusterAddress === null ? null : this.health.note(rt.clusterAddress)
    if (outage !== null) notes.unshift(outage)
    return notes
  }

  private build(): LabSnapshot {
    const rt = this.runtime
    const now = this.time.now()
    const ends = rt.inputEndOffsets()
    const committed = rt.committedOffsets()
    const caps = rt.connection.capabilities
    const workers = this.workers.workerViews(rt, now)
    const unavailable = unavailableControls(caps, rt)
    const scenarios = refusal(caps, 'scenarios') === null
    const tasks = this.workers.taskViews(rt, committed, ends, now)
    this.ledger.windows = ledgerWindows(rt.tracker.recoveries)
    return {
      seq: ++this.seq,
      atMs: now,
      startedAtMs: rt.startedAtMs,
      backend: rt.backend,
      notes: this.notes(),
      ...(Object.keys(unavailable).length > 0 ? { unavailable } : {}),
      ...(rt.clusterAddress !== null ? { health: this.health.view(), applicationId: rt.groupId } : {}),
      config: labConfig(rt, this.rate),
      kafkaStreamsDefaults: { commitIntervalMs: { ...KAFKA_STREAMS_DEFAULTS.commitIntervalMs } },
      workers,
      tasks,
      stoppedTasks: stoppedTaskViews(workers, tasks, (id) => this.workers.held(id), committed, ends),
      series: this.timeline.shownSeries(),
      markers: this.timeline.shownMarkers(),
      transactions: this.board.transactions(),
      txnTotals: this.board.totals(),
      recoveries: recoveryViews(rt.tracker.recoveries, this.ledger),
      correctness: this.correctness,
      scenario: this.scenario ? { ...this.scenario, narrative: [...this.scenario.narrative], expectations: [...this.scenario.expectations] } : null,
      scenarios: scenarios ? SCENARIOS.map((x) => ({ name: x.name, title: x.title, summary: x.summary })) : [],
      traces: this.traces.list(),
      partitionLog: this.logBook.view,
      producers: [...idempotentProducers(workers), ...this.board.producerTimelines()].map((tl) => ({ ...tl, epochs: [...tl.epochs], fencings: [...tl.fencings], lastSequence: rt.producerSequences(tl.producerId) })),
      duplicateLedger: this.ledger.entries(),
      totals: {
        inputRecords: ends.reduce((a, b) => a + b, 0),
        committedInput: committed.reduce<number>((a, b) => a + (b ?? 0), 0),
        outputRecords: this.visibility.total,
        kills: rt.kills,
        droppedAcks: rt.droppedAcks,
        fenced: rt.fenced,
        deadLetters: this.deadLetters,
      },
    }
  }

  private publish(): void {
    this.latest = this.build()
    for (const l of this.listeners) l(this.latest)
  }

  snapshot(): LabSnapshot {
    return this.latest
  }

  onSnapshot(listener: (s: LabSnapshot) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Commands run one at a time, in arrival order. */
  execute(name: string, payload: unknown): Promise<CommandResult> {
    return this.commands.execute(name, payload)
  }

  private async runCommand(name: CommandName, payload: unknown): Promise<CommandResult | void> {
    const rt = this.runtime
    const needs = name === 'killWorker' && (payload as CommandPayload<'killWorker'>).step != null ? 'kill-at-step' : CAPABILITY_OF[name]
    const refused = needs === undefined ? null : refusal(rt.connection.capabilities, needs)
    if (refused !== null) return { ok: false, error: refused }
    switch (name) {
      case 'setConfig':
        return applySetConfig(rt, payload as CommandPayload<'setConfig'>, { mark: (kind, label) => this.timeline.mark(kind, label), rate: (r) => (this.rate = r) })
      case 'skipPoison':
        return skipPoison(rt, (label) => this.timeline.mark('config', label))
      case 'killWorker': {
        const { workerId, step } = payload as CommandPayload<'killWorker'>
        if (!(await rt.killConfirmed(workerId, (step ?? null) as Step | null))) return { ok: false, error: `no live worker ${workerId}` }
        return
      }
      case 'pauseWorker': {
        const { workerId } = payload as CommandPayload<'pauseWorker'>
        if (rt.isRemote(workerId)) return { ok: false, error: `${workerId} runs on another machine: only this server's own worker processes can be paused (SIGSTOP)` }
        if (!rt.pause(workerId)) return { ok: false, error: `no running worker ${workerId} to pause` }
        return
      }
      case 'resumeWorker': {
        const { workerId } = payload as CommandPayload<'resumeWorker'>
        if (!rt.resume(workerId)) return { ok: false, error: `no paused worker ${workerId}` }
        this.timeline.mark('resume', `${workerId} woke up${rt.wording.resumed}`)
        return
      }
      case 'addWorker':
        if (rt.slots.length >= MAX_WORKERS) return { ok: false, error: `at most ${MAX_WORKERS} workers` }
        this.timeline.mark('worker-added', `${rt.addWorker().slotId} added${rt.wording.added}`)
        return
      case 'dropAcks':
        rt.dropAcks((payload as CommandPayload<'dropAcks'>).count)
        return
      case 'reset':
        return this.reset()
      case 'injectPoison':
        return injectPoison(rt, (payload as CommandPayload<'injectPoison'>).count, (label) => this.timeline.mark('config', label))
      case 'selectPartition':
        return this.select(payload as CommandPayload<'selectPartition'>)
      case 'runScenario': {
        const { name: scenario } = payload as CommandPayload<'runScenario'>
        const started = startScenario(scenario, this.scenario, this.scenarioHost(scenario), this.time.now())
        if (started.view) this.scenario = started.view
        return started.result.ok ? undefined : started.result
      }
    }
  }

  private select(sel: CommandPayload<'selectPartition'>): CommandResult | void {
    const rt = this.runtime
    if (sel.partition >= rt.partitions) return { ok: false, error: `partition ${sel.partition} does not exist: the lab has ${rt.partitions}` }
    this.logBook.selected = sel
    void this.refreshLogView().catch(() => {})
  }

  /**
   * Ends this runtime and starts a fresh one with the same guarantee; on a cluster the old
   * application's topics go only once the new one is published, so followers move over first.
   */
  private async reset(): Promise<void> {
    const old = this.runtime
    await this.teardown()
    this.scenario = null
    try {
      await this.startRuntime(this.runtimes.create({ guarantee: old.config['processing.guarantee'], ratePerSec: this.rate }))
    } catch (e) {
      // The old application is gone either way: its followers stop and wait for the next start.
      void old.retire('ended')
      throw e
    }
    void old.retire('replaced')
    this.timeline.mark('reset', `lab reset: application.id ${this.runtime.groupId}`)
  }

  /** Stops the lab for good: no command runs after it, the runtime ends and its application is retired. */
  async close(): Promise<void> {
    this.closed = true
    this.timers.stop = true
    // A reset or worker change under way finishes first (bounded: a shutdown must not hang on it).
    await Promise.race([this.commands.settled(), new Promise((r) => setTimeout(r, 3_000))])
    await this.runtime.close()
    await this.runtime.retire('ended')
  }
}

export async function createLab(options: LabOptions = {}): Promise<Lab> {
  const lab = new Lab(inProcessRuntimes({ ...options, time: options.time ?? new SystemTime() }), options)
  await lab.start()
  return lab
}
