// The chaos soak: steady load, and a seeded random mix of faults: kills at random steps, pauses
// that turn workers into zombies, dropped acks, processing.guarantee and commit.interval.ms
// changes. The validator runs periodically and at the end. Exactly-once must show 0 in every
// correctness row whatever the mix; at_least_once must show 0 lost.

import type { Step } from '../../lib/lab-protocol.ts'
import { defaultStreamsConfig, type ProcessingGuarantee } from '../../lib/streams-config.ts'
import type { Time } from '../log/time.ts'
import { validateRun } from '../validator/validator.ts'
import type { ValidationReport } from '../validator/report.ts'
import { InProcessRuntime as LabRuntime } from './in-process-runtime.ts'

export type SoakMode = 'exactly-once' | 'at-least-once'

export interface SoakOptions {
  mode: SoakMode
  faults: number
  /** Keep going at least this long, even after the faults are done. */
  minMs?: number
  seed: number
  ratePerSec: number
  /** Validate the logs this often while running. */
  validateEveryMs?: number
  onProgress?: (p: SoakProgress) => void
  /** Called after each fault is applied (for tracing a failing seed). */
  onFault?: (kind: FaultKind, detail: string, lab: LabRuntime) => Promise<void> | void
}

export interface SoakProgress {
  elapsedMs: number
  faults: Record<FaultKind, number>
  lastCheck: CorrectnessRow | null
}

export type FaultKind = 'kill' | 'killAtStep' | 'pause' | 'droppedAck' | 'guaranteeChange' | 'commitIntervalChange'

export interface CorrectnessRow {
  atMs: number
  guarantee: ProcessingGuarantee
  inputRecords: number
  duplicates: number | null
  lost: number | null
  abortedReads: number
  stateMismatches: number | null
  openTransactions: number
}

export interface SoakResult {
  mode: SoakMode
  seed: number
  ratePerSec: number
  durationMs: number
  faults: Record<FaultKind, number> & { total: number }
  guaranteesVisited: ProcessingGuarantee[]
  commitIntervalsVisited: number[]
  periodicChecks: CorrectnessRow[]
  final: CorrectnessRow & { outputRecords: number; abortedReadsUncommitted: number; poison: number }
  passed: boolean
  violations: string[]
}

const COMMIT_INTERVALS = [50, 100, 250, 500, 1_000]

function row(report: ValidationReport, atMs: number, guarantee: ProcessingGuarantee): CorrectnessRow {
  return {
    atMs,
    guarantee,
    inputRecords: report.inputRecords,
    duplicates: report.duplicates,
    lost: report.lost,
    abortedReads: report.abortedReads,
    stateMismatches: report.stateMismatches,
    openTransactions: report.openTransactions,
  }
}

/** The rows a mode requires to be 0; a null (unavailable) row counts as a violation. */
export function soakViolations(mode: SoakMode, r: CorrectnessRow, final: boolean): string[] {
  const out: string[] = []
  const zero = (name: keyof CorrectnessRow) => {
    if (r[name] !== 0) out.push(`${name}=${r[name]}`)
  }
  zero('lost')
  if (mode === 'exactly-once') {
    zero('duplicates')
    zero('abortedReads')
    zero('stateMismatches')
    if (final) zero('openTransactions')
  }
  return out
}

export async function runSoak(time: Time, o: SoakOptions): Promise<SoakResult> {
  const guarantees: ProcessingGuarantee[] = o.mode === 'exactly-once' ? ['exactly_once', 'exactly_once_v2'] : ['at_least_once']
  const lab = new LabRuntime(time, {
    config: defaultStreamsConfig(guarantees[0]!),
    workers: 3,
    partitions: 6,
    ratePerSec: o.ratePerSec,
    maxRecords: Number.POSITIVE_INFINITY,
    keys: 100,
    seed: o.seed,
    latency: 'default',
    restartAfterMs: 300,
    deserializationPolicy: 'log-and-continue',
    traceIntervalMs: 5_000,
  })
  const rng = lab.random
  const faults: Record<FaultKind, number> = { kill: 0, killAtStep: 0, pause: 0, droppedAck: 0, guaranteeChange: 0, commitIntervalChange: 0 }
  const total = () => Object.values(faults).reduce((a, b) => a + b, 0)
  const visitedG = new Set<ProcessingGuarantee>([guarantees[0]!])
  const visitedI = new Set<number>([lab.config['commit.interval.ms']])
  const checks: CorrectnessRow[] = []
  const violations: string[] = []
  const start = time.now()
  const validate = () =>
    validateRun(lab.connection.inspector(), { groupId: lab.groupId, inputTopic: lab.topics.input, outputTopic: lab.topics.output, changelogTopic: lab.topics.changelog, dlqTopic: lab.topics.deadLetter })
  await lab.start()
  let lastCheck = time.now()
  const paused = new Set<string>()

  while (total() < o.faults || time.now() - start < (o.minMs ?? 0)) {
    await time.sleep(rng.int(150, 450))
    const live = lab.liveSlots().filter((s) => s.process.state === 'running' && (s.worker?.tasks.size ?? 0) > 0)
    const roll = rng.next()
    if (roll < 0.3 && live.length > 1) {
      const victim = rng.pick(live).worker!.id
      if (rng.next() < 0.5) {
        lab.kill(victim)
        faults.kill++
        await o.onFault?.('kill', victim, lab)
      } else {
        const step = rng.int(1, 6) as Step
        lab.kill(victim, step)
        faults.killAtStep++
        await o.onFault?.('killAtStep', `${victim} at step ${step}`, lab)
      }
    } else if (roll < 0.45 && live.length > 1 && paused.size === 0) {
      const victim = rng.pick(live).worker!.id
      if (lab.pause(victim, rng.next() < 0.5 ? null : (rng.int(2, 6) as Step))) {
        paused.add(victim)
        faults.pause++
        await o.onFault?.('pause', victim, lab)
        // Wake it up past its session timeout, as a zombie.
        const wakeAfter = lab.config['session.timeout.ms'] + rng.int(100, 1_500)
        void time.sleep(wakeAfter).then(() => {
          lab.resume(victim)
          paused.delete(victim)
        })
      }
    } else if (roll < 0.75) {
      lab.dropAcks(1)
      faults.droppedAck++
      await o.onFault?.('droppedAck', '', lab)
    } else if (roll < 0.85 && guarantees.length > 1) {
      const next = guarantees.find((g) => g !== lab.config['processing.guarantee'])!
      paused.clear()
      await lab.reconfigure({ ...lab.config, 'processing.guarantee': next })
      visitedG.add(next)
      faults.guaranteeChange++
      await o.onFault?.('guaranteeChange', next, lab)
    } else {
      const interval = rng.pick(COMMIT_INTERVALS.filter((i) => i !== lab.config['commit.interval.ms']))
      paused.clear()
      await lab.reconfigure({ ...lab.config, 'commit.interval.ms': interval })
      visitedI.add(interval)
      faults.commitIntervalChange++
      await o.onFault?.('commitIntervalChange', String(interval), lab)
    }
    if (time.now() - lastCheck >= (o.validateEveryMs ?? 10_000)) {
      lastCheck = time.now()
      const r = row(await validate(), time.now() - start, lab.config['processing.guarantee'])
      checks.push(r)
      for (const v of soakViolations(o.mode, r, false)) violations.push(`at ${Math.round(r.atMs)} ms: ${v}`)
      o.onProgress?.({ elapsedMs: time.now() - start, faults: { ...faults }, lastCheck: r })
    }
  }

  // Drain: no more input, every paused worker awake, everything processed and committed.
  lab.generator.stop()
  await lab.generator.done
  for (const s of lab.slots) if (s.process.state === 'paused') s.process.resume()
  const deadline = time.now() + 120_000
  while (!caughtUpAll(lab)) {
    if (time.now() > deadline) {
      violations.push('the lab did not catch up within 120 s after the faults stopped')
      break
    }
    await time.sleep(20)
  }
  await lab.stop()
  const report = await validate()
  const final = { ...row(report, time.now() - start, lab.config['processing.guarantee']), outputRecords: report.outputRecords, abortedReadsUncommitted: report.abortedReadsUncommitted, poison: report.poison }
  for (const v of soakViolations(o.mode, final, true)) violations.push(`final: ${v}`)
  return {
    mode: o.mode,
    seed: o.seed,
    ratePerSec: o.ratePerSec,
    durationMs: Math.round(time.now() - start),
    faults: { ...faults, total: total() },
    guaranteesVisited: [...visitedG],
    commitIntervalsVisited: [...visitedI].sort((a, b) => a - b),
    periodicChecks: checks,
    final,
    passed: violations.length === 0,
    violations,
  }
}

/** Every input record produced so far is committed (the generator may have been stopped early). */
function caughtUpAll(lab: LabRuntime): boolean {
  const ends = lab.inputEndOffsets()
  const committed = lab.committedOffsets()
  return ends.every((e, p) => (committed[p] ?? 0) >= e)
}
