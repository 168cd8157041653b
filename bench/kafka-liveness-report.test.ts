import { describe, expect, it } from 'vitest'
import { judgeRun, type LivenessRun, livenessVerdict, type RunSummary, summaryOf } from './kafka-liveness-report.ts'

const clean: RunSummary = {
  completed: true,
  kills: 10,
  records: 50_000,
  outputRecords: 50_000,
  throughputPerSec: 700,
  transactions: { committed: 900, aborted: 12 },
  duplicates: 0,
  lost: 0,
  abortedReads: 0,
  stateMismatches: 0,
  openTransactions: 0,
}
const run = (seed: number, summary: Partial<RunSummary> | null, exitCode: number | null = 0): LivenessRun => ({
  seed,
  exitCode,
  wallSeconds: 80,
  loadAverage1mBefore: 4,
  loadAverage1mAfter: 4.5,
  summary: summary === null ? null : { ...clean, ...summary },
})

describe('livenessVerdict', () => {
  it('passes five clean runs with kills', () => {
    const v = livenessVerdict(
      [1, 2, 3, 4, 5].map((s) => run(s, {})),
      'kills',
    )
    expect(v).toMatchObject({
      runCount: 5,
      allCompleted: true,
      allFaultsInjected: true,
      allZero: true,
      passed: true,
      problems: [],
    })
  })

  it('fails a stalled run, whose figures are null, and says why', () => {
    const stalled = run(
      3,
      {
        completed: false,
        stalled: { reason: 'members removed 71 times' },
        duplicates: null,
        lost: null,
        abortedReads: null,
        stateMismatches: null,
        openTransactions: null,
      },
      3,
    )
    const v = livenessVerdict([run(1, {}), stalled], 'kills')
    expect(v.passed).toBe(false)
    expect(v.allCompleted).toBe(false)
    expect(v.allZero).toBe(false)
    expect(v.problems).toEqual([
      {
        seed: 3,
        problems: [
          'stalled: members removed 71 times',
          'duplicates unavailable',
          'lost unavailable',
          'abortedReads unavailable',
          'stateMismatches unavailable',
          'openTransactions unavailable',
        ],
      },
    ])
  })

  it('fails a completed run with a duplicate or a lost record', () => {
    expect(livenessVerdict([run(1, { duplicates: 1 })], 'kills')).toMatchObject({
      allCompleted: true,
      allZero: false,
      passed: false,
      problems: [{ seed: 1, problems: ['duplicates 1'] }],
    })
    expect(livenessVerdict([run(2, { lost: 3 })], 'kills').problems).toEqual([{ seed: 2, problems: ['lost 3'] }])
    expect(livenessVerdict([run(2, { openTransactions: 1 })], 'kills').passed).toBe(false)
  })

  it('fails a run asked to kill that killed nothing, and not one that was not asked', () => {
    expect(livenessVerdict([run(1, { kills: 0 })], 'kills')).toMatchObject({ allFaultsInjected: false, passed: false })
    expect(livenessVerdict([run(1, { kills: 0 })], 'none')).toMatchObject({ allFaultsInjected: true, passed: true })
  })

  it('fails a run that printed no summary or exited non-zero', () => {
    expect(judgeRun({ ...run(4, null, null), errorTail: 'killed at the bound' }, 'kills').problems).toEqual([
      'no summary (exit signal: killed at the bound)',
    ])
    expect(livenessVerdict([run(5, {}, 1)], 'kills')).toMatchObject({ allCompleted: false, passed: false })
  })

  it('fails a completed run short of output records', () => {
    expect(judgeRun(run(1, { outputRecords: 49_000 }), 'kills').problems).toEqual([
      '49000 output records for 50000 input records',
    ])
  })

  it('passes nothing when there are no runs', () => {
    expect(livenessVerdict([], 'kills').passed).toBe(false)
  })
})

describe('summaryOf', () => {
  it('reads the last JSON summary line among log lines', () => {
    const out = ['starting', JSON.stringify({ note: 'not a summary' }), JSON.stringify(clean), ''].join('\n')
    expect(summaryOf(out)).toEqual(clean)
  })
  it('is null without one', () => {
    expect(summaryOf('error: broker unreachable\n{not json')).toBeNull()
  })
})
