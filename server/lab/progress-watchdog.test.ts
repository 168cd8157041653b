import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import { defaultRunTimeoutMs, runHeadless, type RunOptions } from './headless-run.ts'
import type { LabRuntime } from './lab-runtime.ts'
import { countTransactions } from './log-transactions.ts'
import { stallLimitMs } from './progress-watchdog.ts'

const RUN: RunOptions = { guarantee: 'exactly_once', workers: 3, partitions: 6, records: 2_000, rate: 200, seed: 3, killEveryMs: null, killAtStep: null, restartAfterMs: 500, dropAcks: 0, idempotence: true, latency: 'off', keys: 20 }

/** Pauses every worker once the group has committed something: nothing commits after that. */
function pauseAllAfterFirstCommit(lab: LabRuntime): void {
  let paused = false
  lab.onEvent((e) => {
    if (paused || 'source' in e || e.type !== 'offsets-committed') return
    paused = true
    queueMicrotask(() => {
      for (const slot of lab.liveSlots()) if (slot.worker) lab.pause(slot.worker.id)
    })
  })
}

describe('the progress watchdog of a headless run', () => {
  it('derives its bound from session.timeout.ms: max(60 s, 12 × session.timeout.ms)', () => {
    expect(stallLimitMs({ 'session.timeout.ms': 1_000 })).toBe(60_000)
    expect(stallLimitMs({ 'session.timeout.ms': 10_000 })).toBe(120_000)
    expect(stallLimitMs({ 'session.timeout.ms': 45_000 })).toBe(540_000)
    // and the run's deadline leaves room for its kills' detections
    expect(defaultRunTimeoutMs({ 'session.timeout.ms': 1_000 })).toBe(300_000)
    expect(defaultRunTimeoutMs({ 'session.timeout.ms': 10_000 })).toBe(600_000)
  })

  it('stops a run whose workers are all paused, says why, and leaves the correctness figures null', async () => {
    const time = new MockTime()
    const started = time.now()
    const result = await time.runUntilSettled(runHeadless(RUN, time, pauseAllAfterFirstCommit), 200_000)
    expect(result.completed).toBe(false)
    expect(result.stalled).toBeDefined()
    const stall = result.stalled!
    expect(stall.limitMs).toBe(60_000)
    expect(stall.noProgressMs).toBeGreaterThanOrEqual(60_000)
    expect(stall.committed).toBeLessThan(stall.inputEnd)
    // The paused members' sessions expired: the group removed them.
    expect(stall.seen.membersRemoved).toBeGreaterThanOrEqual(1)
    expect(stall.reason).toMatch(/^no committed progress for \d+ s with \d+ of \d+ input records committed; meanwhile \d+ members removed/)
    // Well before the 300 s deadline.
    expect(result.durationMs).toBeLessThan(120_000)
    expect(time.now() - started).toBeLessThan(200_000)
    expect({ duplicates: result.duplicates, lost: result.lost, abortedReads: result.abortedReads, stateMismatches: result.stateMismatches, openTransactions: result.openTransactions }).toEqual({
      duplicates: null,
      lost: null,
      abortedReads: null,
      stateMismatches: null,
      openTransactions: null,
    })
    expect(result.unavailableFigures?.map((u) => u.figure)).toContain('lost')
    expect(result.unavailableFigures?.every((u) => u.reason.startsWith('the run stalled: no committed progress'))).toBe(true)
  })

  it('leaves a run that makes progress alone, and its log-held transactions match what the workers reported', async () => {
    const time = new MockTime()
    const result = await time.runUntilSettled(runHeadless({ ...RUN, records: 600 }, time), 200_000)
    expect(result.completed).toBe(true)
    expect(result.stalled).toBeUndefined()
    expect(result.lost).toBe(0)
    expect(result.transactions.committed).toBeGreaterThan(0)
    expect(result.transactions).toEqual(result.transactionsReported)
    expect(result.definitions.transactions).toContain('ABORT markers')
  })
})

describe('transactions counted from the markers the log holds', () => {
  const m = (producerId: number, epoch: number, control: 'COMMIT' | 'ABORT', partition: string, timestamp: number) => ({ producerId, epoch, control, partition, timestamp })

  it('counts one transaction per marker round of a producer, across its partitions', () => {
    const counts = countTransactions([
      // producer 1: two commits over output-0 and changelog-0, then the coordinator's abort (epoch bumped) on both
      m(1, 0, 'COMMIT', 'out-0', 100), m(1, 0, 'COMMIT', 'log-0', 100),
      m(1, 0, 'COMMIT', 'out-0', 210), m(1, 0, 'COMMIT', 'log-0', 211),
      m(1, 1, 'ABORT', 'out-0', 900), m(1, 1, 'ABORT', 'log-0', 901),
      // producer 2: two transactions in the same millisecond are still two (a partition is marked once per transaction)
      m(2, 0, 'COMMIT', 'out-1', 50), m(2, 0, 'COMMIT', 'out-1', 50),
    ])
    expect(counts).toEqual({ committed: 4, aborted: 1 })
  })
})
