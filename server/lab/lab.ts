// The dashboard's lab, whatever the backend: a runtime (the port in server/runtime/lab-runtime.ts, made by a
// RuntimeFactory), its events folded into coalesced snapshots, the figures read through the log's
// inspector, and the commands a browser or the REST API may send. What a backend cannot do is
// refused with the reason its log connection's capabilities give.

import type {
  CommandName,
  CommandPayload,
  CommandResult,
  CorrectnessView,
  LabCommand,
  LabSnapshot,
  ScenarioView,
} from '../../lib/lab-protocol.ts'
import { KAFKA_STREAMS_DEFAULTS } from '../../lib/streams-config.ts'
import { refusal, type Capability } from '../log/capabilities.ts'
import { SystemTime, type Time } from '../log/time.ts'
import { IncrementalValidator } from '../validator/incremental-validator.ts'
import { DuplicateLedger } from './duplicate-ledger.ts'
import {
  applySetConfig,
  CommandQueue,
  injectPoison,
  isWorkerCommand,
  skipPoison,
  workerCommand,
} from './lab-commands.ts'
import type { LabController } from './lab-controller.ts'
import type { LabEvent, LabRuntime } from '../runtime/lab-runtime.ts'
import { LabHealth, labNotes } from './lab-health.ts'
import { LabTimeline, repeat } from './lab-timeline.ts'
import { LabRecord, type JournalPage, type JournalQuery, type LabFrameResponse } from './journal/lab-record.ts'
import { PartitionLogBook } from './partition-log-view.ts'
import { PartitionsBook } from './partitions-table.ts'
import { groupPart } from './group-book.ts'
import { browseMessages } from './message-browser-read.ts'
import { LabIdentities, recordsNamed } from './lab-identity.ts'
import type { LabTopicRole } from '../../lib/log-range.ts'
import { validationTarget } from '../runtime/runtime-common.ts'
import { inProcessRuntimes, type RuntimeFactory } from '../runtime/runtime-factory.ts'
import { SCENARIOS } from './scenarios/index.ts'
import { dashboardScenarioHost, EvidenceShelf, startScenario, type DashboardScenarioHost } from './lab-scenario.ts'
import {
  brokerCards,
  correctnessView,
  labConfig,
  ledgerWindows,
  recoveryViews,
  TraceBook,
  unavailableControls,
} from './snapshot-parts.ts'
import { TransactionBoard } from './transaction-board.ts'
import { TransactionsBook } from './transactions-book.ts'
import { VisibilityTracker } from './visibility-tracker.ts'
import { idempotentProducers, stoppedTaskViews, WorkerBoard, withCurrentEpochs } from './worker-board.ts'

import type { LabLoopOptions, LabOptions } from './lab-options.ts'
export type { LabLoopOptions, LabOptions } from './lab-options.ts'

const SERIES_WINDOW_MS = 500
const RETENTION_EVERY_MS = 5_000
const MAX_WORKERS = 12
/** The capability a command needs of the backend, if any (a kill at a step needs kill-at-step). */
const CAPABILITY_OF: Partial<Record<CommandName, Capability>> = {
  dropAcks: 'drop-acks',
  runScenario: 'scenarios',
  pauseWorker: 'pause',
  killBroker: 'broker-faults',
  restartBroker: 'broker-faults',
}

export class Lab implements LabController {
  private runtime!: LabRuntime
  private seq = 0
  private latest!: LabSnapshot
  private readonly listeners = new Set<(s: LabSnapshot) => void>()
  private readonly time: Time
  private readonly timeline: LabTimeline
  private readonly record: LabRecord
  private readonly traces = new TraceBook()
  private readonly commands = new CommandQueue({
    refusal: () => (this.closed ? 'the lab is shutting down' : null),
    run: (command) => this.runCommand(command),
    published: () => this.publish(),
  })
  private readonly health: LabHealth
  private readonly logBook = new PartitionLogBook()
  private readonly partitionsBook = new PartitionsBook()
  private readonly transactionsBook = new TransactionsBook({
    runtime: () => this.runtime,
    now: () => this.time.now(),
    journal: (fact, label, links) => this.record.journal.append(fact, label, { links }),
    changed: () => void this.refreshLogView().catch(() => {}),
  })
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
  private board: TransactionBoard
  private deadLetters = 0
  private closed = false
  /** Which lab runs now, and how the earlier ones ended: links name a lab, answered only from the running one. */
  private readonly labs: LabIdentities
  private readonly evidence = new EvidenceShelf((rt) => this.labs.of(rt))
  readonly transactionHistory = (filter: import('./transaction-history.ts').TxnHistoryFilter) =>
    this.record.history.query(filter)

  constructor(
    private readonly runtimes: RuntimeFactory,
    private readonly options: LabLoopOptions = {},
  ) {
    this.time = runtimes.time
    this.labs = new LabIdentities(this.time.now())
    this.record = new LabRecord(
      this.time,
      () => this.runtime,
      () => this.health.view().reachable,
    )
    this.board = this.newBoard()
    this.timeline = new LabTimeline(this.time, (kind, label, t) => this.record.mark(kind, label, t))
    this.health = new LabHealth(this.time, this.timeline)
    this.rate = options.ratePerSec ?? 500
  }

  async start(): Promise<void> {
    await this.startRuntime(
      this.runtimes.create({ guarantee: this.options.guarantee ?? 'exactly_once', ratePerSec: this.rate }),
    )
  }

  /**
   * Watches a new runtime and starts it. The loops run before the runtime has started: a start that
   * fails (a cluster outage during a reset) leaves a live lab that shows the outage and can be reset again.
   */
  private async startRuntime(rt: LabRuntime): Promise<void> {
    this.unsubscribe()
    this.runtime = rt
    this.labs.begin(rt)
    this.rate = rt.generator.rate
    const ledger = new DuplicateLedger()
    this.ledger = ledger
    this.workers = new WorkerBoard()
    this.deadLetters = 0
    this.logBook.clear()
    this.partitionsBook.clear()
    this.validator = new IncrementalValidator(rt.connection.inspector(), {
      ...validationTarget(rt),
      betweenPages: () => rt.time.yield(),
    })
    this.visibility = new VisibilityTracker(
      rt.connection.reader(),
      rt.topics.output,
      rt.partitions,
      (r) => ledger.observe(r),
      rt.clusterAddress === null ? 'probe-offsets' : 'fetch-only',
    )
    this.unsubscribe = rt.onEvent((e) => this.onEvent(e))
    this.record.beginRun()
    this.timeline.restart(rt.committedOffsets())
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
    const timers = { stop: false }
    this.timers = timers
    const loop = (everyMs: number, fn: () => unknown) => repeat(this.time, timers, everyMs, fn)
    void loop(this.options.snapshotIntervalMs ?? 100, () => this.publish())
    void loop(rt.pollMs.visibility, () => this.visibility.poll(this.time.now()))
    void loop(SERIES_WINDOW_MS, () => this.timeline.sample(this.visibility.drain(), rt.config['commit.interval.ms']))
    void loop(this.options.validateIntervalMs ?? 2_000, () => this.validate())
    void loop(RETENTION_EVERY_MS, () => this.applyRetention())
    void loop(rt.pollMs.logView, () => this.refreshLogView())
    void loop(rt.pollMs.logView, () => this.transactionsBook.refresh(rt))
  }

  /** The partitions table and the partition log view, from one read of the offsets. */
  private refreshLogView(): Promise<void> {
    const rt = this.runtime
    return this.partitionsBook.refresh(
      rt,
      () => this.runtime,
      this.board.producerTimelines(),
      (offsetsOf) =>
        this.logBook.refresh(
          rt,
          () => this.runtime,
          (p) => this.visibility.positions[p],
          offsetsOf,
        ),
    )
  }

  /**
   * Stops the current runtime at once and forgets what was shown of it (what it
   * leaves open is the teardown's, not a fault).
   */
  private async teardown(how: string): Promise<void> {
    this.labs.end(how, this.time.now())
    this.timers.stop = true
    this.board.teardown(this.time.now())
    await this.runtime.close()
    this.timeline.clear()
    this.traces.clear()
    this.correctness = null
    this.board = this.newBoard()
  }

  private newBoard(): TransactionBoard {
    return new TransactionBoard(
      (workerId) => this.workers.wasKilled(workerId),
      this.transactionsBook.tee(this.record.txns),
    )
  }

  /** Where a guided scenario runs: each lab it starts replaces the one on screen; the last one runs on when it ends. */
  private scenarioHost(name: string): DashboardScenarioHost {
    return dashboardScenarioHost(name, {
      time: this.time,
      seed: this.runtimes.seed,
      backend: this.runtimes.backend,
      workerThreads: this.runtimes.workerThreads,
      replace: async (r) => {
        const old = this.runtime
        await this.teardown(`the ${name} scenario replaced it with a lab of its own`)
        await this.startRuntime(r)
        // On a cluster a replaced application's topics go, unless an evidence card links into them.
        if (!this.evidence.linksInto(old)) void old.retire('replaced')
        return this.workers
      },
      forScenario: (setup) => this.runtimes.forScenario(setup),
      onScreen: () => (this.closed ? null : this.runtime),
      rate: () => this.rate,
      handBack: (rate) => {
        this.rate = rate
        this.publish()
      },
      mark: (phase, label, verdict) => this.record.scenario(name, phase, label, verdict),
    })
  }

  private onEvent(e: LabEvent): void {
    this.workers.onEvent(e)
    this.record.onEvent(e)
    if ('source' in e) {
      if (e.type === 'txn-ended') this.board.onCoordinatorTxnEnded(e)
      return
    }
    switch (e.type) {
      case 'producer-init':
      case 'txn-begin':
      case 'txn-end':
        this.board.onEngineEvent(e)
        break
      case 'worker-killed':
        this.traces.onKilled(e.workerId)
        break
      case 'ack-dropped':
        for (const b of e.batches)
          if (b.topic === this.runtime.topics.output) this.ledger.noteRetriedBatch(b.partition, b.baseOffset, b.count)
        break
      case 'trace':
        this.traces.onTrace(e)
        break
      case 'offsets-committed':
        this.timeline.committed(e.offsets, e.atMs)
        break
      case 'cluster-unreachable':
        this.health.unreachable(e.error)
        break
      case 'cluster-reachable':
        this.health.reachable()
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
      let keep = Math.min(this.validator.keepFrom(tp), this.evidence.keepFrom(r, tp, this.time.now()))
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
      if (rt !== this.runtime || this.timers.stop) return // a runtime torn down: what it left open is no finding
      this.correctness = correctnessView(report, rt.config['processing.guarantee'], this.time.now())
      this.deadLetters = report.dlqRecords
    } finally {
      this.validating = false
    }
  }

  private build(): LabSnapshot {
    const rt = this.runtime
    const now = this.time.now()
    const ends = rt.inputEndOffsets()
    const committed = rt.committedOffsets()
    const caps = rt.connection.capabilities
    const workers = withCurrentEpochs(
      this.workers.workerViews(rt, now),
      [
        ...this.board.producerTimelines().flatMap((tl) => tl.epochs.slice(-1).map((e) => ({ ...tl, epoch: e.epoch }))),
        ...(this.transactionsBook.part().transactionsView?.coordinators ?? []),
      ],
      (tid) => this.board.ownerOf(tid),
    )
    const unavailable = unavailableControls(caps, rt)
    const scenarios = refusal(caps, 'scenarios') === null
    const tasks = this.workers.taskViews(rt, committed, ends, now)
    this.ledger.windows = ledgerWindows(rt.tracker.recoveries)
    this.record.beforeSnapshot(rt)
    const journal = this.record.parts()
    return {
      seq: ++this.seq,
      atMs: now,
      startedAtMs: rt.startedAtMs,
      backend: rt.backend,
      notes: labNotes(this.runtime, this.health),
      ...(Object.keys(unavailable).length > 0 ? { unavailable } : {}),
      ...(rt.clusterAddress !== null ? { health: this.health.view(), applicationId: rt.groupId } : {}),
      ...(rt.wording.network === undefined ? {} : { network: rt.wording.network }),
      ...(this.labs.current ? { lab: this.labs.current } : {}),
      config: labConfig(rt, this.rate),
      kafkaStreamsDefaults: { commitIntervalMs: { ...KAFKA_STREAMS_DEFAULTS.commitIntervalMs } },
      workers,
      tasks,
      stoppedTasks: stoppedTaskViews(workers, tasks, (id) => this.workers.held(id), committed, ends),
      series: this.timeline.shownSeries(),
      markers: journal.markers,
      journal: journal.journal,
      transactions: this.board.transactions(),
      txnTotals: this.board.totals(),
      txnStats: this.record.history.statistics(),
      recoveries: recoveryViews(rt.tracker.recoveries, this.ledger),
      correctness: this.correctness,
      scenario: this.scenario
        ? { ...this.scenario, narrative: [...this.scenario.narrative], expectations: [...this.scenario.expectations] }
        : null,
      scenarios: scenarios ? SCENARIOS.map((x) => ({ name: x.name, title: x.title, summary: x.summary })) : [],
      evidence: this.evidence.list({
        nowMs: now,
        running: this.labs.current?.id ?? null,
        ended: (id) => this.labs.endedLab(id),
        logStart: (topic, partition) => this.logStart(topic, partition),
      }),
      traces: this.traces.list(),
      partitionLog: this.logBook.shown(),
      producers: [
        ...idempotentProducers(workers),
        ...this.workers.withGenerationFencings(this.board.producerTimelines(), rt.config['processing.guarantee']),
      ].map((tl) => ({
        ...tl,
        epochs: [...tl.epochs],
        fencings: [...tl.fencings],
        lastSequence: rt.producerSequences(tl.producerId),
      })),
      duplicateLedger: this.ledger.entries(),
      ...(this.partitionsBook.rows ? { partitions: this.partitionsBook.rows } : {}),
      ...this.transactionsBook.part(),
      ...groupPart(rt, { now, workers, ...rt.groupOffsets() }),
      ...brokerCards.part(this, rt, now),
      totals: {
        inputRecords: ends.reduce((a, b) => a + b, 0),
        committedInput: committed.reduce<number>((a, b) => a + (b ?? 0), 0),
        outputRecords: this.visibility.total,
        kills: journal.kills,
        droppedAcks: rt.droppedAcks,
        fenced: rt.fenced,
        deadLetters: this.deadLetters,
      },
    }
  }

  private publish(): void {
    this.latest = this.build()
    this.record.shown(this.latest)
    for (const l of this.listeners) l(this.latest)
  }

  journalPage(q: JournalQuery): JournalPage {
    return this.record.page(q)
  }

  frameAt(t: number): LabFrameResponse<LabSnapshot> | null {
    return this.record.frameAt(t)
  }
  /** The message browser's page; a query that names another lab than the running one is refused as gone. */
  messages = async (q: Parameters<typeof browseMessages>[1]) => {
    const refused = q.lab === undefined ? null : this.labs.refusal(q.lab, recordsNamed(q))
    if (refused !== null) return { ok: false as const, error: refused, gone: true }
    return browseMessages(this.runtime, q)
  }

  /** The running lab's log start offset of one of its partitions, as the partitions table last read it. */
  private logStart(topic: LabTopicRole, partition: number): number | undefined {
    return this.partitionsBook.rows?.find((r) => r.role === topic && r.partition === partition)?.logStartOffset
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

  private async runCommand(command: LabCommand): Promise<CommandResult | undefined> {
    const rt = this.runtime
    const needs =
      command.name === 'killWorker' && command.payload.step != null ? 'kill-at-step' : CAPABILITY_OF[command.name]
    const refused = needs === undefined ? null : refusal(rt.connection.capabilities, needs)
    if (refused !== null) return { ok: false, error: refused }
    if (TransactionsBook.owns(command)) return this.transactionsBook.run(rt, command)
    if (isWorkerCommand(command))
      return workerCommand(rt, command, (workerId) =>
        this.record.mark('resume', `${workerId} woke up${rt.wording.resumed}`, undefined, { kind: 'resume', workerId }),
      )
    switch (command.name) {
      case 'killBroker':
      case 'restartBroker':
        return brokerCards.command(this, rt, command.name, command.payload.brokerId, (label, fact) =>
          this.record.mark('outage', label, undefined, fact),
        )
      case 'setConfig':
        return applySetConfig(rt, command.payload, {
          mark: (kind, label) =>
            this.record.mark(kind, label, undefined, {
              kind: 'config',
              changes: command.payload as Record<string, string | number>,
            }),
          rate: (r) => (this.rate = r),
        })
      case 'skipPoison':
        return skipPoison(rt, (label) =>
          this.record.mark('config', label, undefined, {
            kind: 'config',
            changes: { 'default.deserialization.exception.handler': 'log-and-continue' },
          }),
        )
      case 'addWorker':
        if (rt.slots.length >= MAX_WORKERS) return { ok: false, error: `at most ${MAX_WORKERS} workers` }
        this.record.added(rt.addWorker().slotId, rt.wording)
        return
      case 'dropAcks':
        rt.dropAcks(command.payload.count)
        return
      case 'reset':
        await this.reset()
        return
      case 'injectPoison': {
        const { count } = command.payload
        await injectPoison(rt, count, (label) =>
          this.record.mark('config', label, undefined, { kind: 'poison', count, handler: rt.deserializationPolicy }),
        )
        return
      }
      case 'selectPartition':
        return this.select(command.payload)
      case 'runScenario': {
        const scenario = command.payload.name
        const started = startScenario(scenario, this.scenario, this.scenarioHost(scenario), this.evidence)
        if (started.view) this.scenario = started.view
        return started.result.ok ? undefined : started.result
      }
      case 'dismissEvidence':
        return this.evidence.dismiss(command.payload.id)
    }
  }

  private select(sel: CommandPayload<'selectPartition'>): CommandResult | undefined {
    const rt = this.runtime
    const refused =
      sel.lab === undefined
        ? null
        : this.labs.refusal(sel.lab, recordsNamed({ ...sel, from: sel.window === 'at' ? sel.fromOffset : undefined }))
    if (refused !== null) {
      // The partition log shows why instead of the running lab's records at the same offsets.
      this.logBook.refuse(refused)
      return { ok: false, error: refused }
    }
    if (sel.partition >= rt.partitions)
      return { ok: false, error: `partition ${sel.partition} does not exist: the lab has ${rt.partitions}` }
    this.logBook.select(sel)
    void this.refreshLogView().catch(() => {})
  }

  /**
   * Reset means the defaults: a fresh runtime with the lab's starting guarantee (and its commit.interval.ms), rate and
   * worker count, whatever was set since. On a cluster the old application's topics go once the new one is published.
   */
  private async reset(): Promise<void> {
    const old = this.runtime
    await this.teardown('a reset replaced it')
    this.scenario = null
    try {
      await this.startRuntime(
        this.runtimes.create({
          guarantee: this.options.guarantee ?? 'exactly_once',
          ratePerSec: this.options.ratePerSec ?? 500,
        }),
      )
    } catch (e) {
      // The old application is gone either way: its followers stop and wait for the next start.
      void old.retire('ended')
      throw e
    }
    void old.retire('replaced')
    this.record.mark(
      'reset',
      `lab reset to the defaults (${this.runtime.config['processing.guarantee']}, ${this.rate}/s, ` +
        `${this.runtime.slots.length} workers): application.id ${this.runtime.groupId}`,
      undefined,
      { kind: 'reset', applicationId: this.runtime.groupId },
    )
  }

  /** Stops the lab for good: no command runs after it, the runtime ends and its application is retired. */
  async close(): Promise<void> {
    this.closed = true
    this.timers.stop = true
    this.board.teardown(this.time.now())
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
