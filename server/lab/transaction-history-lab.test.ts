// The history on the dashboard's lab (embedded log, virtual clock): one number for one fact. Its
// run statistics count what txnTotals counts, a kill's aborted transaction is a row with its cause,
// committed transactions carry the EndTxn latency the workers measured, and a reset starts the
// run's statistics over while the lab's life goes on, its teardown aborts never counted as faults.

import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import { Lab } from './lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'
import { NO_FILTER } from './transaction-history.ts'

describe('the transaction history on a lab', () => {
  it('counts what the dashboard counts, lists a kill as a crash, and outlives a reset', async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 3, partitions: 6, seed: 7 }), {
      ratePerSec: 500,
      snapshotIntervalMs: 100,
      validateIntervalMs: 500,
    })
    await time.runUntilSettled(lab.start())
    await time.runFor(2_000)
    const victim = lab.snapshot().workers.find((w) => w.taskIds.length > 0)!.id
    expect(await time.runUntilSettled(lab.execute('killWorker', { workerId: victim }))).toEqual({ ok: true })
    await time.runUntil(() => lab.snapshot().recoveries.some((r) => r.recoveryMs !== null), 60_000, 50)
    await time.runFor(1_000)

    const s = lab.snapshot()
    expect(s.txnStats!.run.outcomes.committed.count).toBe(s.txnTotals.committed)
    expect(s.txnStats!.run.outcomes.aborted.count).toBe(s.txnTotals.aborted)
    expect(s.txnTotals.aborted).toBeGreaterThan(0)
    expect(s.txnStats!.run.causes.crash).toBe(s.txnTotals.aborted)
    const committed = s.txnStats!.run.outcomes.committed
    // Every committed transaction's worker measured its EndTxn (the latency model's cost on the embedded log).
    expect(committed.endTxnMs.count).toBe(committed.count)
    expect(committed.endTxnMs.min!).toBeGreaterThan(0)

    const aborted = lab.transactionHistory({ ...NO_FILTER, outcomes: ['aborted'] })
    expect(aborted.rows.length).toBe(s.txnStats!.life.outcomes.aborted.count)
    expect(aborted.rows.every((r) => r.cause === 'crash' && r.workerId === victim)).toBe(true)

    const before = lab.snapshot().txnStats!.life
    expect(await time.runUntilSettled(lab.execute('reset', {}))).toEqual({ ok: true })
    await time.runFor(1_000)
    const after = lab.snapshot()
    expect(after.txnStats!.run.outcomes.committed.count).toBe(after.txnTotals.committed)
    expect(after.txnStats!.run.outcomes.aborted.count).toBe(0)
    expect(after.txnStats!.life.outcomes.aborted.count).toBe(before.outcomes.aborted.count)
    expect(after.txnStats!.life.outcomes.committed.count).toBeGreaterThan(before.outcomes.committed.count)
    expect(after.txnStats!.life.outcomes.committed.count).toBeGreaterThan(after.txnTotals.committed)
    // What the reset's teardown ended is its own outcome.
    const teardown = lab.transactionHistory({ ...NO_FILTER, outcomes: ['teardown'] }).rows
    expect(teardown.every((r) => r.cause === 'teardown')).toBe(true)
    expect(after.txnStats!.life.causes.teardown).toBe(teardown.length)
    await time.runUntilSettled(lab.close())
  })
})
