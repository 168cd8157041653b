// Guided fault scenarios: a seeded script sets a lab up, injects its fault at the right moment,
// and ends by stating what the evidence shows. The same script runs headless (eoscope scenario)
// and on the dashboard's live lab; its expectations are asserted in tests.

import type { EvidenceLink, Step } from '../../../lib/lab-protocol.ts'
import { MockTime, type Time } from '../../log/time.ts'
import { validateRun } from '../../validator/validator.ts'
import type { ValidationReport } from '../../validator/report.ts'
import type { LabEvent, LabRuntime } from '../../runtime/lab-runtime.ts'
import { validationTarget } from '../../runtime/runtime-common.ts'
import type { ScenarioHost } from '../../runtime/scenario-setup.ts'

export interface Expectation {
  claim: string
  holds: boolean
  /**
   * Why the claim could not be decided on this machine (a measured difference inside its spread): then
   * it neither holds nor fails, and does not fail the scenario. Absent for a decided claim.
   */
  undecided?: string
}

/**
 * What a scenario's figures come from: the model on a virtual clock (eoscope scenario's default: the
 * model's costs, exact for a seed) or a live lab on the system clock (the dashboard, --clock system,
 * Kafka: measured, varying with the machine's load). The two read differently (issue 34: lost-ack's
 * 2 duplicates on the dashboard, 3 from the CLI), so every output says which.
 */
export type ScenarioClock = 'virtual' | 'system'
export const CLOCK_LABEL: Record<ScenarioClock, string> = {
  virtual: 'model (virtual time)',
  system: 'live, system clock',
}
const CLOCK_LINE: Record<ScenarioClock, string> = {
  virtual:
    "model (virtual time): a simulated clock and the model's costs; the figures are exact for the seed, and a " +
    'live lab on the system clock (the dashboard) measures others',
  system:
    'live, system clock: the figures are measured on this machine and vary with its load; the model ' +
    '(eoscope scenario in virtual time, its default) gives others',
}

export function scenarioClock(time: Time): ScenarioClock {
  return time instanceof MockTime ? 'virtual' : 'system'
}

export interface ScenarioResult {
  name: string
  title: string
  backend: 'embedded' | 'kafka'
  seed: number
  /** The clock its figures come from: the model's (virtual) or the system's (live). */
  clock: ScenarioClock
  narrative: { atMs: number; text: string }[]
  evidence: Record<string, unknown>
  expectations: Expectation[]
  passed: boolean
  conclusion: string
  /** The figures the narrative quotes, by name: the very numbers its text was written with. */
  figures: Record<string, number>
  /** Where the records its claims are about lie in the last lab it ran (partition, offsets, moment). */
  links: EvidenceLink[]
}

export interface ScenarioContext {
  host: ScenarioHost
  time: Time
  say(text: string): void
  expect(claim: string, holds: boolean): void
  /** A claim the figures cannot decide on this machine, with why (e.g. overlapping intervals). */
  undecided(claim: string, why: string): void
  evidence: Record<string, unknown>
  /** Records a figure the narrative quotes and returns it, so the text and the figure are one number. */
  figure(name: string, value: number | null): number
  /** Points at records a claim is about, in the lab the scenario ends on. */
  link(link: EvidenceLink): void
}

export interface Scenario {
  name: string
  title: string
  /** One or two sentences in the vocabulary of the five steps and the three writes. */
  summary: string
  run(ctx: ScenarioContext): Promise<string>
}

export async function waitUntil(time: Time, predicate: () => boolean, maxMs: number, what: string): Promise<void> {
  const deadline = time.now() + maxMs
  while (!predicate()) {
    if (time.now() > deadline) throw new Error(`scenario gave up waiting for ${what} after ${maxMs} ms`)
    await time.sleep(10)
  }
}

/**
 * Waits until `predicate` holds while `progress` keeps moving: fails when it has not changed for
 * `stallMs` (stuck), or past `maxMs` (a bound far beyond a slow machine's pace).
 */
export async function waitWhileProgressing(
  time: Time,
  predicate: () => boolean,
  progress: () => number,
  o: { stallMs: number; maxMs: number; what: string },
): Promise<void> {
  const start = time.now()
  let last = progress()
  let movedAt = start
  while (!predicate()) {
    const now = time.now()
    const seen = progress()
    if (seen !== last) [last, movedAt] = [seen, now]
    if (now - movedAt > o.stallMs)
      throw new Error(`scenario gave up waiting for ${o.what}: no progress for ${o.stallMs} ms`)
    if (now - start > o.maxMs) throw new Error(`scenario gave up waiting for ${o.what} after ${o.maxMs} ms`)
    await time.sleep(10)
  }
}

/**
 * Reads the log every `everyMs` until what it read satisfies `done`, and answers that reading. A
 * read that fails counts as not yet (a cluster may not answer for a moment); past `boundMs` it fails.
 */
export async function pollUntil<T>(
  time: Time,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  o: { everyMs: number; boundMs: number; what: string },
): Promise<T> {
  const start = time.now()
  for (;;) {
    const v = await read().then(
      (x) => ({ x }),
      () => null,
    )
    if (v !== null && done(v.x)) return v.x
    if (time.now() - start > o.boundMs)
      throw new Error(`scenario gave up waiting for ${o.what} after ${Math.round(time.now() - start)} ms`)
    await time.sleep(o.everyMs)
  }
}

/**
 * Waits until every input record is committed, then stops the lab cleanly and validates its logs.
 * The wait lasts while the group's committed offsets move (a recovery on Kafka waits a session
 * timeout); it fails once they stood still for `stallMs`, or past `maxMs`.
 */
export async function finishAndValidate(
  runtime: LabRuntime,
  o: { stallMs?: number; maxMs?: number } = {},
): Promise<ValidationReport> {
  await waitWhileProgressing(
    runtime.time,
    () => runtime.caughtUp(),
    () => runtime.committedTotal(),
    { stallMs: o.stallMs ?? 60_000, maxMs: o.maxMs ?? 600_000, what: 'all input to be processed and committed' },
  )
  await runtime.stop()
  await runtime.settle()
  return validateRun(runtime.connection.inspector(), validationTarget(runtime))
}

/**
 * How long a scenario's wait may see the group's committed offsets stand still before it fails:
 * three session timeouts (a kill is detected after one, on Kafka 10 s), at least 30 s.
 */
export function stallBoundMs(lab: LabRuntime): number {
  return Math.max(30_000, 3 * lab.config['session.timeout.ms'])
}

/** A live worker that owns at least one task, chosen by the seeded random. */
export function pickWorkerWithTasks(runtime: LabRuntime): string {
  const live = runtime.liveSlots().filter((s) => s.process.state === 'running' && (s.worker?.tasks.size ?? 0) > 0)
  if (live.length === 0) throw new Error('no live worker owns a task yet')
  return runtime.random.pick(live).worker!.id
}

/**
 * Whether the group has formed: every partition has its task, no partition is claimed by two
 * workers, and every running worker owns one (as many workers as there are partitions). Until then
 * a rebalance is still to come or under way, and under at_least_once the records a worker processed
 * before it lost a partition are redone elsewhere: duplicates no kill caused.
 *
 * Two claims of one partition are a rebalance the workers' reports have not all caught up with
 * (on Kafka each worker process reports its own tasks): the first worker to join held every
 * partition and has not yet said it gave some up. A worker picked then would be named the owner of
 * tasks another already runs.
 */
export function groupFormed(runtime: LabRuntime): boolean {
  const running = runtime.liveSlots().filter((s) => s.process.state === 'running')
  const owned = new Set<number>()
  let claims = 0
  for (const s of running) {
    for (const p of s.worker?.tasks.keys() ?? []) {
      owned.add(p)
      claims++
    }
  }
  const owning = running.filter((s) => (s.worker?.tasks.size ?? 0) > 0).length
  return (
    owned.size === runtime.partitions &&
    claims === owned.size &&
    owning === Math.min(running.length, runtime.partitions)
  )
}

/** Waits until some running worker owns a task, whether or not the group has formed. */
export async function aWorkerProcessing(runtime: LabRuntime, boundMs = 180_000): Promise<void> {
  const owning = () => runtime.liveSlots().some((s) => s.process.state === 'running' && (s.worker?.tasks.size ?? 0) > 0)
  await waitUntil(runtime.time, owning, boundMs, 'a worker to own a task')
}

/**
 * Waits until the group has formed (on Kafka in seconds, on a busy machine in more), then picks a
 * worker that owns a task: a fault placed before would land in the group's first rebalances.
 */
export async function aWorkerWithTasks(runtime: LabRuntime, boundMs = 180_000): Promise<string> {
  await waitUntil(
    runtime.time,
    () => groupFormed(runtime),
    boundMs,
    'the group to form (every partition owned, every worker owning one)',
  )
  return pickWorkerWithTasks(runtime)
}

export function collect(runtime: LabRuntime): LabEvent[] {
  const events: LabEvent[] = []
  runtime.onEvent((e) => events.push(e))
  return events
}

/** One input record's committed outputs: its key, where it came from, and each copy's output partition and offset. */
export interface Provenance {
  key: string
  copies: number
  partition: number
  offset: number
  outputs: { partition: number; offset: number }[]
}

/**
 * Committed output records per provenance (input partition and offset), as a read_committed
 * consumer of the output topic would count them.
 */
export async function outputProvenance(runtime: LabRuntime): Promise<Map<string, Provenance>> {
  const inspector = runtime.connection.inspector()
  const out = new Map<string, Provenance>()
  for (let p = 0; p < runtime.partitions; p++) {
    const tp = { topic: runtime.topics.output, partition: p }
    const { highWatermark } = await inspector.offsets(tp)
    for (const r of await inspector.readRaw(tp, 0, highWatermark, Number.MAX_SAFE_INTEGER)) {
      if (r.control !== null || r.txnOutcome === 'aborted' || r.txnOutcome === 'pending' || r.value === null) continue
      const v = JSON.parse(r.value) as { key: string; source: { partition: number; offset: number } }
      const k = `${v.source.partition}@${v.source.offset}`
      const e = out.get(k)
      if (e) {
        e.copies++
        e.outputs.push({ partition: p, offset: r.offset })
      } else
        out.set(k, {
          key: v.key,
          copies: 1,
          partition: v.source.partition,
          offset: v.source.offset,
          outputs: [{ partition: p, offset: r.offset }],
        })
    }
  }
  return out
}

export async function runScenario(
  scenario: Scenario,
  host: ScenarioHost,
  onSay?: (line: { atMs: number; text: string }) => void,
): Promise<ScenarioResult> {
  const narrative: { atMs: number; text: string }[] = []
  const expectations: Expectation[] = []
  const figures: Record<string, number> = {}
  const links: EvidenceLink[] = []
  const t0 = host.time.now()
  const ctx: ScenarioContext = {
    host,
    time: host.time,
    say: (text) => {
      const line = { atMs: Math.round(host.time.now() - t0), text }
      narrative.push(line)
      onSay?.(line)
    },
    expect: (claim, holds) => expectations.push({ claim, holds }),
    undecided: (claim, why) => expectations.push({ claim, holds: false, undecided: why }),
    evidence: {},
    figure: (name, value) => (figures[name] = value ?? 0),
    link: (l) => links.push({ ...l, atMs: Math.round(l.atMs) }),
  }
  const clock = scenarioClock(host.time)
  ctx.say(CLOCK_LINE[clock])
  const conclusion = await scenario.run(ctx)
  return {
    name: scenario.name,
    title: scenario.title,
    backend: host.backend,
    seed: host.seed,
    clock,
    narrative,
    evidence: ctx.evidence,
    expectations,
    passed: expectations.length > 0 && expectations.every((e) => e.holds || e.undecided !== undefined),
    // Its figures with what they come from, wherever the conclusion is shown (CLI, scenario view, evidence card).
    conclusion: `${conclusion} [${CLOCK_LABEL[clock]}]`,
    figures,
    links,
  }
}

export const STEP_WORDS: Record<Step, string> = {
  1: 'step 1 (consume)',
  2: 'step 2 (process + update state)',
  3: 'step 3 (produce)',
  4: 'step 4 (broker ack)',
  5: 'step 5 (commit offsets)',
}
