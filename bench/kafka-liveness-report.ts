// What bench:liveness concludes from its runs: each `eoscope run --json` on Kafka beside CPU hogs,
// judged as issue-level acceptance reads it (every run completes, with faults injected, and every
// exactly-once figure at 0). Pure, so a stalled or violating run can be fed to it in a test.

/** The figures an exactly-once run must hold at 0 (docs/measures.md); null (a stalled run) is not 0. */
export const JUDGED_FIGURES = ['duplicates', 'lost', 'abortedReads', 'stateMismatches', 'openTransactions'] as const
export type JudgedFigure = (typeof JUDGED_FIGURES)[number]

/** The parts of `eoscope run --json` this benchmark reads. */
export interface RunSummary {
  completed: boolean
  stalled?: { reason: string }
  kills: number
  records: number
  outputRecords: number
  throughputPerSec: number
  transactions: { committed: number; aborted: number }
  duplicates: number | null
  lost: number | null
  abortedReads: number | null
  stateMismatches: number | null
  openTransactions: number | null
}

/** One run as the benchmark saw it from outside: its exit status, wall time and the machine's load. */
export interface LivenessRun {
  seed: number
  exitCode: number | null
  wallSeconds: number
  loadAverage1mBefore: number
  loadAverage1mAfter: number
  /** Cores' worth of CPU the hogs beside it took during the run; null where /proc cannot tell. */
  hogCores?: number | null
  /** The run's JSON summary, or null when it printed none (crashed, killed at the bound). */
  summary: RunSummary | null
  /** Standard error's last lines when the run printed no summary. */
  errorTail?: string
}

/** Whether the runs were asked to kill workers (--kill-every): then a run without a kill fails. */
export type FaultsAsked = 'kills' | 'none'

export interface LivenessJudgement {
  seed: number
  completed: boolean
  /** Faults were injected: a run asked to kill whose kills are 0 proved nothing about recovery. */
  faultsInjected: boolean
  /** Every judged figure at 0. */
  allZero: boolean
  /** Why this run fails the acceptance, empty when it passes. */
  problems: string[]
}

export function judgeRun(run: LivenessRun, faults: FaultsAsked): LivenessJudgement {
  const killsExpected = faults === 'kills'
  const s = run.summary
  const problems: string[] = []
  if (s === null)
    problems.push(`no summary (exit ${run.exitCode ?? 'signal'}${run.errorTail ? `: ${run.errorTail}` : ''})`)
  else {
    if (s.stalled) problems.push(`stalled: ${s.stalled.reason}`)
    else if (!s.completed || run.exitCode !== 0) problems.push(`did not complete (exit ${run.exitCode ?? 'signal'})`)
    if (s.outputRecords < s.records && s.completed)
      problems.push(`${s.outputRecords} output records for ${s.records} input records`)
    for (const f of JUDGED_FIGURES) {
      const v = s[f]
      if (v !== 0) problems.push(`${f} ${v === null ? 'unavailable' : v}`)
    }
    if (killsExpected && s.kills === 0) problems.push('no worker was killed')
  }
  return {
    seed: run.seed,
    completed: s?.completed === true && !s.stalled && run.exitCode === 0,
    faultsInjected: s !== null && (!killsExpected || s.kills > 0),
    allZero: s !== null && JUDGED_FIGURES.every((f) => s[f] === 0),
    problems,
  }
}

export interface LivenessVerdict {
  runCount: number
  allCompleted: boolean
  allFaultsInjected: boolean
  allZero: boolean
  passed: boolean
  problems: { seed: number; problems: string[] }[]
}

export function livenessVerdict(runs: readonly LivenessRun[], faults: FaultsAsked): LivenessVerdict {
  const judged = runs.map((r) => judgeRun(r, faults))
  const allCompleted = judged.length > 0 && judged.every((j) => j.completed)
  const allFaultsInjected = judged.length > 0 && judged.every((j) => j.faultsInjected)
  const allZero = judged.length > 0 && judged.every((j) => j.allZero)
  return {
    runCount: judged.length,
    allCompleted,
    allFaultsInjected,
    allZero,
    passed: allCompleted && allFaultsInjected && allZero,
    problems: judged.filter((j) => j.problems.length > 0).map((j) => ({ seed: j.seed, problems: j.problems })),
  }
}

/** The last JSON object line of a run's standard output (its summary), or null. */
export function summaryOf(stdout: string): RunSummary | null {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'))
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const parsed = JSON.parse(lines[i]!) as Partial<RunSummary>
      if (typeof parsed.completed === 'boolean' && typeof parsed.kills === 'number') return parsed as RunSummary
    } catch {
      // not the summary line
    }
  }
  return null
}
