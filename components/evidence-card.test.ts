// An evidence card names the lab it came from and says whether its records can still be read (kept
// until a time, released, gone and why); its links carry that lab to the partition log and the
// message browser. The partition log shows a refusal (another lab's records asked for) in place of
// any records.

import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import type { EvidenceCard, PartitionLogView as PartitionLog } from '../lib/lab-protocol.ts'
import { EvidencePanel, recordsText } from './evidence-card.tsx'
import { PartitionLogView } from './partition-log-panel.tsx'
import { fmtClock } from './time-travel.ts'

const LAB = { id: 'mj4b2c1k-2', generation: 2, applicationId: 'eoscope', startedAtMs: Date.UTC(2026, 11, 6, 4, 10) }

function card(id: string, records: EvidenceCard['records']): EvidenceCard {
  return {
    id,
    name: 'crash-before-commit-eos',
    title: 'The same crash under exactly_once',
    status: 'passed',
    startedAtMs: LAB.startedAtMs,
    endedAtMs: LAB.startedAtMs + 20_000,
    expectations: [{ claim: '0 duplicates', holds: true }],
    figures: {},
    conclusion: null,
    error: null,
    links: [
      {
        label: 'replay window: input-0',
        topic: 'input',
        partition: 0,
        fromOffset: 295,
        toOffset: 579,
        atMs: 0,
        lab: LAB.id,
      },
    ],
    lab: LAB,
    records,
  }
}

const render = (cards: EvidenceCard[]) =>
  renderToString(createElement(EvidencePanel, { cards, send: async () => ({ ok: true as const }) }))

describe('an evidence card', () => {
  it('names its lab, and its links carry it to the partition log and the message browser', () => {
    const until = LAB.startedAtMs + 20_000 + 30 * 60_000
    const html = render([card('crash-before-commit-eos-1', { state: 'kept', untilMs: until })])
    expect(html).toContain(`from lab 2, started ${fmtClock(LAB.startedAtMs)}`)
    expect(html).toContain(`data-lab="${LAB.id}"`)
    expect(html).toContain('data-records="kept"')
    expect(html).toContain(`records kept until ${fmtClock(until)}`)
    expect(html).toContain(`msg.lab=${LAB.id}`)
  })

  it('says when its records are released, and when they are gone and why', () => {
    const since = LAB.startedAtMs + 60 * 60_000
    expect(recordsText({ state: 'released', sinceMs: since })).toBe(
      `records no longer held from retention since ${fmtClock(since)}: the oldest may be deleted`,
    )
    const html = render([
      card('crash-before-commit-eos-1', { state: 'gone', sinceMs: since, why: 'a reset replaced it' }),
    ])
    expect(html).toContain('data-records="gone"')
    expect(html).toContain(`records gone: a reset replaced it (${fmtClock(since)})`)
    expect(html).not.toContain('records kept')
  })

  it('shows no records line for a card without links', () => {
    const c = { ...card('crash-before-commit-eos-1', { state: 'kept' as const, untilMs: 0 }), links: [] }
    const html = render([c])
    expect(html).toContain('from lab 2')
    expect(html).not.toContain('data-testid="evidence-records"')
  })
})

describe('the partition log', () => {
  it("shows a refusal instead of any lab's records", () => {
    const log: PartitionLog = {
      topic: 'input',
      partition: 0,
      logStartOffset: 0,
      lastStableOffset: 900,
      highWatermark: 900,
      cells: [],
      readCommittedPosition: 900,
      readUncommittedPosition: 900,
      refusal: 'the records of input-0 from 295 were in lab 2, which is no longer the running lab',
    }
    const html = renderToString(
      createElement(PartitionLogView, { log, partitions: 6, send: async () => ({ ok: true as const }) }),
    )
    expect(html).toContain('data-testid="log-refusal"')
    expect(html).toContain('which is no longer the running lab')
    expect(html).not.toContain('data-testid="log-grid"')
    expect(html).not.toContain('data-testid="log-figures"')
  })
})
