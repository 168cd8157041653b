// The chaos soak, on either backend: steady load and a seeded random mix of faults (kills, kills
// at a step, pauses that turn workers into zombies, dropped acks, processing.guarantee and
// commit.interval.ms changes, and whatever planned faults the backend adds, such as broker
// restarts). The validator runs periodically and at the end. Exactly-once must show 0 in every
// correctness row whatever the mix; at_least_once must show 0 lost.
//
// The backend (embedded.ts, kafka.ts) only makes the runtime and says what it does differently;
// which faults it offers comes from its connection's capabilities (faults.ts).

import type { ProcessingGuarantee, StreamsConfig } from '../../../lib/streams-config.ts'
import { guaranteeRefusal, refusal, type Capability, type LogCapabilities } from '../../log/capabilities.ts'
import type { Time } from '../../log/time.ts'
import { committedUpTo, groupSettled, untilAnswered, validateRuntime, waitUntil } from '../../runtime/driven-runtime.ts'
import { applyNextFault, FAULT_KINDS, offeredFaults, type Fault, type FaultContext, type FaultKind } from './faults.ts'
import {
  correctnessRow,
  finalRow,
  soakViolations,
  type CorrectnessRow,
  type SoakMode,
  type SoakResult,
} from './report.ts'
import type { LabRuntime } from '../../runtime/lab-runtime.ts'

export interface SoakOptions {
  mode: SoakMode
  faults: number
  /** Keep going at least this long, even after the faults are done. */
  minMs?: number
  seed: number
  ratePerSec: number
  /** Validate the logs this often while running (default: the backend's). */
  validateEveryMs?: number
  onProgress?: (p: SoakProgress) => void
  /** Called after each fault is applied (for tracing a failing seed). */
  onFault?: (kind: FaultKind, detail: string, elapsedMs: number) => void
}

export interface SoakProgress {
  elapsedMs: number
  faults: Record<FaultKind, number>
  lastCheck: CorrectnessRow | null
}

/** What a backend is asked to make for one soak run. */
export interface SoakSpec {
  mode: SoakMode
  guarantee: ProcessingGuarantee
  seed: number
  ratePerSec: number
  faults: number
}

export type SoakOutcome = 'passed' | 'failed'

/** One run's runtime on a backend, and what only that backend does. */
export interface SoakSession<X extends object> {
  readonly runtime: LabRuntime
  /** Faults of this backend's own, added to the drawn ones (planned broker restarts on Kafka). */
  readonly faults: readonly Fault[]
  /** Restarts every worker with the config changed. */
  reconfigure(changes: Partial<StreamsConfig>): Promise<void>
  /** The input topic's end offsets (throws while the log is unreachable). */
  inputEnds(): Promise<number[]>
  /** What only this backend can see wrong (input sends that failed for good). */
  violations(): string[]
  /** This backend's own figures, added to the result. */
  figures(): X
  /** Notes found while running (background client errors). */
  notes(): string[]
  /** Releases the runtime; a passed run's topics may go. */
  close(outcome: SoakOutcome): Promise<void>
}

/** How fast a backend's soak goes. */
export interface SoakPace {
  /** The pause between two faults: a seeded draw in [min, max) ms. */
  readonly faultGapMs: readonly [number, number]
  /** How often the logs are validated while running (unless the soak's options say). */
  readonly validateEveryMs: number
  /** How long the group may take to commit all input after the faults stop. */
  readonly drainTimeoutMs: number
}

export interface SoakBackend<X extends object> {
  readonly time: Time
  readonly pace: SoakPace
  /** The runtime can freeze a worker at one of the five steps (else only as a whole). */
  readonly pausesAtStep: boolean
  /**
   * Where periodic checks are taken. 'under-load': at any moment (the validator reads the log in
   * one instant). 'quiet': the load pauses until the group has committed all of it, because the
   * validator reads offsets and changelog at different instants and a commit in between would show
   * as state ahead of its offsets.
   */
  readonly periodicChecks: 'under-load' | 'quiet'
  /** What this backend does differently, beyond the faults its capabilities rule out. */
  readonly notes: readonly string[]
  open(spec: SoakSpec): SoakSession<X>
}

const FAULT_OF_CAPABILITY: Partial<Record<Capability, FaultKind>> = {
  'drop-acks': 'droppedAck',
  exactly_once_v2: 'guaranteeChange',
  pause: 'pause',
  'kill-at-step': 'killAtStep',
}

/** The soak's notes for a backend: every fault its capabilities rule out, with the reason, then its own notes. */
export function soakNotes(caps: LogCapabilities, own: readonly string[]): string[] {
  const out: string[] = []
  for (const [capability, kind] of Object.entries(FAULT_OF_CAPABILITY) as [Capability, FaultKind][]) {
    const reason = refusal(caps, capability)
    if (reason !== null) out.push(`${kind} is always 0 on the ${caps.backend} backend: ${reason}`)
  }
  return [...out, ...own]
}

export async function runSoak<X extends object>(backend: SoakBackend<X>, o: SoakOptions): Promise<SoakResult & X> {
  const guarantee: ProcessingGuarantee = o.mode === 'exactly-once' ? 'exactly_once' : 'at_least_once'
  const session = backend.open({ mode: o.mode, guarantee, seed: o.seed, ratePerSec: o.ratePerSec, faults: o.faults })
  let outcome: SoakOutcome = 'failed'
  try {
    const result = await new SoakRun(backend, session, o).run()
    outcome = result.passed ? 'passed' : 'failed'
    return result
  } finally {
    await session.close(outcome).catch(() => {})
  }
}

class SoakRun<X extends object> {
  private readonly lab: LabRuntime
  private readonly time: Time
  private readonly counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>
  private readonly guarantees: ProcessingGuarantee[]
  private readonly visitedG: Set<ProcessingGuarantee>
  private readonly visitedI: Set<number>
  private readonly checks: CorrectnessRow[] = []
  private readonly violations: string[] = []
  private readonly start: number
  private generatorError: Error | null = null

  constructor(
    private readonly backend: SoakBackend<X>,
    private readonly session: SoakSession<X>,
    private readonly o: SoakOptions,
  ) {
    this.lab = session.runtime
    this.time = backend.time
    const first = this.lab.config['processing.guarantee']
    const candidates: ProcessingGuarantee[] =
      o.mode === 'exactly-once' ? ['exactly_once', 'exactly_once_v2'] : ['at_least_once']
    this.guarantees = candidates.filter((g) => guaranteeRefusal(this.lab.connection.capabilities, g) === null)
    this.visitedG = new Set([first])
    this.visitedI = new Set([this.lab.config['commit.interval.ms']])
    this.start = this.time.now()
  }

  private total(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0)
  }
  private elapsed(): number {
    return this.time.now() - this.start
  }

  async run(): Promise<SoakResult & X> {
    await this.lab.start()
    this.lab.generator.done.catch((e: Error) => {
      this.generatorError = e
    })
    await waitUntil(this.time, () => groupSettled(this.lab), 60_000)
    await this.faultLoop()
    await this.drain()
    return this.result()
  }

  private faultContext(paused: Set<string>): FaultContext {
    return {
      lab: this.lab,
      time: this.time,
      rng: this.lab.random,
      guarantees: this.guarantees,
      paused,
      pausesAtStep: this.backend.pausesAtStep,
      reconfigure: async (changes) => {
        await this.session.reconfigure(changes)
        const g = changes['processing.guarantee']
        if (g !== undefined) this.visitedG.add(g)
        const i = changes['commit.interval.ms']
        if (i !== undefined) this.visitedI.add(i)
      },
      elapsedMs: () => this.elapsed(),
      record: (kind, detail) => {
        this.counts[kind]++
        this.o.onFault?.(kind, detail, this.elapsed())
      },
    }
  }

  private async faultLoop(): Promise<void> {
    const rng = this.lab.random
    const faults = [...offeredFaults(this.lab.connection.capabilities, this.guarantees), ...this.session.faults]
    const ctx = this.faultContext(new Set())
    const [gapMin, gapMax] = this.backend.pace.faultGapMs
    let lastCheck = this.time.now()
    while ((this.total() < this.o.faults || this.elapsed() < (this.o.minMs ?? 0)) && this.generatorError === null) {
      await this.time.sleep(rng.int(gapMin, gapMax))
      await applyNextFault(ctx, faults, this.total(), rng.next())
      if (this.time.now() - lastCheck >= (this.o.validateEveryMs ?? this.backend.pace.validateEveryMs)) {
        await this.periodicCheck()
        lastCheck = this.time.now()
      }
    }
  }

  private async periodicCheck(): Promise<void> {
    const quiet = this.backend.periodicChecks === 'quiet'
    const rate = this.lab.generator.rate
    if (quiet) this.lab.generator.setRate(0)
    const caughtUp = quiet ? await this.caughtUp(60_000) : true
    const r = correctnessRow(
      await untilAnswered(this.time, () => validateRuntime(this.lab), 60_000),
      this.elapsed(),
      this.lab.config['processing.guarantee'],
    )
    if (quiet) this.lab.generator.setRate(rate)
    if (!caughtUp)
      this.violations.push(`at ${r.atMs} ms: the group did not commit its input within 60 s of the load pausing`)
    this.checks.push(r)
    for (const v of soakViolations(this.o.mode, r, 'periodic')) this.violations.push(`at ${r.atMs} ms: ${v}`)
    this.o.onProgress?.({ elapsedMs: this.elapsed(), faults: { ...this.counts }, lastCheck: r })
  }

  /** Waits until the group's committed offsets reach the input's end offsets (read once, at the call). */
  private async caughtUp(maxMs: number): Promise<boolean> {
    await this.time.sleep(200) // the generator's last batch lands
    // Right after a broker restart the partitions answer "not hosted here" for a while.
    const ends = await untilAnswered(this.time, () => this.session.inputEnds(), 60_000)
    return waitUntil(this.time, () => committedUpTo(this.lab, ends), maxMs)
  }

  /** No more input, every paused worker awake, everything processed and committed, the workers stopped. */
  private async drain(): Promise<void> {
    this.lab.generator.stop()
    await this.lab.generator.done.catch(() => {})
    if (this.generatorError) this.violations.push(`the load generator stopped: ${this.generatorError.message}`)
    for (const s of this.lab.liveSlots()) if (s.process.state === 'paused' && s.worker) this.lab.resume(s.worker.id)
    const ms = this.backend.pace.drainTimeoutMs
    if (!(await this.caughtUp(ms))) {
      this.violations.push(
        `the group did not commit all input within ${Math.round(ms / 1000)} s after the faults stopped ` +
          `(committed ${JSON.stringify(this.lab.committedOffsets())})`,
      )
    }
    await this.lab.stop()
  }

  private async result(): Promise<SoakResult & X> {
    const report = await untilAnswered(this.time, () => validateRuntime(this.lab), 60_000)
    const final = finalRow(report, this.elapsed(), this.lab.config['processing.guarantee'])
    for (const v of soakViolations(this.o.mode, final, 'final')) this.violations.push(`final: ${v}`)
    this.violations.push(...this.session.violations())
    return {
      backend: this.lab.connection.capabilities.backend,
      mode: this.o.mode,
      seed: this.o.seed,
      ratePerSec: this.o.ratePerSec,
      durationMs: Math.round(this.elapsed()),
      faults: { ...this.counts, total: this.total() },
      guaranteesVisited: [...this.visitedG],
      commitIntervalsVisited: [...this.visitedI].sort((a, b) => a - b),
      periodicChecks: this.checks,
      final,
      passed: this.violations.length === 0,
      violations: this.violations,
      notes: [...soakNotes(this.lab.connection.capabilities, this.backend.notes), ...this.session.notes()],
      ...this.session.figures(),
    }
  }
}
