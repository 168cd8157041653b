// One number for one fact, on the dashboard's lab (embedded log, virtual clock): after a kill, the
// snapshot's transaction totals and kill count are the journal's counts of its entries; an aborted
// transaction lists what it held; a reset's teardown aborts nothing as a fault and leaves no open
// transaction in the correctness view; frames rewind to the kill.

import { describe, expect, it } from 'vitest'
import type { JournalFact } from '../../../lib/journal.ts'
import { wholeJournal as entries } from './__fixtures__/whole-journal.ts'
import { MockTime } from '../../log/time.ts'
import { Lab } from '../lab.ts'
import { inProcessRuntimes } from '../../runtime/runtime-factory.ts'

type Txn = Extract<JournalFact, { kind: 'txn' }>

describe("the lab's journal", () => {
  it('is the one source of txnTotals, kills and markers, and aborted transactions list what they held', async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 3, partitions: 6, seed: 7 }), {
      ratePerSec: 500,
      snapshotIntervalMs: 100,
      validateIntervalMs: 500,
    })
    await time.runUntilSettled(lab.start())
    await time.runFor(3_000)
    const victim = lab.snapshot().workers.find((w) => w.taskIds.length > 0)!.id
    expect(await time.runUntilSettled(lab.execute('killWorker', { workerId: victim, step: 4 }))).toEqual({ ok: true })
    await time.runUntil(() => lab.snapshot().recoveries.some((r) => r.recoveryMs !== null), 60_000, 50)
    await time.runFor(2_000)

    // The snapshot and the journal as they were when it was built (entries up to its lastId).
    const s = lab.snapshot()
    const all = entries(lab).filter((e) => e.id <= s.journal!.lastId)
    const txns = all.filter((e) => e.fact.kind === 'txn').map((e) => e.fact as Txn)
    const kills = all.filter((e) => e.fact.kind === 'kill')
    expect(kills).toHaveLength(1)
    expect(kills[0]!.fact).toEqual({ kind: 'kill', workerId: victim, step: 4 })
    expect(s.totals.kills).toBe(kills.length)
    expect(s.txnTotals.committed).toBe(txns.filter((t) => t.outcome === 'committed').length)
    expect(s.txnTotals.aborted).toBe(txns.filter((t) => t.outcome === 'aborted' && t.cause !== 'teardown').length)
    expect(s.txnTotals.committed).toBeGreaterThan(50)
    // The timeline's markers are the journal's: the kill is one of them, at its instant.
    expect(s.markers.filter((m) => m.kind === 'kill')).toEqual([
      { t: kills[0]!.atMs, kind: 'kill', label: `${victim} killed at step 4` },
    ])
    expect(all.some((e) => e.fact.kind === 'recovered')).toBe(true)
    expect(all.some((e) => e.fact.kind === 'generation')).toBe(true)

    // The killed worker's open transaction, aborted by the coordinator, lists what it held.
    const crashed = txns.filter((t) => t.outcome === 'aborted' && t.cause === 'crash')
    expect(crashed.length).toBeGreaterThan(0)
    for (const t of crashed) {
      expect(t.partitions.length).toBeGreaterThan(0)
      expect(t.outputRecords + t.changelogRecords).toBeGreaterThan(0)
    }
    const crashEntry = all.find((e) => e.fact.kind === 'txn' && e.fact.cause === 'crash')!
    expect(crashEntry.links!.some((l) => l.fromOffset !== undefined && l.toOffset! > l.fromOffset)).toBe(true)
    const shown = s.transactions.filter((t) => t.abortReason === 'crash')
    expect(shown.length).toBeGreaterThan(0)
    expect(shown.every((t) => t.partitions.length > 0 && t.outputRecords + t.changelogRecords > 0)).toBe(true)

    // A frame at the kill's instant shows the kill.
    const frame = lab.frameAt(kills[0]!.atMs)!
    expect(frame.frameAtMs).toBeGreaterThanOrEqual(kills[0]!.atMs)
    expect(frame.frameAtMs - kills[0]!.atMs).toBeLessThanOrEqual(1_000)
    expect(frame.snapshot.markers.some((m) => m.kind === 'kill')).toBe(true)

    // A reset: the teardown's aborts are its own, never faults, and no open transaction is reported.
    expect(await time.runUntilSettled(lab.execute('reset', {}))).toEqual({ ok: true })
    // Nothing of the old runtime's validation is shown once it is torn down.
    expect(lab.snapshot().correctness).toBeNull()
    await time.runFor(3_000)
    const after = entries(lab).filter((e) => e.id > all.at(-1)!.id)
    expect(
      after.filter((e) => e.category === 'faults' || (e.fact.kind === 'txn' && e.fact.cause === 'timeout')),
    ).toEqual([])
    const r = lab.snapshot()
    expect(r.txnTotals.aborted).toBe(0)
    expect(r.totals.kills).toBe(0)
    expect(r.markers.map((m) => m.kind)).toEqual(['reset'])
    const ids = entries(lab).map((e) => e.id)
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true)
    await time.runUntilSettled(lab.close())
  }, 120_000)
})
