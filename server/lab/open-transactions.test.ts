// Open transactions, three panels of one screen (docs/measures.md#open-transactions). Issue 34 saw
// Correctness "12", Transactions "4 open" and Partitions "4 open transactions": the correctness figure
// counts partitions whose LSO is below the HW (one transaction holds its output, changelog and
// offsets partitions open), the other two count transactions. The Partitions panel summed its
// rows' open transactions, counting a transaction once per partition it wrote to. Here: every
// worker paused holding its transactions, then each figure read once nothing moves.

import { describe, expect, it } from 'vitest'
import { openTransactionTotals } from '../../lib/partition-table.ts'
import { MockTime } from '../log/time.ts'
import { Lab } from './lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'

describe('open transactions on one screen', () => {
  it('Transactions and Partitions count the same transactions; correctness counts their partitions', async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 2, partitions: 4, seed: 7 }), {
      ratePerSec: 400,
      snapshotIntervalMs: 100,
      validateIntervalMs: 500,
    })
    await time.runUntilSettled(lab.start())
    await time.runFor(3_000)
    for (const w of lab.snapshot().workers)
      expect(await time.runUntilSettled(lab.execute('pauseWorker', { workerId: w.id }))).toEqual({ ok: true })
    // The validator and the partitions table read again with everything still.
    await time.runFor(3_000)
    const s = lab.snapshot()
    const table = openTransactionTotals(s.partitions!)
    expect(s.txnTotals.open).toBeGreaterThan(1)
    // One figure for one fact: the transactions the producers hold open, as the log holds them.
    expect(table.transactions).toBe(s.txnTotals.open)
    expect(table.atLeast).toBe(false)
    // Another fact, named apart: each open transaction holds several partitions open (output, changelog, offsets).
    expect(s.correctness!.openTransactions).toBe(table.partitions)
    expect(table.partitions).toBeGreaterThan(table.transactions)
    // The old total: the rows' counts summed, a transaction once per partition.
    expect(s.partitions!.reduce((n, r) => n + r.open.count, 0)).toBeGreaterThan(table.transactions)
    await time.runUntilSettled(lab.close())
  })
})
