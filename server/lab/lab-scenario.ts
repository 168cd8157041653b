// A guided scenario started from the dashboard: it runs on the lab on screen (each lab it starts
// replaces the current one) while its narrative and verdict fill the scenario view. When it ends
// (passed, failed or error) the lab returns to the settings from before it, and the run stays as an
// evidence card (its claims, figures and links into the lab's logs) until dismissed.

import type { LabIdentity } from '../../lib/evidence.ts'
import type { CommandResult, EvidenceCard, ScenarioView } from '../../lib/lab-protocol.ts'
import type { Time } from '../log/time.ts'
import { EVIDENCE_PINNED_MS, evidenceRecords, type RecordsView, sameRecords } from './evidence-records.ts'
import type { LabRuntime, WorkerThreads } from '../runtime/lab-runtime.ts'
import { describeSettings, restoreSettings, settingsBefore } from './scenario-restore.ts'
import { runScenario, scenarioByName, type ScenarioResult } from './scenarios/index.ts'
import type { ScenarioHost, ScenarioSetup } from '../runtime/scenario-setup.ts'
import type { WorkerBoard } from './worker-board.ts'

/** Cards kept; the oldest goes first. */
export const MAX_EVIDENCE_CARDS = 20
/** How long retention keeps the records a card links to, while its lab runs (evidence-records.ts). */
export { EVIDENCE_PINNED_MS }

/** Where a dashboard scenario runs: a ScenarioHost that also hands the lab back when the run ends. */
export interface DashboardScenarioHost extends ScenarioHost {
  /**
   * The run ended, however: the lab goes on with the settings from before it; answers
   * that lab (its logs hold the evidence), or null.
   */
  end(): Promise<LabRuntime | null>
  /** The last lab the run put on screen (its links point into it), whether or not it still runs. */
  shownLab?(): LabRuntime | null
  /** Journals a phase of the run. */
  mark(phase: ScenarioPhase, label: string, verdict?: EvidenceCard['status']): void
}

/** What a dashboard scenario needs of the lab it runs on. */
export interface ScenarioLabPort {
  readonly time: Time
  readonly seed: number
  readonly backend: 'embedded' | 'kafka'
  readonly workerThreads: WorkerThreads
  forScenario(setup: ScenarioSetup): LabRuntime
  /** Puts a runtime on screen in place of the current one; answers the new runtime's worker board. */
  replace(runtime: LabRuntime): Promise<WorkerBoard>
  /** The runtime on screen, or null once the lab is shutting down. */
  onScreen(): LabRuntime | null
  rate(): number
  /** The scenario's last lab runs again at this rate: the lab publishes it. */
  handBack(ratePerSec: number): void
  /** A scenario's start, step (a narrative line, a lab it starts) or end, into the lab's journal. */
  mark(phase: ScenarioPhase, label: string, verdict?: EvidenceCard['status']): void
}

export type ScenarioPhase = 'started' | 'step' | 'ended'

/**
 * The dashboard's scenario host: each lab the script starts replaces the one on screen (its worker
 * cards say "stopped by the scenario" for the workers the script stops); when the run ends, the last
 * lab (whose logs the evidence links point into) runs on with the settings from before the run.
 */
export function dashboardScenarioHost(name: string, lab: ScenarioLabPort): DashboardScenarioHost {
  const shown = lab.onScreen()
  const before = shown === null ? null : settingsBefore(shown, lab.rate())
  let last: { runtime: LabRuntime; workers: WorkerBoard } | null = null
  const offScreen: LabRuntime[] = []
  return {
    time: lab.time,
    seed: lab.seed,
    backend: lab.backend,
    workerThreads: lab.workerThreads,
    async start(setup) {
      const runtime = lab.forScenario(setup)
      if (setup.role === 'measure') {
        offScreen.push(runtime)
        lab.mark(
          'step',
          `scenario ${name}: a lab off screen measuring ${setup.guarantee} at ` +
            `commit.interval.ms=${runtime.config['commit.interval.ms']}`,
        )
        await runtime.start()
        return runtime
      }
      const workers = await lab.replace(runtime)
      workers.cleanStops = 'scenario'
      last = { runtime, workers }
      lab.mark(
        'step',
        `scenario ${name}: a lab with ${setup.guarantee}, commit.interval.ms=${runtime.config['commit.interval.ms']}`,
      )
      return runtime
    },
    async end() {
      for (const r of offScreen.splice(0))
        await r
          .close()
          .then(() => r.retire('ended'))
          .catch(() => {})
      // Nothing started, or a reset (or the lab's shutdown) replaced the scenario's lab: nothing to hand back.
      if (last === null || before === null || lab.onScreen() !== last.runtime) return null
      await restoreSettings(last.runtime, before)
      last.workers.cleanStops = null
      lab.mark('step', `scenario ${name}: the lab runs on, back to ${describeSettings(before)}`)
      lab.handBack(before.ratePerSec)
      return last.runtime
    },
    shownLab: () => last?.runtime ?? null,
    mark: (phase, label, verdict) => lab.mark(phase, label, verdict),
  }
}

/**
 * The evidence cards of a lab: one per finished run, kept until dismissed, at most MAX_EVIDENCE_CARDS.
 * `identify`: the identity of the lab a runtime ran as; each card and its links name it.
 */
export class EvidenceShelf {
  private cards: EvidenceCard[] = []
  private readonly runs = new Map<string, number>()
  /** The lab each card's links point into, while it runs on screen (retention keeps their records). */
  private readonly labs = new Map<string, LabRuntime>()
  private running = 0

  constructor(private readonly identify?: (runtime: LabRuntime | null) => LabIdentity | null) {}

  /** The next run's card id: the scenario's name and its run number in this lab. */
  nextId(name: string): string {
    const n = (this.runs.get(name) ?? 0) + 1
    this.runs.set(name, n)
    return `${name}-${n}`
  }

  /** A run started: until it ends, retention keeps every record (its script's labs are bounded). */
  begin(): void {
    this.running++
  }

  /**
   * A run ended with this card, its links into `lab`, the lab it runs on (null: its lab no longer runs);
   * `shown`: the lab the run last put on screen, which its links name either way.
   */
  add(card: EvidenceCard, lab: LabRuntime | null, shown: LabRuntime | null = lab): void {
    this.running = Math.max(0, this.running - 1)
    if (this.identify) {
      const named = this.identify(lab ?? shown)
      card.lab = named === null ? null : { ...named }
      if (named !== null) card.links = card.links.map((l) => ({ ...l, lab: named.id }))
    }
    this.cards = [...this.cards, card].slice(-MAX_EVIDENCE_CARDS)
    if (lab !== null) this.labs.set(card.id, lab)
    for (const id of this.labs.keys()) if (!this.cards.some((c) => c.id === id)) this.labs.delete(id)
  }

  /** The first offset of a partition that retention must keep: the first a recent card links to. */
  keepFrom(rt: LabRuntime, tp: { topic: string; partition: number }, nowMs: number): number {
    if (this.running > 0) return 0
    const role =
      tp.topic === rt.topics.input
        ? 'input'
        : tp.topic === rt.topics.output
          ? 'output'
          : tp.topic === rt.topics.changelog
            ? 'changelog'
            : null
    let keep = Number.POSITIVE_INFINITY
    for (const c of this.cards) {
      if (this.labs.get(c.id) !== rt || nowMs - c.endedAtMs > EVIDENCE_PINNED_MS) continue
      for (const l of c.links) if (l.topic === role && l.partition === tp.partition) keep = Math.min(keep, l.fromOffset)
    }
    return keep
  }

  /** Whether a card's links point into this lab (its logs must stay). */
  linksInto(lab: LabRuntime): boolean {
    return [...this.labs.values()].includes(lab)
  }

  dismiss(id: string): CommandResult | undefined {
    if (!this.cards.some((c) => c.id === id)) return { ok: false, error: `no evidence card ${JSON.stringify(id)}` }
    this.cards = this.cards.filter((c) => c.id !== id)
    this.labs.delete(id)
  }

  /**
   * The cards, each saying whether its records can still be read as `view` has it (without a view, as
   * last said). A card whose records changed state is a new object; the others stay as they were.
   */
  list(view?: RecordsView): EvidenceCard[] {
    if (view === undefined) return this.cards
    let changed = false
    const next = this.cards.map((c) => {
      const records = evidenceRecords(c, view, c.records)
      if (sameRecords(records, c.records)) return c
      changed = true
      const { records: _, ...rest } = c
      return records === undefined ? rest : { ...rest, records }
    })
    if (changed) this.cards = next
    return this.cards
  }
}

/** A finished run's card: from its result, or from the error that stopped it. */
export function evidenceCard(
  id: string,
  view: ScenarioView,
  endedAtMs: number,
  outcome: { result: ScenarioResult } | { error: string },
): EvidenceCard {
  const base = { id, name: view.name, title: view.title, startedAtMs: view.startedAtMs, endedAtMs }
  if ('error' in outcome)
    return {
      ...base,
      status: 'error',
      expectations: [],
      figures: {},
      conclusion: null,
      error: outcome.error,
      links: [],
    }
  const r = outcome.result
  return {
    ...base,
    status: r.passed ? 'passed' : 'failed',
    expectations: r.expectations.map((e) => ({ ...e })),
    figures: { ...r.figures },
    conclusion: r.conclusion,
    error: null,
    links: r.links.map((l) => ({ ...l })),
  }
}

/** Starts a scenario unless one is still running; its view is filled in as it goes, its card shelved when it ends. */
export function startScenario(
  name: string,
  current: ScenarioView | null,
  host: DashboardScenarioHost,
  shelf: EvidenceShelf,
): { result: CommandResult; view: ScenarioView | null } {
  const scenario = scenarioByName(name)
  if (!scenario) return { result: { ok: false, error: `unknown scenario ${JSON.stringify(name)}` }, view: null }
  if (current?.status === 'running')
    return { result: { ok: false, error: `scenario ${current.name} is still running` }, view: null }
  const view: ScenarioView = {
    name: scenario.name,
    title: scenario.title,
    summary: scenario.summary,
    status: 'running',
    narrative: [],
    expectations: [],
    conclusion: null,
    error: null,
    startedAtMs: host.time.now(),
  }
  const id = shelf.nextId(scenario.name)
  shelf.begin()
  const finish = async (outcome: { result: ScenarioResult } | { error: string }) => {
    const card = evidenceCard(id, view, host.time.now(), outcome)
    // The lab runs again before the verdict shows: a run that ended leaves a live lab.
    const lab = await host.end().catch((e: unknown) => {
      const why = e instanceof Error ? e.message : 'unknown error'
      card.error = `the lab could not return to its settings: ${why}; reset it`
      return null
    })
    if ('result' in outcome)
      Object.assign(view, {
        status: card.status,
        expectations: outcome.result.expectations,
        conclusion: outcome.result.conclusion,
      })
    else Object.assign(view, { status: 'error', error: outcome.error })
    shelf.add(card, lab, host.shownLab?.() ?? lab)
    host.mark('ended', `scenario ${scenario.name} ${card.status}${card.error ? `: ${card.error}` : ''}`, card.status)
  }
  host.mark('started', `scenario ${scenario.name} started`)
  const narrate = (line: { atMs: number; text: string }) => {
    view.narrative.push(line)
    host.mark('step', `${scenario.name}: ${line.text}`)
  }
  void runScenario(scenario, host, narrate).then(
    (result) => finish({ result }),
    (e: unknown) => finish({ error: e instanceof Error ? e.message : 'scenario failed' }),
  )
  return { result: { ok: true, message: `scenario ${scenario.name} started` }, view }
}
