import { describe, expect, it } from 'vitest'
import type { LabSnapshot, LogCell, RecordTrace } from '../lib/lab-protocol.ts'
import { applyPatch, diff } from '../lib/live-delta.ts'
import { fixtureAtLeastOnce, fixtureSnapshot } from './__fixtures__/lab-snapshot.ts'
import { ledgerRows } from './duplicate-ledger-panel.tsx'
import { renderLab } from './__fixtures__/render-lab.ts'
import { boundaries, boundarySlot, LOG_SLOTS, raiseHighWatermark, topicKind } from './partition-log-panel.tsx'
import { epochSteps } from './producers-view.tsx'
import { traceRows } from './record-trace-view.tsx'

function render(snapshot: LabSnapshot = fixtureSnapshot): string {
  return renderLab(snapshot, { pages: ['scenarios', 'transactions', 'partitions'] })
}

function count(html: string, re: RegExp): number {
  return html.match(re)?.length ?? 0
}

/** Expects each piece of markup (an attribute, say) to occur this many times. */
function expectCounts(html: string, counts: Record<string, number>): void {
  for (const [markup, n] of Object.entries(counts)) expect(html.split(markup).length - 1, markup).toBe(n)
}

const cell = (offset: number): LogCell => ({
  offset,
  key: 'k',
  producerId: 1,
  epoch: 0,
  sequence: offset,
  control: null,
  outcome: 'committed',
  source: null,
})

describe('the scenarios panel', () => {
  it('draws a card per scenario with a keyboard-reachable Run button', () => {
    const html = render()
    expect(html).toContain('data-testid="scenario-crash-before-commit"')
    expect(html).toMatch(
      new RegExp(
        /<button type="button" data-testid="run-scenario-crash-before-commit-eos" /.source +
          /aria-label="Run scenario: Crash before commit, exactly_once"/.source,
      ),
    )
  })

  it('shows the narrative, each expectation with holds or fails, and the conclusion', () => {
    const html = render()
    expect(html).toMatch(/data-testid="scenario-view"[^>]*data-status="passed"|data-status="passed"[^>]*/)
    expect(html).toContain('+1.8 s')
    expect(count(html, /data-testid="scenario-expectation" data-holds="true"/g)).toBe(3)
    expect(html).toContain('The crash aborted its open transaction')
    const failed = render({
      ...fixtureSnapshot,
      scenario: {
        ...fixtureSnapshot.scenario!,
        status: 'failed',
        expectations: [{ claim: '0 duplicates', holds: false }],
      },
    })
    expect(failed).toContain('data-holds="false"')
    expect(failed).toContain('fails')
  })

  it('while a scenario runs: no verdict yet, and every Run button is disabled', () => {
    const html = render({
      ...fixtureSnapshot,
      scenario: { ...fixtureSnapshot.scenario!, status: 'running', expectations: [], conclusion: null },
    })
    expect(html).not.toContain('data-testid="scenario-verdict"')
    expect(html).toMatch(/<button type="button" data-testid="run-scenario-crash-before-commit"[^>]*disabled=""/)
    expect(html).toContain('Running…')
  })
})

describe('the partition log', () => {
  it('always draws the same number of slots, cells coloured by outcome and markers distinct', () => {
    const html = render()
    expect(count(html, /class="log-slot"/g)).toBe(LOG_SLOTS)
    expect(count(html, /data-testid="log-cell"/g)).toBe(Math.min(LOG_SLOTS, fixtureSnapshot.partitionLog!.cells.length))
    expect(html).toMatch(/data-outcome="aborted" data-control="ABORT"/)
    expect(html).toMatch(/data-outcome="committed" data-control="COMMIT"/)
    expect(html).toMatch(/data-outcome="pending" data-control="none"/)
    expect(html).toMatch(/data-outcome="none" data-control="none"/)
    const short = render({
      ...fixtureSnapshot,
      partitionLog: { ...fixtureSnapshot.partitionLog!, cells: fixtureSnapshot.partitionLog!.cells.slice(0, 10) },
    })
    expect(count(short, /class="log-slot"/g)).toBe(LOG_SLOTS)
    expect(count(short, /data-testid="log-cell"/g)).toBe(10)
  })

  it('marks the LSO, the high watermark and both consumers', () => {
    const html = render()
    expect(html).toMatch(/data-kinds="lso"/)
    expect(html).toMatch(/data-kinds="hw"/)
    expect(html).toMatch(/data-kinds="rc"/)
    expect(html).toMatch(/data-kinds="ru"/)
    expect(html).toContain('data-testid="log-partition-name">output<!-- -->-<!-- -->0')
  })

  it('places a boundary on the first cell at or past its offset, past the end, or off the left', () => {
    const cells = [cell(10), cell(11), cell(13)]
    expect(boundarySlot(11, cells)).toEqual({ slot: 1, before: false })
    expect(boundarySlot(12, cells)).toEqual({ slot: 2, before: false })
    expect(boundarySlot(14, cells)).toEqual({ slot: 3, before: false })
    expect(boundarySlot(3, cells)).toEqual({ slot: 0, before: true })
    expect(boundarySlot(3, [])).toEqual({ slot: 0, before: false })
    const log = fixtureSnapshot.partitionLog!
    const marks = boundaries(log, log.cells)
    expect(marks.find((m) => m.kind === 'hw')!.slot).toBe(log.cells.length)
    expect(marks.find((m) => m.kind === 'lso')!.slot).toBe(log.cells.length - 4)
  })

  it('raises the HW tag when the LSO is one cell before it', () => {
    const log = fixtureSnapshot.partitionLog!
    expect(raiseHighWatermark(boundaries(log, log.cells))).toBe(false)
    expect(raiseHighWatermark(boundaries({ ...log, lastStableOffset: log.highWatermark - 1 }, log.cells))).toBe(true)
  })

  it('knows the three topics by name', () => {
    expect(topicKind('input')).toBe('input')
    expect(topicKind('output')).toBe('output')
    expect(topicKind('eoscope-aggregates-changelog')).toBe('changelog')
  })

  it('says so when the lab has sent no partition log', () => {
    expect(render({ ...fixtureSnapshot, partitionLog: undefined })).toContain('has not sent a partition log yet')
  })
})

describe('the producers view', () => {
  it('draws a row per transactional.id with its epochs, fencings and sequences', () => {
    const html = render()
    expectCounts(html, {
      'data-testid="producer-row"': 2,
      'data-testid="epoch-step"': 4,
      'data-testid="fence-mark"': 1,
    })
    expect(html).toContain('5811')
  })

  it('lays epochs out as steps, each until the next begins', () => {
    const steps = epochSteps(
      [
        { epoch: 2, atMs: 500 },
        { epoch: 0, atMs: 0 },
      ],
      0,
      1000,
    )
    expect(steps).toEqual([
      { epoch: 0, left: 0, width: 50, level: 0 },
      { epoch: 2, left: 50, width: 50, level: 1 },
    ])
  })
})

describe('the duplicate ledger', () => {
  it('lists keys worst first with their causes', () => {
    const html = render(fixtureAtLeastOnce)
    expect(count(html, /data-testid="ledger-row"/g)).toBe(2)
    expect(html).toContain('kill worker-3 (rec-1)')
    expect(ledgerRows(fixtureSnapshot.duplicateLedger!).map((e) => e.key)).toEqual(['k4', 'k1'])
  })

  it('says what an empty ledger means', () => {
    expect(render({ ...fixtureSnapshot, duplicateLedger: [] })).toContain('data-testid="ledger-empty"')
  })
})

describe('the traced records', () => {
  it('shows the five steps of each trace with times, and the step a crash hit', () => {
    const html = render()
    expectCounts(html, { 'data-testid="trace-row"': 3, 'data-testid="trace-step"': 15, 'data-state="crashed"': 1 })
    expect(html).toContain('worker died')
    expect(html).toContain('+20 ms')
  })

  it('keeps crashed traces first', () => {
    const t = (id: string, at: number, crashedAtStep: RecordTrace['crashedAtStep']): RecordTrace => ({
      id,
      key: id,
      partition: 0,
      offset: at,
      workerId: 'w',
      steps: [{ step: 1, atMs: at }],
      crashedAtStep,
      outcome: 'in-flight',
    })
    const rows = traceRows([t('a', 3, null), t('b', 2, null)], [t('c', 1, 4)], 2)
    expect(rows.map((r) => r.id)).toEqual(['c', 'a'])
  })
})

describe('the deep views on the wire', () => {
  it('send a sliding partition log and growing producer timelines as small deltas that rebuild the snapshot', () => {
    const log = fixtureSnapshot.partitionLog!
    const last = log.cells[log.cells.length - 1]!
    const more = [1, 2, 3].map((i) => ({ ...cell(last.offset + i), outcome: 'pending' as const }))
    const prev = fixtureSnapshot
    const next: LabSnapshot = {
      ...prev,
      partitionLog: {
        ...log,
        cells: [
          ...log.cells.slice(3).map((c) => (c.outcome === 'pending' ? { ...c, outcome: 'committed' as const } : c)),
          ...more,
        ],
        highWatermark: log.highWatermark + 3,
      },
      producers: prev.producers!.map((p, i) =>
        i === 0
          ? {
              ...p,
              epochs: [...p.epochs, { epoch: 3, atMs: prev.atMs }],
              lastSequence: p.lastSequence.map((x) => ({ ...x, sequence: x.sequence + 3 })),
            }
          : p,
      ),
    }
    const patch = diff(prev, next)!
    expect(applyPatch(prev, patch)).toEqual(next)
    expect(JSON.stringify(patch).length).toBeLessThan(JSON.stringify(next.partitionLog).length / 4)
  })
})
