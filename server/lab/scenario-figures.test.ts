// One number for one fact, across a scenario's narrative, the dashboard's tiles and the lab's
// journal (embedded log, virtual clock): lost-ack's duplicates are the DUPLICATES tile's, its lost
// acks the journal's; zombie's aborted transactions and records are the journal's aborted
// transactions that held the zombie's records, and the ABORTED TXNS tile counts them among its own.

import { describe, expect, it } from 'vitest'
import type { JournalFact, JournalLink } from '../../lib/journal.ts'
import type { EvidenceCard, EvidenceLink, LabSnapshot } from '../../lib/lab-protocol.ts'
import { wholeJournal as entries } from './journal/__fixtures__/whole-journal.ts'
import { MockTime } from '../log/time.ts'
import { Lab } from './lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'

type Txn = Extract<JournalFact, { kind: 'txn' }>

async function scenario(
  time: MockTime,
  lab: Lab,
  name: string,
): Promise<{ card: EvidenceCard; narrative: string; s: LabSnapshot }> {
  expect(await time.runUntilSettled(lab.execute('runScenario', { name }))).toMatchObject({ ok: true })
  await time.runUntil(
    () => (lab.snapshot().evidence ?? []).some((c) => c.name === name) && lab.snapshot().scenario?.status !== 'running',
    900_000,
    50,
  )
  // The validator reads past everything the scenario's last lab committed.
  const committed = lab.snapshot().totals.committedInput
  await time.runUntil(() => (lab.snapshot().correctness?.inputChecked ?? 0) >= committed, 120_000, 50)
  const s = lab.snapshot()
  return {
    card: s.evidence!.find((c) => c.name === name)!,
    narrative: s.scenario!.narrative.map((l) => l.text).join('\n'),
    s,
  }
}

const overlaps = (l: JournalLink, e: EvidenceLink) =>
  l.topic === e.topic &&
  l.partition === e.partition &&
  l.fromOffset !== undefined &&
  l.toOffset !== undefined &&
  l.fromOffset < e.toOffset &&
  l.toOffset > e.fromOffset

describe("a scenario's figures are the tiles' and the journal's", { timeout: 600_000 }, () => {
  const lostAckQuotesDuplicates =
    'lost-ack: the duplicates it quotes are the DUPLICATES tile; each run lost one ack, as the journal says'
  it(lostAckQuotesDuplicates, async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, seed: 11 }), {
      ratePerSec: 400,
      snapshotIntervalMs: 100,
      validateIntervalMs: 500,
    })
    await time.runUntilSettled(lab.start())
    const startedAt = time.now()
    const { card, narrative, s } = await scenario(time, lab, 'lost-ack')
    expect(card.status).toBe('passed')
    const doubled = card.figures.duplicatesWithoutIdempotence!
    expect(doubled).toBeGreaterThan(0)
    expect(narrative + card.conclusion).toContain(`${doubled} duplicates`)
    // This dashboard's lab runs on a virtual clock: the figure says it is the model's.
    expect(card.conclusion).toMatch(/duplicates\. \[model \(virtual time\)\]$/)
    expect(narrative).toMatch(/^model \(virtual time\): /)
    // The lab the scenario ends on is the run without idempotence: the tile counts its duplicates.
    expect(s.correctness!.duplicates).toBe(doubled)
    const drops = entries(lab).filter((e) => e.fact.kind === 'ack-dropped' && e.atMs >= startedAt)
    expect(drops).toHaveLength(2)
    expect(s.totals.droppedAcks).toBe(1)
    expect(drops.at(-1)!.atMs).toBeGreaterThanOrEqual(card.links[0]!.atMs - 1)
    await time.runUntilSettled(lab.close())
  })

  const zombieQuotesJournal =
    "zombie: the aborted transactions and records it quotes are the journal's transactions that held the " +
    "zombie's records; ABORTED TXNS counts the journal's"
  it(zombieQuotesJournal, async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, seed: 11 }), {
      ratePerSec: 400,
      snapshotIntervalMs: 100,
      validateIntervalMs: 500,
    })
    await time.runUntilSettled(lab.start())
    const { card, narrative, s } = await scenario(time, lab, 'zombie')
    expect(card.status).toBe('passed')
    const transactions = card.figures['exactly_once_v2.abortedTransactions']!
    const records = card.figures['exactly_once_v2.abortedRecords']!
    expect(transactions).toBeGreaterThan(0)
    expect(narrative).toContain(`(${transactions}, one per producer it held): ${records} records aborted`)
    // Each run's figures name their lab (issue 34: 2 + 1 aborted in the narrative, ABORTED TXNS 1): the
    // first lab's are counted by no tile, the second's by the tile of the lab left on screen.
    const first = card.figures['exactly_once.abortedTransactions']!
    expect(narrative).toMatch(
      new RegExp(`exactly_once: .*\\(${first}, one per producer it held\\).*no tile counts these`),
    )
    expect(narrative).toMatch(/exactly_once_v2: .*the dashboard keeps on screen \(its ABORTED TXNS tile counts these/)
    expect(card.conclusion).toContain("its tiles count that lab's transactions, not the first lab's")
    // The lab it ends on ran exactly_once_v2: its journal's aborted transactions over the zombie's records.
    const all = entries(lab)
    const run = all.slice(
      all.findLastIndex((e) => e.fact.kind === 'scenario' && e.label.includes('a lab with exactly_once_v2')),
    )
    const zombie = run.filter(
      (e) =>
        e.fact.kind === 'txn' &&
        e.fact.outcome === 'aborted' &&
        (e.links ?? []).some((l) => card.links.some((c) => overlaps(l, c))),
    )
    expect(zombie).toHaveLength(transactions)
    expect(zombie.reduce((n, e) => n + (e.fact as Txn).outputRecords + (e.fact as Txn).changelogRecords, 0)).toBe(
      records,
    )
    // The tile is the journal's count of this run's aborts (the zombie's among them), teardowns left out.
    const aborted = run.filter(
      (e) => e.fact.kind === 'txn' && e.fact.outcome === 'aborted' && e.fact.cause !== 'teardown',
    )
    expect(s.txnTotals.aborted).toBe(aborted.length)
    expect(s.txnTotals.aborted).toBeGreaterThanOrEqual(transactions)
    await time.runUntilSettled(lab.close())
  })
})
