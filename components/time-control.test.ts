import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import type { JournalEntry, JournalFact, JournalPage } from '../lib/journal.ts'
import { JOURNAL_CATEGORY_OF } from '../lib/journal.ts'
import { fixtureSnapshot } from './__fixtures__/lab-snapshot.ts'
import { DEFAULT_FILTER, eventLogRows, EventLogPanel } from './event-log-panel.tsx'
import { KEEP, mergeEntries, nextCursor, withoutCommits } from './journal-client.ts'
import { adjacentMarker, markerKind, placeMarkers, spanPct } from './journal-markers.ts'
import { renderLab } from './__fixtures__/render-lab.ts'
import { nextRead } from './use-journal.ts'
import { TimeControl } from './time-control.tsx'
import { fmtClock, LIVE, timeReducer, timeStatus, viewedSnapshot, type TimeView } from './time-travel.ts'

interface S {
  atMs: number
  name: string
}

const live = (atMs: number): S => ({ atMs, name: `live ${atMs}` })
const frame = (atMs: number, frameAtMs = atMs) => ({
  frameAtMs,
  snapshot: { atMs: frameAtMs, name: `frame ${frameAtMs}` },
})

function entry(id: number, atMs: number, fact: JournalFact, label: string = fact.kind): JournalEntry {
  return { id, atMs, category: JOURNAL_CATEGORY_OF[fact.kind], label, fact }
}
const kill = (id: number, atMs: number, workerId = 'worker-1') =>
  entry(id, atMs, { kind: 'kill', workerId, step: 4 }, `${workerId} killed at step 4`)
const txn = (id: number, atMs: number, outcome: 'committed' | 'aborted') =>
  entry(id, atMs, {
    kind: 'txn',
    outcome,
    transactionalId: 't',
    producerId: 1,
    epoch: 0,
    partitions: [],
    outputRecords: 0,
    changelogRecords: 0,
    offsetsCommitted: 0,
    beginMs: atMs - 100,
    cause: outcome === 'aborted' ? 'fenced' : null,
  })
const config = (id: number, atMs: number) =>
  entry(id, atMs, { kind: 'config', changes: { 'commit.interval.ms': 500 } }, 'commit.interval.ms=500')

describe('the time control state', () => {
  const start: TimeView<S> = LIVE

  it('Pause freezes the live snapshot and Live lets go of it', () => {
    const paused = timeReducer(start, { type: 'pause', live: live(1000) })
    expect(viewedSnapshot(paused, live(5000))?.name).toBe('live 1000')
    // Pausing again keeps the first moment.
    expect(timeReducer(paused, { type: 'pause', live: live(2000) })).toBe(paused)
    const back = timeReducer(paused, { type: 'live' })
    expect(viewedSnapshot(back, live(5000))?.name).toBe('live 5000')
  })

  it('a seek from live freezes at once and shows the frame when it comes', () => {
    const seeking = timeReducer(start, { type: 'seek', atMs: 300, live: live(1000) })
    expect(seeking).toMatchObject({ mode: 'held', atMs: 300, seekingMs: 300 })
    expect(viewedSnapshot(seeking, live(2000))?.name).toBe('live 1000')
    const shown = timeReducer(seeking, { type: 'frame', atMs: 300, frame: frame(300, 420) })
    expect(shown).toMatchObject({ mode: 'held', source: 'frame', atMs: 300, seekingMs: null })
    expect(viewedSnapshot(shown, live(2000))?.name).toBe('frame 420')
  })

  it('drops a frame that answers an earlier request, and one arriving after Live', () => {
    let s = timeReducer(start, { type: 'seek', atMs: 300, live: live(1000) })
    s = timeReducer(s, { type: 'seek', atMs: 600, live: live(1000) })
    expect(timeReducer(s, { type: 'frame', atMs: 300, frame: frame(300) })).toBe(s)
    const back = timeReducer(s, { type: 'live' })
    expect(timeReducer(back, { type: 'frame', atMs: 600, frame: frame(600) })).toBe(back)
  })

  it('keeps the shown snapshot and says why when a frame cannot be had', () => {
    const s = timeReducer(start, { type: 'seek', atMs: 300, live: live(1000) })
    const failed = timeReducer(s, { type: 'frame-failed', atMs: 300, error: 'nothing near' })
    expect(failed).toMatchObject({ mode: 'held', seekingMs: null, error: 'nothing near' })
    expect(viewedSnapshot(failed, live(2000))?.name).toBe('live 1000')
  })

  it('says where the view stands and how far behind the lab it is', () => {
    const at = new Date(2026, 0, 2, 14, 3, 27).getTime()
    expect(timeStatus(start, at)).toEqual({ title: 'Live', detail: null })
    const paused = timeReducer(start, { type: 'pause', live: live(at) })
    expect(timeStatus(paused, at + 12_400)).toEqual({ title: 'Paused at 14:03:27', detail: 'lab running, 12 s behind' })
    const past = timeReducer(timeReducer(paused, { type: 'seek', atMs: at, live: live(at) }), {
      type: 'frame',
      atMs: at,
      frame: frame(at),
    })
    expect(timeStatus(past, at + 3000).title).toBe('Viewing the past: 14:03:27')
    expect(timeStatus(past, at + 3000).detail).toContain('commands act on the live lab')
    expect(fmtClock(new Date(2026, 0, 2, 9, 5, 7).getTime())).toBe('09:05:07')
  })
})

describe('the scrubber markers', () => {
  const span = { fromMs: 0, toMs: 100_000 }

  it('marks kills, aborts, fencings, faults, config changes and scenario steps, not commits', () => {
    expect(markerKind(kill(1, 10))).toBe('kill')
    expect(markerKind(txn(2, 10, 'aborted'))).toBe('abort')
    expect(markerKind(txn(3, 10, 'committed'))).toBeNull()
    expect(markerKind(config(4, 10))).toBe('config')
    expect(markerKind(entry(5, 10, { kind: 'fenced', workerId: 'w', by: 'epoch', detail: '' }))).toBe('fence')
    expect(markerKind(entry(6, 10, { kind: 'scenario', name: 'zombie', phase: 'step' }))).toBe('scenario')
    expect(markerKind(entry(7, 10, { kind: 'generation', generation: 2, members: [], assignment: {} }))).toBeNull()
    expect(markerKind(entry(8, 10, { kind: 'note', text: 'cluster unreachable', marker: 'outage' }))).toBe('fault')
    expect(markerKind(entry(9, 10, { kind: 'note', text: 'rebalance' }))).toBeNull()
  })

  it('places markers along the span and merges close ones under the most telling', () => {
    const markers = placeMarkers(
      [
        config(1, 10_000),
        txn(2, 50_000, 'aborted'),
        kill(3, 50_300),
        txn(4, 50_500, 'aborted'),
        txn(5, 60_000, 'committed'),
        config(6, 200_000),
      ],
      span,
    )
    expect(markers.map((m) => [m.kind, m.pct, m.count])).toEqual([
      ['config', 10, 1],
      ['kill', 50.3, 3],
    ])
    expect(markers[1]).toMatchObject({ atMs: 50_300, entryId: 3, label: 'worker-1 killed at step 4 (+2 more here)' })
    expect(spanPct(-5, span)).toBe(0)
    expect(spanPct(5, { fromMs: 5, toMs: 5 })).toBe(100)
  })

  it('finds the previous and next marker', () => {
    const markers = placeMarkers([config(1, 10_000), kill(2, 40_000), config(3, 70_000)], span)
    expect(adjacentMarker(markers, 40_000, 'previous')?.entryId).toBe(1)
    expect(adjacentMarker(markers, 40_000, 'next')?.entryId).toBe(3)
    expect(adjacentMarker(markers, 5_000, 'previous')).toBeNull()
  })
})

describe('the journal as the dashboard keeps it', () => {
  const page = (entries: JournalEntry[], more: boolean, lastId: number): JournalPage => ({
    entries,
    more,
    span: { sinceMs: 0, fromMs: 0, toMs: 1, lastId, size: lastId },
  })

  it('asks after the last entry of a partial page, after the span of a complete one', () => {
    expect(nextCursor(0, page([kill(3, 1)], true, 90))).toBe(3)
    expect(nextCursor(0, page([kill(3, 1)], false, 90))).toBe(90)
    expect(nextCursor(95, page([], false, 90))).toBe(95)
  })

  it('reads from the start only for another journal, not when a live snapshot lags the last page', () => {
    const span = (sinceMs: number, lastId: number) => ({ ...page([], false, lastId).span, sinceMs })
    const read = (sinceMs: number | null) => ({ sinceMs, commits: 'none' as const })
    expect(nextRead(read(null), 0, span(5, 10), 'none')).toBe('first')
    expect(nextRead(read(5), 12, span(5, 10), 'none')).toBe('none')
    expect(nextRead(read(5), 12, span(5, 13), 'none')).toBe('after-cursor')
    expect(nextRead(read(5), 12, span(9, 3), 'none')).toBe('first')
    expect(nextRead(read(5), 12, span(9, 40), 'none')).toBe('first')
  })

  it('reads a window of commits once a page lists them, and after the cursor from then on', () => {
    const span = { ...page([], false, 20).span, sinceMs: 5 }
    expect(nextRead({ sinceMs: 5, commits: 'none' }, 12, span, 'all')).toBe('commits-window')
    expect(nextRead({ sinceMs: 5, commits: 'all' }, 12, span, 'all')).toBe('after-cursor')
    expect(nextRead({ sinceMs: 5, commits: 'all' }, 20, span, 'all')).toBe('none')
    // Another journal: from the start, whatever was read of the last one.
    expect(nextRead({ sinceMs: 4, commits: 'all' }, 12, span, 'all')).toBe('first')
  })

  it('drops committed transactions only, before a fresh window of them is merged in', () => {
    const held = [kill(1, 10), txn(2, 20, 'committed'), txn(3, 30, 'aborted'), config(4, 40)]
    expect(withoutCommits(held).map((e) => e.id)).toEqual([1, 3, 4])
  })

  it('merges by id, oldest first, drops what was compacted away and keeps each kind within bounds', () => {
    const merged = mergeEntries([kill(1, 10), kill(2, 20)], [kill(2, 20), config(3, 30)], 15)
    expect(merged.map((e) => e.id)).toEqual([2, 3])
    const commits = Array.from({ length: KEEP.committed + 50 }, (_, i) => txn(100 + i, 100 + i, 'committed'))
    const kept = mergeEntries([kill(1, 50), txn(2, 60, 'aborted')], commits, 0)
    expect(kept.length).toBe(KEEP.committed + 2)
    expect(kept[0]!.id).toBe(1)
    expect(kept[1]!.id).toBe(2)
    expect(kept[kept.length - 1]!.id).toBe(100 + KEEP.committed + 49)
  })
})

describe('the event log', () => {
  const entries = [kill(1, 1000), txn(2, 2000, 'committed'), config(3, 3000), kill(4, 4000, 'worker-2')]

  it('lists newest first without transactions by default, and as of a held moment', () => {
    expect(eventLogRows(entries, DEFAULT_FILTER, null).map((e) => e.id)).toEqual([4, 3, 1])
    expect(eventLogRows(entries, new Set(['config']), null).map((e) => e.id)).toEqual([3])
    expect(eventLogRows(entries, DEFAULT_FILTER, { atMs: 3500, lastId: 10 }).map((e) => e.id)).toEqual([3, 1])
    expect(eventLogRows(entries, DEFAULT_FILTER, { atMs: 9000, lastId: 3 }).map((e) => e.id)).toEqual([3, 1])
  })

  it('renders rows with a link to their moment and the filters as toggle buttons', () => {
    const html = renderToString(
      createElement(EventLogPanel, { entries, horizon: null, unavailable: false, error: null, onShow: () => {} }),
    )
    expect(html.match(/data-testid="event-row"/g)?.length).toBe(3)
    expect(html).toMatch(/aria-pressed="false"[^>]*data-testid="event-filter-transactions"/)
    expect(html).toMatch(/aria-pressed="true"[^>]*data-testid="event-filter-kills"/)
    expect(html).toContain('aria-label="show the lab at ')
  })
})

describe('the dashboard with its time control', () => {
  const snapshot = {
    ...fixtureSnapshot,
    journal: {
      sinceMs: fixtureSnapshot.atMs - 60_000,
      fromMs: fixtureSnapshot.atMs - 60_000,
      toMs: fixtureSnapshot.atMs,
      lastId: 4,
      size: 4,
    },
  }
  const noop = () => {}

  it('shows a held view in the header area and marks it on the dashboard', () => {
    const state = timeReducer(LIVE, { type: 'pause', live: snapshot })
    const control = createElement(TimeControl, {
      state,
      liveAtMs: snapshot.atMs + 5000,
      span: snapshot.journal,
      entries: [kill(1, snapshot.atMs - 30_000)],
      onPause: noop,
      onLive: noop,
      onSeek: noop,
      onSeekSoon: noop,
    })
    const html = renderLab(snapshot, { timeControl: control, view: 'pause' })
    expect(html).toContain(`Paused at ${fmtClock(snapshot.atMs)}`)
    expect(html).toContain('lab running, 5 s behind')
    expect(html).toContain('data-view="pause"')
    expect(html).toMatch(/<input[^>]*type="range"[^>]*aria-valuetext="[^"]+, 5 s before now"/)
    expect(html).toMatch(/data-testid="scrub-marker" data-kind="kill"/)
  })

  it('says when the lab serves no journal', () => {
    const html = renderToString(
      createElement(TimeControl, {
        state: LIVE,
        liveAtMs: 1,
        span: undefined,
        entries: [],
        onPause: noop,
        onLive: noop,
        onSeek: noop,
        onSeekSoon: noop,
      }),
    )
    expect(html).toContain('This lab serves no journal')
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*data-testid="time-live"/)
  })
})
