// Which lab runs, and whether an evidence card's records can still be read: lab identities unique
// per lab and per server start, a refusal that names the lab the records were in and what replaced
// it (none for the running lab), and a card's records kept for 30 minutes while its lab runs,
// released after, gone once its lab is replaced or retention deleted every record it links to.

import { describe, expect, it } from 'vitest'
import type { EvidenceCard } from '../../lib/evidence.ts'
import { EVIDENCE_PINNED_MS, evidenceRecords, type RecordsView } from './evidence-records.ts'
import { LabIdentities, recordsNamed } from './lab-identity.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import { EvidenceShelf } from './lab-scenario.ts'

const rt = (groupId = 'eoscope', startedAtMs = 0) => ({ groupId, startedAtMs })

describe('lab identities', () => {
  it('gives every lab its own id, unique across server starts, and remembers how each ended', () => {
    const labs = new LabIdentities(1_765_000_000_000)
    const first = labs.begin(rt('eoscope', 1_000))
    expect(first).toEqual({
      id: `${(1_765_000_000_000).toString(36)}-1`,
      generation: 1,
      applicationId: 'eoscope',
      startedAtMs: 1_000,
    })
    labs.end('a reset replaced it', 5_000)
    const runtime = rt()
    const second = labs.begin(runtime)
    expect(second.generation).toBe(2)
    expect(labs.current).toBe(second)
    expect(labs.of(runtime)).toBe(second)
    expect(labs.endedLab(first.id)).toEqual({ lab: first, endedAtMs: 5_000, how: 'a reset replaced it' })
    // Another server start: the same generation is another id.
    expect(new LabIdentities(1_765_000_999_000).begin(rt()).id).not.toBe(first.id)
  })

  it('answers the running lab, and refuses another naming the lab the records were in and what replaced it', () => {
    const labs = new LabIdentities(0)
    const old = labs.begin(rt('eoscope', Date.UTC(2026, 11, 6, 4, 10, 5)))
    labs.end('the isolation scenario replaced it with a lab of its own', Date.UTC(2026, 11, 6, 4, 19, 10))
    const now = labs.begin(rt())
    expect(labs.refusal(now.id, 'the records input-0 [295, 579)')).toBeNull()
    expect(labs.refusal(old.id, recordsNamed({ topic: 'input', partition: 0, from: 295, to: 579 }))).toBe(
      'the records input-0 [295, 579) were in lab 1 (id 0-1, started 04:10:05 UTC), which is no longer the running ' +
        'lab: the isolation scenario replaced it with a lab of its own at 04:19:10 UTC, and the running lab is lab 2 ' +
        '(id 0-2). Its records can no longer be read here; the same offsets in the running lab are other records.',
    )
    expect(labs.refusal('zz-4', recordsNamed({ topic: 'output', partition: 3 }))).toContain(
      'the records of output-3 were asked of lab zz-4, which is not the running lab: the running lab is lab 2',
    )
  })
})

function card(over: Partial<EvidenceCard> = {}): EvidenceCard {
  return {
    id: 'isolation-1',
    name: 'isolation',
    title: 'read_committed against read_uncommitted',
    status: 'passed',
    startedAtMs: 0,
    endedAtMs: 10_000,
    expectations: [],
    figures: {},
    conclusion: null,
    error: null,
    links: [
      { label: 'a', topic: 'output', partition: 3, fromOffset: 100, toOffset: 180, atMs: 9_000, lab: 'x-5' },
      { label: 'b', topic: 'output', partition: 4, fromOffset: 40, toOffset: 60, atMs: 9_000, lab: 'x-5' },
    ],
    lab: { id: 'x-5', generation: 5, applicationId: 'eoscope', startedAtMs: 0 },
    ...over,
  }
}

function view(over: Partial<RecordsView> = {}): RecordsView {
  return { nowMs: 20_000, running: 'x-5', ended: () => undefined, logStart: () => 0, ...over }
}

describe("an evidence card's records", () => {
  it('are kept for 30 minutes after the run while its lab runs, then released', () => {
    expect(evidenceRecords(card(), view())).toEqual({ state: 'kept', untilMs: 10_000 + EVIDENCE_PINNED_MS })
    expect(evidenceRecords(card(), view({ nowMs: 10_000 + EVIDENCE_PINNED_MS }))!.state).toBe('kept')
    expect(evidenceRecords(card(), view({ nowMs: 10_001 + EVIDENCE_PINNED_MS }))).toEqual({
      state: 'released',
      sinceMs: 10_000 + EVIDENCE_PINNED_MS,
    })
  })

  it('are gone once another lab runs, saying what replaced theirs and when', () => {
    const ended = { lab: card().lab!, endedAtMs: 15_000, how: 'a reset replaced it' }
    expect(evidenceRecords(card(), view({ running: 'x-6', ended: () => ended }))).toEqual({
      state: 'gone',
      sinceMs: 15_000,
      why: 'a reset replaced it',
    })
    // Within the 30 minutes too: a replaced lab's records are not read, whatever retention kept.
    expect(evidenceRecords(card(), view({ running: 'x-6' }))).toMatchObject({ state: 'gone', why: 'it no longer runs' })
    expect(evidenceRecords(card(), view({ running: null }))!.state).toBe('gone')
    expect(evidenceRecords(card({ lab: null }), view())).toMatchObject({ state: 'gone', sinceMs: 10_000 })
  })

  it('are gone once retention deleted every record the card links to, from when that was first seen', () => {
    const partly = view({ logStart: (_t, p) => (p === 3 ? 500 : 50) })
    expect(evidenceRecords(card(), partly)!.state).toBe('kept')
    const all = view({ nowMs: 40_000, logStart: () => 500 })
    const first = evidenceRecords(card(), all)
    expect(first).toEqual({ state: 'gone', sinceMs: 40_000, why: 'retention deleted them' })
    expect(evidenceRecords(card(), { ...all, nowMs: 50_000 }, first)).toEqual(first)
  })

  it('say nothing for a card that names no lab', () => {
    expect(evidenceRecords(card({ lab: undefined }), view())).toBeUndefined()
  })
})

describe('the evidence shelf', () => {
  it("stamps the lab on a card and its links, and makes a new card object only when its records' state changes", () => {
    const labs = new LabIdentities(0)
    const runtime = rt('eoscope', 0)
    const lab = labs.begin(runtime)
    const shelf = new EvidenceShelf((r) => labs.of(r))
    shelf.begin()
    shelf.add(
      card({ lab: undefined, links: card().links.map(({ lab: _, ...l }) => l) }),
      runtime as unknown as LabRuntime,
    )
    const at = (nowMs: number): RecordsView => ({
      nowMs,
      running: labs.current?.id ?? null,
      ended: (id) => labs.endedLab(id),
      logStart: () => 0,
    })
    const [first] = shelf.list(at(20_000))
    expect(first!.lab).toEqual(lab)
    expect(first!.links.map((l) => l.lab)).toEqual([lab.id, lab.id])
    expect(first!.records!.state).toBe('kept')
    expect(shelf.list(at(21_000))[0]).toBe(first)
    labs.end('a reset replaced it', 30_000)
    labs.begin(rt())
    const [after] = shelf.list(at(31_000))
    expect(after).not.toBe(first)
    expect(after!.records).toEqual({ state: 'gone', sinceMs: 30_000, why: 'a reset replaced it' })
  })
})
