// One repetition of a sweep cell (see sweep-runner.ts for the procedure): the throughput lab, then
// the latency lab with its kill, its recovery and the validation. Each lab is a runtime made by the
// sweep's backend (sweep-lab.ts) and driven here directly; its load begins with the lab or once
// every partition has a running task, as the backend says.

import type { PhaseDurations, RepetitionResult, SweepSettings } from '../../lib/experiment-protocol.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { SeededRandom, type Time } from '../log/time.ts'
import { phaseDurations, redone } from '../runtime/recovery-tracker.ts'
import { busyWorkers, groupSettled, validateRuntime } from '../runtime/driven-runtime.ts'
import { commitRate, type CommitSample } from './commit-rate.ts'
import { LatencyWindow } from './latency-window.ts'
import type { LabPurpose, LeasedLab, SweepBackend } from './sweep-lab.ts'
import { sweepConfig, windowMs } from './sweep-settings.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'

export class SweepCancelledError extends Error {
  readonly name = 'SweepCancelledError'
  constructor() {
    super('experiment cancelled')
  }
}

export type RepetitionStage = 'throughput' | 'latency' | 'recovery' | 'validation'

export interface RepetitionContext {
  guarantee: ProcessingGuarantee
  commitIntervalMs: number
  repetition: number
  seed: number
  settings: SweepSettings
  time: Time
  signal?: AbortSignal
  onStage?: (stage: RepetitionStage) => void
  /** Where the labs run. */
  backend: SweepBackend
}

function checkAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new SweepCancelledError()
}

/** Sleeps in small steps so a cancellation is noticed promptly. */
async function sleepFor(ctx: RepetitionContext, ms: number): Promise<void> {
  const end = ctx.time.now() + ms
  while (ctx.time.now() < end) {
    checkAborted(ctx.signal)
    await ctx.time.sleep(Math.min(50, end - ctx.time.now()))
  }
  checkAborted(ctx.signal)
}

/** Waits until predicate holds; false after maxMs. */
async function waitFor(ctx: RepetitionContext, predicate: () => boolean, maxMs: number, stepMs = 10): Promise<boolean> {
  const deadline = ctx.time.now() + maxMs
  while (!predicate()) {
    checkAborted(ctx.signal)
    if (ctx.time.now() >= deadline) return false
    await ctx.time.sleep(stepMs)
  }
  return true
}

/** A fresh lab for the cell; `ratePerSec`: its load once it begins. */
function newLab(ctx: RepetitionContext, purpose: LabPurpose, ratePerSec: number): Promise<LeasedLab> {
  const s = ctx.settings
  const config = sweepConfig(ctx.guarantee, ctx.commitIntervalMs, s)
  const initialRate = ctx.backend.loadStart === 'with-the-lab' ? ratePerSec : 0
  return ctx.backend.newLab(
    {
      time: ctx.time,
      config,
      workers: s.workers,
      partitions: s.partitions,
      ratePerSec: initialRate,
      keys: s.keys,
      seed: ctx.seed,
      latencyModel: s.latencyModel,
    },
    purpose,
    ctx.repetition,
  )
}

function runningTasks(lab: LabRuntime): number {
  let n = 0
  for (const s of lab.liveSlots()) for (const t of s.worker?.tasks.values() ?? []) if (t.state === 'running') n++
  return n
}

/**
 * Starts the load when the backend says (with the lab, or once the group has settled) and waits
 * until every partition has a running task and the group has committed something.
 */
async function settleWithLoad(ctx: RepetitionContext, lab: LabRuntime, startLoad: () => void): Promise<void> {
  // The group's first commit comes one commit interval after its tasks start.
  const maxMs = ctx.backend.settleTimeoutMs + ctx.commitIntervalMs
  const deadline = ctx.time.now() + maxMs
  const unsettled = () =>
    new Error(`the lab did not settle: not every partition got a running task within ${Math.round(maxMs / 1000)} s`)
  if (ctx.backend.loadStart === 'once-settled' && !(await waitFor(ctx, () => groupSettled(lab), maxMs)))
    throw unsettled()
  startLoad()
  const settled = () => runningTasks(lab) === lab.partitions && lab.committedTotal() > 0
  if (!(await waitFor(ctx, settled, Math.max(0, deadline - ctx.time.now())))) throw unsettled()
}

/** Per live worker: records appended to its partitions (as of `ends`) but not yet consumed by its tasks. */
export function unconsumedByWorker(lab: LabRuntime, ends: readonly number[]): number[] {
  return lab.liveSlots().map((s) => {
    let n = 0
    for (const t of s.worker?.tasks.values() ?? [])
      if (t.state === 'running') n += Math.max(0, (ends[t.partition] ?? 0) - t.consumedOffset)
    return n
  })
}

export async function runRepetition(ctx: RepetitionContext): Promise<RepetitionResult> {
  const thr = await measureThroughput(ctx)
  const rest = await measureLatencyAndRecovery(ctx)
  return { repetition: ctx.repetition, seed: ctx.seed, ...thr, ...rest }
}

/**
 * The input end offsets as last read: at every look where reading takes no time (endsPollMs 0),
 * else by a poller of their own every endsPollMs, so that a slow answer never holds up the keeper.
 */
class InputEnds {
  latest: number[] = []
  private polling = false
  private poller: Promise<void> = Promise.resolve()

  constructor(
    private readonly ctx: RepetitionContext,
    private readonly lab: LeasedLab,
  ) {}

  async refresh(): Promise<void> {
    // A just-created topic may answer "not the leader" for a moment; the next read asks again.
    const fresh = await this.lab.inputEnds().catch(() => this.latest)
    this.latest = fresh.map((e, p) => Math.max(e, this.latest[p] ?? 0))
  }

  /** Before each look: reads them now, or keeps the poller going. */
  async beforeLook(): Promise<void> {
    if (this.ctx.backend.endsPollMs === 0) return this.refresh()
    if (!this.polling) {
      this.polling = true
      this.poller = this.poll()
    }
  }

  private async poll(): Promise<void> {
    while (this.polling) {
      await this.refresh()
      await this.ctx.time.sleep(this.ctx.backend.endsPollMs)
    }
  }

  async stop(): Promise<void> {
    this.polling = false
    await this.poller
  }
}

/**
 * Keeps every worker busy: full speed while some worker has fewer than its share of backlogRecords
 * waiting (keys do not spread evenly over partitions), never more than 4 × backlogRecords in all.
 * Counts the looks at which some worker had nothing waiting while `sampling()` holds.
 */
class SaturatedLoad {
  samples = 0
  drySamples = 0
  private stopped = false
  private done: Promise<void> = Promise.resolve()
  private readonly ends: InputEnds

  constructor(
    private readonly ctx: RepetitionContext,
    private readonly lab: LeasedLab,
    private readonly sampling: () => boolean,
  ) {
    this.ends = new InputEnds(ctx, lab)
  }

  start(): void {
    this.done = this.keep()
  }

  private async keep(): Promise<void> {
    const { time, settings: s } = this.ctx
    const share = s.backlogRecords / s.workers
    while (!this.stopped) {
      await this.ends.beforeLook()
      const waiting = unconsumedByWorker(this.lab.runtime, this.ends.latest)
      if (this.sampling()) {
        this.samples++
        if (waiting.some((n) => n === 0)) this.drySamples++
      }
      const total = waiting.reduce((a, b) => a + b, 0)
      this.lab.runtime.generator.setRate(
        waiting.some((n) => n < share) && total < 4 * s.backlogRecords ? Number.POSITIVE_INFINITY : 0,
      )
      await time.sleep(s.loadLookMs ?? 5)
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.done
    await this.ends.stop()
    this.lab.runtime.generator.setRate(0)
  }
}

async function measureThroughput(
  ctx: RepetitionContext,
): Promise<Pick<RepetitionResult, 'throughputPerSec' | 'throughputWindowMs' | 'saturated'>> {
  ctx.onStage?.('throughput')
  const s = ctx.settings
  const lab = await newLab(ctx, 'thr', 0)
  const rt = lab.runtime
  const commits: CommitSample[] = []
  rt.onEvent((e) => {
    if (!('source' in e) && e.type === 'offsets-committed')
      for (const o of e.offsets) commits.push({ partition: o.partition, offset: o.offset, atMs: e.atMs })
  })
  let sampling = false
  const load = new SaturatedLoad(ctx, lab, () => sampling)
  try {
    await rt.start()
    await settleWithLoad(ctx, rt, () => load.start())
    await sleepFor(ctx, s.warmupMs + ctx.commitIntervalMs)
    const window = windowMs(s, ctx.commitIntervalMs)
    const from = ctx.time.now()
    sampling = true
    await sleepFor(ctx, window)
    sampling = false
    const to = ctx.time.now()
    // The window's last commits may still be on their way (on Kafka, on the telemetry topic).
    if (ctx.backend.eventLagMs > 0) await sleepFor(ctx, ctx.backend.eventLagMs)
    const rate = commitRate(commits, s.partitions, from, to)
    return {
      throughputPerSec: rate === null ? null : Math.round(rate),
      throughputWindowMs: window,
      saturated: load.samples > 0 && load.drySamples / load.samples < 0.05,
    }
  } finally {
    await load.stop()
    await lab.discard()
  }
}

type LatencyFigures = Pick<
  RepetitionResult,
  'latencyP50Ms' | 'latencyP99Ms' | 'latencyMaxMs' | 'latencyRecords' | 'latencyWindowMs'
>
type RecoveryFigures = Pick<RepetitionResult, 'killedWorker' | 'killDelayMs' | 'recoveryMs' | 'phases' | 'redone'>

/** End-to-end latency over one window after the warm-up, read_committed, as often as visibilityPollMs. */
async function measureLatency(ctx: RepetitionContext, lab: LeasedLab): Promise<LatencyFigures> {
  const s = ctx.settings
  const rt = lab.runtime
  const latency = new LatencyWindow(rt.connection.reader(), rt.topics.output, s.partitions)
  let polling = true
  const pollDone = (async () => {
    while (polling) {
      // On the embedded log a poll takes no time; on a remote log each partition is timed when its read returns.
      if (ctx.backend.outputReads === 'round-trip') await latency.pollRemote(() => ctx.time.now())
      else await latency.poll(ctx.time.now())
      await ctx.time.sleep(s.visibilityPollMs)
    }
  })()
  try {
    await sleepFor(ctx, s.warmupMs + ctx.commitIntervalMs)
    latency.drain()
    const window = windowMs(s, ctx.commitIntervalMs)
    await sleepFor(ctx, window)
    const lat = latency.drain()
    return {
      latencyP50Ms: lat.p50,
      latencyP99Ms: lat.p99,
      latencyMaxMs: lat.max,
      latencyRecords: lat.records,
      latencyWindowMs: window,
    }
  } finally {
    polling = false
    await pollDone
  }
}

const NO_PHASES: PhaseDurations = { detection: null, rebalance: null, fence: null, restore: null, catchUp: null }

/**
 * The kill: a seeded worker among those with tasks, at a seeded uniformly random moment inside one
 * of its commit intervals (u × commit.interval.ms after its next commit; at once if none comes). The
 * draw u depends on the repetition's seed only, not on the interval (common random numbers): every
 * interval of a repetition is killed at the same fraction of its commit cycle, so the curve compares
 * intervals, not draws. Then its recovery.
 */
async function killAndRecover(ctx: RepetitionContext, rt: LabRuntime): Promise<RecoveryFigures> {
  const rng = new SeededRandom((ctx.seed * 0x9e37) >>> 0)
  const u = rng.next()
  const candidates = busyWorkers(rt)
  if (candidates.length === 0)
    return { killedWorker: null, killDelayMs: null, recoveryMs: null, phases: NO_PHASES, redone: null }
  const killedWorker = rng.pick(candidates).worker!.id
  let killWindowStart: number | null = null
  let killedAt: number | null = null
  const kill = () => {
    killedAt = ctx.time.now()
    rt.kill(killedWorker, null)
  }
  const off = rt.onEvent((e) => {
    if (killWindowStart !== null || 'source' in e || e.type !== 'offsets-committed' || e.workerId !== killedWorker)
      return
    killWindowStart = e.atMs
    void ctx.time.sleep(Math.max(0, e.atMs + Math.floor(u * ctx.commitIntervalMs) - ctx.time.now())).then(kill)
  })
  try {
    if (!(await waitFor(ctx, () => killedAt !== null, 3 * ctx.commitIntervalMs + ctx.backend.eventLagMs + 5_000, 1))) {
      killWindowStart = ctx.time.now()
      kill()
    }
  } finally {
    off()
  }
  const killDelayMs = killedAt! - killWindowStart!
  const r = rt.tracker.recoveries[rt.tracker.recoveries.length - 1]
  if (!r) return { killedWorker, killDelayMs, recoveryMs: null, phases: NO_PHASES, redone: null }
  await waitFor(ctx, () => r.t1 !== null, ctx.settings.recoveryTimeoutMs)
  const recovered = r.t1 !== null
  return {
    killedWorker,
    killDelayMs,
    recoveryMs: recovered ? r.t1! - r.t0 : null,
    phases: recovered ? phaseDurations(r) : NO_PHASES,
    redone: redone(r),
  }
}

async function measureLatencyAndRecovery(
  ctx: RepetitionContext,
): Promise<Omit<RepetitionResult, 'repetition' | 'seed' | 'throughputPerSec' | 'throughputWindowMs' | 'saturated'>> {
  ctx.onStage?.('latency')
  const rate = ctx.settings.steadyRatePerSec
  const lab = await newLab(ctx, 'rec', rate)
  const rt = lab.runtime
  let cleanlyStopped = false
  try {
    await rt.start()
    await settleWithLoad(ctx, rt, () => rt.generator.setRate(rate))
    const latency = await measureLatency(ctx, lab)
    ctx.onStage?.('recovery')
    const recovery = await killAndRecover(ctx, rt)
    ctx.onStage?.('validation')
    await rt.stop()
    cleanlyStopped = true
    const report = await validateRuntime(rt)
    const wrong = [
      // at_most_once (eoscope's teaching mode) loses what a kill cuts between its commit and its ack.
      report.lost && ctx.guarantee !== 'at_most_once' ? `${report.lost} lost` : '',
      ctx.guarantee !== 'at_least_once' && report.duplicates
        ? `${report.duplicates} duplicates under ${ctx.guarantee}`
        : '',
      report.abortedReads ? `${report.abortedReads} aborted reads` : '',
    ].filter((x) => x !== '')
    await lab.release(wrong.length > 0 ? wrong.join(', ') : undefined)
    return {
      ...latency,
      ...recovery,
      duplicates: recovery.killedWorker === null ? null : report.duplicates,
      lost: report.lost,
    }
  } finally {
    if (!cleanlyStopped) await lab.discard()
    else await lab.release()
  }
}
