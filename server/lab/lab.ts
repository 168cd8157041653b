// The dashboard's lab: a LabRuntime on the embedded log, its telemetry aggregated into coalesced
// snapshots, and the commands a browser or the REST API may send.

import {
  type CommandName,
  type CommandResult,
  type LabConfig,
  type LabSnapshot,
  type CommandPayload,
  type ScenarioView,
  type Step,
  type PartitionLogView,
  type ProducerTimeline,
} from '../../lib/lab-protocol.ts'
import { defaultStreamsConfig, KAFKA_STREAMS_DEFAULTS, type ProcessingGuarantee } from '../../lib/streams-config.ts'
import { SystemTime, type Time } from '../log/time.ts'
import { configAfter, LabShell } from './lab-shell.ts'
import type { LabEvent } from './lab-runtime.ts'
import { InProcessRuntime, type InProcessRuntimeOptions } from './in-process-runtime.ts'
import { runScenario, SCENARIOS, scenarioByName } from './scenarios/index.ts'
import { runtimeOptions, type ScenarioHost } from './scenarios/scenario.ts'
import { correctnessView, ledgerWindows, logCell, recoveryViews } from './snapshot-parts.ts'
import { VisibilityTracker } from './visibility-tracker.ts'
import { DuplicateLedger } from './duplicate-ledger.ts'
import { TransactionBoard } from './transaction-board.ts'
import { IncrementalValidator } from '../validator/incremental-validator.ts'

export interface LabOptions {
  time?: Time
  partitions?: number
  workers?: number
  ratePerSec?: number
  guarantee?: ProcessingGuarantee
  latency?: 'default' | 'off'
  seed?: number
  snapshotIntervalMs?: number
  validateIntervalMs?: number
}

const SERIES_WINDOW_MS = 500
const VISIBILITY_POLL_MS = 20
const RETENTION_EVERY_MS = 5_000
/** Records kept per partition of input, output and dead-letter topics (retention.bytes, by count). */
const RETAINED_RECORDS = 50_000

export class Lab extends LabShell {
  private runtime!: InProcessRuntime
  private visibility!: VisibilityTracker
  private validating = false
  private rate: number
  private scenario: ScenarioView | null = null
  private ledger = new DuplicateLedger()
  private validator!: IncrementalValidator
  private board = this.newBoard()
  private selected: { topic: 'input' | 'output' | 'changelog'; partition: number; window: 'latest' | 'last-abort' } = { topic: 'output', partition: 0, window: 'latest' }

  constructor(private readonly options: LabOptions = {}) {
    super(options.time ?? new SystemTime())
    this.rate = options.ratePerSec ?? 500
  }

  async start(): Promise<void> {
    const guarantee = this.options.guarantee ?? 'exactly_once'
    await this.startWith({
      config: defaultStreamsConfig(guarantee),
      workers: this.options.workers ?? 3,
      partitions: this.options.partitions ?? 6,
      ratePerSec: this.rate,
      maxRecords: Number.POSITIVE_INFINITY,
      keys: 50,
      seed: this.options.seed ?? 1,
      latency: this.options.latency ?? 'default',
      restartAfterMs: 3_000,
      deserializationPolicy: 'log-and-continue',
      traceIntervalMs: 500,
    })
  }

  /** Starts a lab runtime with these options and everything that watches it. */
  private async startWith(options: InProcessRuntimeOptions): Promise<InProcessRuntime> {
    this.runtime = new InProcessRuntime(this.time, options)
    this.rate = options.ratePerSec
    this.ledger = new DuplicateLedger()
    const rt = this.runtime
    this.validator = new IncrementalValidator(rt.connection.inspector(), { groupId: rt.groupId, inputTopic: rt.topics.input, outputTopic: rt.topics.output, changelogTopic: rt.topics.changelog, dlqTopic: rt.topics.deadLetter })
    this.visibility = new VisibilityTracker(this.runtime.connection.reader(), this.runtime.topics.output, options.partitions, (r) => this.ledger.observe(r))
    this.runtime.onEvent((e) => this.onEvent(e))
    this.restartSeries()
    await this.runtime.start()
    this.latest = this.build()
    const timers = { stop: false }
    this.timers = timers
    void this.loop(timers, this.options.snapshotIntervalMs ?? 100, () => this.publish())
    void this.loop(timers, VISIBILITY_POLL_MS, () => this.visibility.poll(this.time.now()))
    void this.loop(timers, SERIES_WINDOW_MS, () => this.sample())
    void this.loop(timers, this.options.validateIntervalMs ?? 2_000, () => void this.validate())
    void this.loop(timers, RETENTION_EVERY_MS, () => this.applyRetention())
    return this.runtime
  }

  /** Stops the current runtime at once and forgets what was shown of it. */
  private async teardown(): Promise<void> {
    this.timers.stop = true
    await this.runtime.close()
    this.clearViews()
    this.board = this.newBoard()
  }

  /** Runs a guided scenario on the lab on screen: each lab it starts replaces the current one. */
  private async runScenario(name: string): Promise<CommandResult> {
    const scenario = scenarioByName(name)
    if (!scenario) return { ok: false, error: `unknown scenario ${JSON.stringify(name)}` }
    if (this.scenario?.status === 'running') return { ok: false, error: `scenario ${this.scenario.name} is still running` }
    const host: ScenarioHost = {
      time: this.time,
      seed: this.options.seed ?? 1,
      start: async (setup) => {
        await this.teardown()
        const r = await this.startWith(runtimeOptions(setup, this.options.seed ?? 1))
        this.mark('config', `scenario ${scenario.name}: ${setup.guarantee}, commit.interval.ms=${r.config['commit.interval.ms']}`)
        return r
      },
    }
    const view: ScenarioView = { name: scenario.name, title: scenario.title, summary: scenario.summary, status: 'running', narrative: [], expectations: [], conclusion: null, error: null, startedAtMs: this.time.now() }
    this.scenario = view
    void runScenario(scenario, host, (line) => view.narrative.push(line)).then(
      (r) => {
        Object.assign(view, { status: r.passed ? 'passed' : 'failed', expectations: r.expectations, conclusion: r.conclusion })
      },
      (e: unknown) => {
        Object.assign(view, { status: 'error', error: e instanceof Error ? e.message : 'scenario failed' })
      },
    )
    return { ok: true, message: `scenario ${scenario.name} started` }
  }

  private onEvent(e: LabEvent): void {
    if ('source' in e) {
      if (e.type === 'group' && e.event.type === 'member-expired') this.mark('rebalance', `${e.event.memberId} expired`, e.event.atMs)
      if (e.type === 'txn-ended') this.board.onCoordinatorTxnEnded(e)
      return
    }
    if (e.type === 'producer-init' || e.type === 'txn-begin' || e.type === 'txn-end') this.board.onEngineEvent(e)
    switch (e.type) {
      case 'worker-killed':
        this.mark('kill', `${e.workerId} killed${e.step ? ` at step ${e.step}` : ''}`, e.atMs)
        this.traces.onKilled(e.workerId)
        break
      case 'ack-dropped':
        for (const b of e.batches) if (b.topic === this.runtime.topics.output) this.ledger.noteRetriedBatch(b.partition, b.baseOffset, b.count)
        this.mark('ack-dropped', `ack lost: producer ${e.producerId} epoch ${e.epoch}, sequences ${e.batches.map((b) => b.baseSequence).join(',')}`, e.atMs)
        break
      case 'task-migrated':
        this.mark('fenced', `${e.workerId}: ${e.reason.slice(0, 80)}`, e.atMs)
        break
      case 'trace':
        this.traces.onTrace(e)
        break
    }
  }

  /**
   * Bounded memory for a lab that runs for hours: compaction for the changelog and offsets topics,
   * size retention for the rest, never past what a reader still needs: the group's committed
   * offsets (a new owner restarts there), the dashboard's read_committed consumer, and the validator.
   */
  private applyRetention(): void {
    const r = this.runtime
    const committed = r.committedOffsets()
    r.cluster.applyRetention({ maxRecords: RETAINED_RECORDS }, (tp) => {
      let keep = this.validator.keepFrom(tp)
      if (tp.topic === r.topics.input) keep = Math.min(keep, committed[tp.partition] ?? 0)
      if (tp.topic === r.topics.output) keep = Math.min(keep, this.visibility.positions[tp.partition] ?? 0)
      return keep
    })
  }

  private newBoard(): TransactionBoard {
    return new TransactionBoard((workerId) => this.runtime?.slots.some((s) => s.process.state === 'killed' && s.process.id === workerId) ?? false)
  }

  private sample(): void {
    this.addSample(this.runtime.committedTotal(), this.visibility.drain())
  }

  private async validate(): Promise<void> {
    if (this.validating) return
    this.validating = true
    try {
      const r = this.runtime
      const report = await this.validator.check()
      this.correctness = correctnessView(report, r.config['processing.guarantee'], this.time.now())
    } finally {
      this.validating = false
    }
  }

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
      latencyModel: this.runtime.options.latency,
      'default.deserialization.exception.handler': this.runtime.deserializationPolicy,
    }
  }

  protected build(): LabSnapshot {
    const r = this.runtime
    const now = this.time.now()
    const ends = r.inputEndOffsets()
    const committed = r.committedOffsets()
    const workers = r.slots.map((s) => ({
      id: s.worker?.id ?? s.slotId,
      memberId: s.worker?.memberId ?? null,
      state: s.process.state === 'killed' ? ('killed' as const) : s.process.state === 'paused' ? ('paused' as const) : s.worker?.state === 'stopped' || s.worker?.state === 'failed' ? ('stopped' as const) : ('running' as const),
      taskIds: s.process.alive && s.worker ? [...s.worker.tasks.values()].map((t) => t.id) : [],
      producers: s.process.alive && s.worker ? s.worker.producers() : [],
      startedAtMs: s.startedAtMs,
      error: s.worker?.error ?? null,
    }))
    const tasks = r.slots.flatMap((s) =>
      s.process.alive && s.worker
        ? [...s.worker.tasks.values()].map((t) => ({
            taskId: t.id,
            partition: t.partition,
            workerId: s.worker!.id,
            state: t.state === 'running' ? ('running' as const) : t.state === 'restoring' ? ('restoring' as const) : ('suspended' as const),
            steps: { ...t.steps },
            position: t.consumedOffset,
            committedOffset: committed[t.partition] ?? null,
            lag: (ends[t.partition] ?? 0) - (committed[t.partition] ?? 0),
          }))
        : [],
    ).sort((a, b) => a.partition - b.partition)
    this.ledger.windows = ledgerWindows(r.tracker.recoveries)
    return {
      seq: ++this.seq,
      atMs: now,
      startedAtMs: r.startedAtMs,
      backend: 'embedded',
      notes: [],
      config: this.config(),
      kafkaStreamsDefaults: { commitIntervalMs: { ...KAFKA_STREAMS_DEFAULTS.commitIntervalMs } },
      workers,
      tasks,
      series: this.series.slice(-120),
      markers: [...this.markers],
      transactions: this.board.transactions(),
      txnTotals: this.board.totals(),
      recoveries: recoveryViews(r.tracker.recoveries, this.ledger),
      correctness: this.correctness,
      scenario: this.scenario ? { ...this.scenario, narrative: [...this.scenario.narrative], expectations: [...this.scenario.expectations] } : null,
      scenarios: SCENARIOS.map((x) => ({ name: x.name, title: x.title, summary: x.summary })),
      traces: this.traces.list(),
      partitionLog: this.partitionLogView(),
      producers: this.producerViews(),
      duplicateLedger: this.ledger.entries(),
      totals: {
        inputRecords: ends.reduce((a, b) => a + b, 0),
        committedInput: committed.reduce<number>((a, b) => a + (b ?? 0), 0),
        outputRecords: this.visibility.total,
        kills: r.kills,
        droppedAcks: r.droppedAcks,
        fenced: r.fenced,
        deadLetters: r.deadLetters(),
      },
    }
  }

  private partitionLogView(): PartitionLogView | null {
    const r = this.runtime
    const topic = this.selected.topic === 'input' ? r.topics.input : this.selected.topic === 'output' ? r.topics.output : r.topics.changelog
    const partition = Math.min(this.selected.partition, r.options.partitions - 1)
    const log = r.cluster.partitionLog({ topic, partition })
    const o = log.offsets()
    // The newest 120 offsets, or the 120 ending a few records after the latest ABORT marker.
    const lastAbort = this.selected.window === 'last-abort' ? log.abortedTxns.at(-1)?.lastOffset : undefined
    const end = lastAbort === undefined ? o.highWatermark : Math.min(o.highWatermark, lastAbort + 10)
    const raw = log.readRaw(Math.max(o.logStartOffset, end - 120), end, 120)
    const cells = raw.map((x) => logCell(x, topic === r.topics.input, partition))
    const rc = topic === r.topics.output ? (this.visibility.positions[partition] ?? o.lastStableOffset) : o.lastStableOffset
    return { topic, partition, logStartOffset: o.logStartOffset, lastStableOffset: o.lastStableOffset, highWatermark: o.highWatermark, cells, readCommittedPosition: rc, readUncommittedPosition: o.highWatermark }
  }

  private producerViews(): ProducerTimeline[] {
    const r = this.runtime
    // Idempotent producers (at_least_once) have no transactional.id: shown by their worker.
    const idempotent: ProducerTimeline[] = []
    for (const s of r.slots) {
      if (!s.process.alive || !s.worker) continue
      for (const p of s.worker.producers()) {
        if (p.transactionalId === null) idempotent.push({ transactionalId: `idempotent producer of ${s.worker.id}`, producerId: p.producerId, epochs: [{ epoch: p.epoch, atMs: s.startedAtMs }], fencings: [], lastSequence: [] })
      }
    }
    return [...idempotent, ...this.board.producerTimelines()].map((tl) => {
      const lastSequence: { partition: string; sequence: number }[] = []
      for (const topic of [r.topics.output, r.topics.changelog]) {
        for (let p = 0; p < r.options.partitions; p++) {
          const seq = r.cluster.partitionLog({ topic, partition: p }).lastSequence(tl.producerId)
          if (seq !== undefined && seq >= 0) lastSequence.push({ partition: `${topic}-${p}`, sequence: seq })
        }
      }
      return { ...tl, epochs: [...tl.epochs], fencings: [...tl.fencings], lastSequence }
    })
  }

  protected async runCommand(name: CommandName, payload: unknown): Promise<CommandResult | void> {
    const r = this.runtime
    switch (name) {
      case 'setConfig': {
        const p = payload as CommandPayload<'setConfig'>
        const { inputRatePerSec, workers, 'default.deserialization.exception.handler': handler, ...streams } = p
        if (Object.keys(streams).length > 0 || (handler !== undefined && handler !== r.deserializationPolicy)) {
          const next = configAfter(r.config, streams) // throws ConfigException; nothing changed then
          await r.reconfigure(next, handler ?? r.deserializationPolicy)
          this.mark('config', Object.entries({ ...streams, ...(handler ? { 'default.deserialization.exception.handler': handler } : {}) }).map(([k, v]) => `${k}=${v}`).join(', '))
        }
        if (inputRatePerSec !== undefined) {
          this.rate = inputRatePerSec
          r.generator.setRate(inputRatePerSec)
          this.mark('config', `input rate ${inputRatePerSec}/s`)
        }
        if (workers !== undefined) {
          while (r.slots.length < workers) r.addWorker()
          while (r.slots.length > workers && (await r.removeWorker())) {
            // stopped cleanly, one at a time
          }
          this.mark('config', `workers=${workers}`)
        }
        break
      }
      case 'killWorker': {
        const { workerId, step } = payload as CommandPayload<'killWorker'>
        if (!r.kill(workerId, (step ?? null) as Step | null)) return { ok: false, error: `no live worker ${workerId}` }
        break
      }
      case 'pauseWorker': {
        const { workerId } = payload as CommandPayload<'pauseWorker'>
        if (!r.pause(workerId)) return { ok: false, error: `no running worker ${workerId} to pause` }
        this.mark('pause', `${workerId} paused (zombie to be)`)
        break
      }
      case 'resumeWorker': {
        const { workerId } = payload as CommandPayload<'resumeWorker'>
        if (!r.resume(workerId)) return { ok: false, error: `no paused worker ${workerId}` }
        this.mark('resume', `${workerId} woke up`)
        break
      }
      case 'addWorker': {
        if (r.slots.length >= 12) return { ok: false, error: 'at most 12 workers' }
        const s = r.addWorker()
        this.mark('worker-added', `${s.slotId} added`)
        break
      }
      case 'dropAcks': {
        const { count } = payload as CommandPayload<'dropAcks'>
        r.dropAcks(count)
        break
      }
      case 'reset': {
        await this.reset()
        break
      }
      case 'injectPoison': {
        const { count } = payload as CommandPayload<'injectPoison'>
        await r.injectPoison(count)
        this.mark('config', `${count} poison record(s) appended to the input`)
        break
      }
      case 'selectPartition': {
        const sel = payload as CommandPayload<'selectPartition'>
        if (sel.partition >= r.options.partitions) return { ok: false, error: `partition ${sel.partition} does not exist: the lab has ${r.options.partitions}` }
        this.selected = sel
        break
      }
      case 'runScenario': {
        const { name: scenario } = payload as CommandPayload<'runScenario'>
        const started = await this.runScenario(scenario)
        if (!started.ok) return started
        break
      }
    }
  }

  private async reset(): Promise<void> {
    const guarantee = this.runtime.config['processing.guarantee']
    await this.teardown()
    this.scenario = null
    this.options.guarantee = guarantee
    await this.start()
    this.mark('reset', 'lab reset')
  }

  async close(): Promise<void> {
    this.timers.stop = true
    await this.runtime.close()
  }
}

export async function createLab(options: LabOptions = {}): Promise<Lab> {
  const lab = new Lab(options)
  await lab.start()
  return lab
}
