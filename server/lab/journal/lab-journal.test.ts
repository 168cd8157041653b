// The lab's journal on fixtures: ids, pages and categories, markers as a view of the entries, run
// counts, and compaction (a two-hour run at the dashboard's default rate stays under the bound;
// nothing but transactions is folded within 30 minutes; ids only ever increase).

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JournalFact } from '../../../lib/journal.ts'
import { MockTime } from '../../log/time.ts'
import { BUCKET_MS, compact, type HeldEntry } from './journal-compaction.ts'
import { JOURNAL_BOUNDS, LabJournal } from './lab-journal.ts'
import { LabRecord } from './lab-record.ts'

const txn = (i: number, outcome: 'committed' | 'aborted' = 'committed'): JournalFact => ({
  kind: 'txn',
  outcome,
  transactionalId: `eoscope-0_${i % 6}`,
  producerId: 1000 + (i % 6),
  epoch: i,
  partitions: ['output-1', 'eoscope-counts-changelog-1'],
  outputRecords: 3,
  changelogRecords: 2,
  offsetsCommitted: 1,
  beginMs: 0,
  cause: outcome === 'aborted' ? 'crash' : null,
})

/** Advances a MockTime without timers (the journal only reads the clock). */
function advance(time: MockTime, ms: number): void {
  ;(time as unknown as { current: number }).current += ms
}

describe('LabJournal', () => {
  it('appends entries with increasing ids, pages them by id and category, and shows markers of the run', () => {
    const time = new MockTime(1_000_000)
    const j = new LabJournal(time)
    j.append({ kind: 'kill', workerId: 'worker-2', step: 4 }, 'worker-2 killed at step 4')
    advance(time, 10)
    j.append(txn(1), null)
    j.append(txn(2, 'aborted'), null, { links: [{ topic: 'output', partition: 1, fromOffset: 10, toOffset: 12 }] })
    j.append({ kind: 'config', changes: { 'commit.interval.ms': 1000 } }, 'commit.interval.ms=1000')
    const all = j.page({ after: 0, limit: 10, categories: null })
    expect(all.entries.map((e) => e.id)).toEqual([1, 2, 3, 4])
    expect(all.entries.map((e) => e.category)).toEqual(['kills', 'transactions', 'transactions', 'config'])
    expect(all.entries[1]!.label).toMatch(
      new RegExp(
        '^transaction committed: eoscope-0_1 epoch 1 on output-1, eoscope-counts-changelog-1; 3 output, 2 changelog,' +
          ' 1 offsets$',
      ),
    )
    expect(all.entries[1]!.links).toEqual([
      { topic: 'output', partition: 1 },
      { topic: 'changelog', partition: 1 },
    ])
    expect(all.entries[2]!.links).toEqual([{ topic: 'output', partition: 1, fromOffset: 10, toOffset: 12 }])
    expect(all.span).toMatchObject({ lastId: 4, size: 4, fromMs: 1_000_000 })
    expect(j.page({ after: 1, limit: 1, categories: ['transactions'] })).toMatchObject({
      entries: [{ id: 2 }],
      more: true,
    })
    expect(j.page({ after: 2, limit: 5, categories: ['kills', 'config'] }).entries.map((e) => e.id)).toEqual([4])
    expect(j.shownMarkers().map((m) => m.kind)).toEqual(['kill', 'config'])
    expect(j.txnCounts()).toEqual({ committed: 1, aborted: 1 })
    expect(j.runCount('kill')).toBe(1)
    j.beginRun()
    expect(j.shownMarkers()).toEqual([])
    expect(j.txnCounts()).toEqual({ committed: 0, aborted: 0 })
    // A new run keeps the entries and never reuses an id.
    expect(j.append({ kind: 'reset', applicationId: 'eoscope-2' }, 'lab reset')).toBe(5)
  })

  it('marks a scenario step on the timeline through LabRecord', () => {
    const time = new MockTime()
    const record = new LabRecord(
      time,
      () => {
        throw new Error('no runtime needed')
      },
      () => true,
    )
    record.scenario('zombie', 'started', 'scenario zombie: exactly_once')
    expect(record.journal.all()).toMatchObject([
      {
        category: 'scenario',
        label: 'scenario zombie: exactly_once',
        fact: { kind: 'scenario', name: 'zombie', phase: 'started' },
      },
    ])
    expect(record.parts().markers).toMatchObject([{ kind: 'config', label: 'scenario zombie: exactly_once' }])
    record.mark('outage', 'cluster unreachable: ECONNREFUSED')
    expect(record.journal.all().at(-1)!.fact).toEqual({ kind: 'outage', phase: 'ended' })
  })

  it('counts a teardown abort apart: a transaction, not a fault', () => {
    const j = new LabJournal(new MockTime())
    j.append({ ...txn(1, 'aborted'), cause: 'teardown' } as JournalFact, null)
    expect(j.txnCounts()).toEqual({ committed: 0, aborted: 0 })
    expect(j.runCount('txn:aborted:teardown')).toBe(1)
    expect(j.page({ after: 0, limit: 5, categories: ['faults'] }).entries).toEqual([])
  })

  const staysBoundedOverTwoHours =
    'stays under its bound over a two-hour run at the default rate, keeping 5 minutes of commits and 30 of ' +
    'everything else entry by entry'
  it(staysBoundedOverTwoHours, () => {
    const time = new MockTime(0)
    const j = new LabJournal(time)
    let kills = 0
    // About 59 transactions a second (the default lab's), a kill and a config change every 5 minutes.
    for (let ms = 0; ms < 2 * 3_600_000; ms += 17) {
      advance(time, 17)
      j.append(txn(ms), null)
      if (ms % 300_000 < 17) {
        j.append({ kind: 'kill', workerId: 'worker-1', step: null }, 'worker-1 killed')
        j.append({ kind: 'config', changes: { 'commit.interval.ms': 100 } }, 'commit.interval.ms=100')
        kills++
      }
    }
    j.compact()
    const all = j.all()
    expect(all.length).toBeLessThanOrEqual(JOURNAL_BOUNDS.maxEntries)
    // The last 5 minutes of commits (up to the minute) are all there, entry by entry;
    // kills and config changes for 30 and more.
    const cutoff = time.now() - JOURNAL_BOUNDS.keepCommitsMs!
    const window = all.filter((e) => e.atMs >= cutoff)
    expect(window.every((e) => e.fact.kind !== 'compacted')).toBe(true)
    expect(window.filter((e) => e.fact.kind === 'txn').length).toBeGreaterThan(5 * 60 * 58)
    // Older transactions are folded, one entry a minute; every kill and config change is kept.
    expect(all.filter((e) => e.fact.kind === 'compacted').length).toBeLessThanOrEqual(116)
    expect(all.filter((e) => e.fact.kind === 'kill').length).toBe(kills)
    expect(all.filter((e) => e.fact.kind === 'config').length).toBe(kills)
    const folded = all.reduce(
      (n, e) =>
        n + (e.fact.kind === 'compacted' ? (e.fact.counts['txn:committed'] ?? 0) : e.fact.kind === 'txn' ? 1 : 0),
      0,
    )
    expect(folded).toBe(Math.ceil((2 * 3_600_000) / 17))
    expect(all.every((e, i) => i === 0 || e.id > all[i - 1]!.id)).toBe(true)
  })

  it('folds commits past keepCommitsMs, and keeps an abort of the same minute entry by entry until keepMs', () => {
    const at = (id: number, atMs: number, fact: JournalFact): HeldEntry => ({ id, atMs, fact })
    const entries = [at(1, 0, txn(1)), at(2, 10, txn(2, 'aborted')), at(3, 20, txn(3)), at(4, 40 * BUCKET_MS, txn(4))]
    const bounds = { keepMs: 30 * BUCKET_MS, keepCommitsMs: 5 * BUCKET_MS, maxEntries: 100, maxCompacted: 100 }
    const at10 = compact(entries, 10 * BUCKET_MS, bounds)
    expect(at10.map((e) => e.fact.kind)).toEqual(['txn', 'compacted', 'txn'])
    expect(at10.find((e) => e.fact.kind === 'txn' && e.fact.outcome === 'aborted')?.id).toBe(2)
    const at31 = compact(at10, 31 * BUCKET_MS, bounds)
    expect(at31.filter((e) => e.fact.kind === 'txn' && e.fact.outcome === 'aborted')).toEqual([])
    expect(
      at31.reduce(
        (n, e) =>
          n +
          (e.fact.kind === 'compacted'
            ? (e.fact.counts['txn:aborted'] ?? 0) + (e.fact.counts['txn:committed'] ?? 0)
            : 0),
        0,
      ),
    ).toBe(3)
  })

  it('folds faults too, oldest first, only past the hard bound once no transaction is left to fold', () => {
    const entries: HeldEntry[] = []
    for (let i = 0; i < 50; i++)
      entries.push({ id: i + 1, atMs: i * BUCKET_MS, fact: { kind: 'kill', workerId: 'w', step: null } })
    const out = compact(entries, 50 * BUCKET_MS, { keepMs: 60 * BUCKET_MS, maxEntries: 20, maxCompacted: 100 })
    expect(out.length).toBeLessThanOrEqual(20)
    expect(out.at(-1)).toMatchObject({ id: 50, fact: { kind: 'kill' } })
    expect(out.reduce((n, e) => n + (e.fact.kind === 'compacted' ? (e.fact.counts.kill ?? 0) : 1), 0)).toBe(50)
  })

  it('property: ids only increase, and nothing but transactions within 30 minutes is ever folded', () => {
    const kinds: JournalFact[] = [
      { kind: 'kill', workerId: 'worker-1', step: 3 },
      { kind: 'fenced', workerId: 'worker-2', by: 'epoch', detail: 'fenced' },
      { kind: 'config', changes: { 'commit.interval.ms': 100 } },
      { kind: 'scenario', name: 'zombie', phase: 'started' },
      { kind: 'ack-dropped', producerId: 1, epoch: 0, sequences: [3] },
      { kind: 'outage', phase: 'began' },
    ]
    fc.assert(
      fc.property(
        fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 5_000 }), kind: fc.integer({ min: 0, max: 12 }) }), {
          minLength: 1,
          maxLength: 3_000,
        }),
        (steps) => {
          const time = new MockTime(0)
          const j = new LabJournal(time, { keepMs: 30 * 60_000, maxEntries: 2_000, maxCompacted: 50 })
          const kept: number[] = []
          for (const s of steps) {
            advance(time, s.gapMs)
            const fact = s.kind < kinds.length ? kinds[s.kind]! : txn(s.kind)
            const id = j.append(fact, fact.kind)
            if (fact.kind !== 'txn') kept.push(id)
          }
          j.compact()
          const all = j.all()
          for (let i = 1; i < all.length; i++) if (all[i]!.id <= all[i - 1]!.id) return false
          // Fewer non-transactions than the hard bound: none is folded, within 30 minutes or older;
          // transactions go instead, even within the window, when the bound is reached.
          const ids = new Set(all.map((e) => e.id))
          return all.length <= 2_000 && kept.every((id) => ids.has(id))
        },
      ),
      { numRuns: 60 },
    )
  })
})
