// The event log: the journal's entries, newest at the top, filtered by category (transactions off
// by default: there are many), each with a link that shows the whole lab at that moment. While the
// view is held on a moment it shows the log as of that moment and does not grow.

import { memo, useMemo, useState } from 'react'
import { JOURNAL_CATEGORIES, type JournalCategory, type JournalEntry } from '../lib/journal.ts'
import { markerKind } from './journal-markers.ts'
import { Panel } from './panel.tsx'
import { fmtClock } from './time-travel.ts'

/** Rows shown at most (the newest). */
export const EVENT_LOG_ROWS = 200

export const CATEGORY_NAMES: Record<JournalCategory, string> = {
  kills: 'kills',
  transactions: 'transactions',
  group: 'group',
  config: 'config',
  faults: 'faults',
  scenario: 'scenario',
}

export const DEFAULT_FILTER: ReadonlySet<JournalCategory> = new Set(
  JOURNAL_CATEGORIES.filter((c) => c !== 'transactions'),
)

/** Where a held view stands: entries after `atMs`, or read after `lastId`, are not shown. */
export interface LogHorizon {
  atMs: number
  lastId: number
}

/** The rows to show, newest first. */
export function eventLogRows(
  entries: readonly JournalEntry[],
  filter: ReadonlySet<JournalCategory>,
  horizon: LogHorizon | null,
  max = EVENT_LOG_ROWS,
): JournalEntry[] {
  const rows: JournalEntry[] = []
  for (let i = entries.length - 1; i >= 0 && rows.length < max; i--) {
    const e = entries[i]!
    if (!filter.has(e.category)) continue
    if (horizon && (e.atMs > horizon.atMs || e.id > horizon.lastId)) continue
    rows.push(e)
  }
  // Ids follow the order entries were journalled, which is not always the order of their moments
  // (a recovery is journalled when it completes, with the kill's time): newest moment first.
  return rows.sort((a, b) => b.atMs - a.atMs || b.id - a.id)
}

export interface EventLogPanelProps {
  entries: readonly JournalEntry[]
  /** Null while live. */
  horizon: LogHorizon | null
  /** The journal is not served by this lab (an older server). */
  unavailable: boolean
  error: string | null
  onShow: (atMs: number) => void
}

const EventRow = memo(function EventRow({ e, onShow }: { e: JournalEntry; onShow: (atMs: number) => void }) {
  const clock = fmtClock(e.atMs)
  return (
    <li
      className={`event-row event-${markerKind(e) ?? 'plain'}`}
      data-testid="event-row"
      data-category={e.category}
      data-kind={e.fact.kind}
      data-id={e.id}
    >
      <time className="num muted" dateTime={new Date(e.atMs).toISOString()}>
        {clock}
      </time>
      <span className={`event-cat cat-${e.category}`}>{CATEGORY_NAMES[e.category]}</span>
      <span className="event-label">{e.label}</span>
      <button
        type="button"
        className="link-button"
        onClick={() => onShow(e.atMs)}
        aria-label={`show the lab at ${clock}: ${e.label}`}
        data-testid="event-show"
      >
        show
      </button>
    </li>
  )
})

export const EventLogPanel = memo(function EventLogPanel({
  entries,
  horizon,
  unavailable,
  error,
  onShow,
}: EventLogPanelProps) {
  const [filter, setFilter] = useState<ReadonlySet<JournalCategory>>(DEFAULT_FILTER)
  const rows = useMemo(() => eventLogRows(entries, filter, horizon), [entries, filter, horizon])
  const toggle = (c: JournalCategory) =>
    setFilter((f) => {
      const next = new Set(f)
      if (next.has(c)) next.delete(c)
      else next.add(c)
      return next
    })
  return (
    <Panel
      title="Event log"
      hint="What happened to the lab, newest first, from its journal; “show” holds every panel on that moment."
      testId="event-log"
      className="event-log-panel"
    >
      <fieldset className="event-filters" aria-label="categories shown">
        {JOURNAL_CATEGORIES.map((c) => (
          <button
            key={c}
            type="button"
            className={filter.has(c) ? 'on' : ''}
            aria-pressed={filter.has(c)}
            onClick={() => toggle(c)}
            data-testid={`event-filter-${c}`}
          >
            {CATEGORY_NAMES[c]}
          </button>
        ))}
      </fieldset>
      {horizon ? (
        <p className="small muted event-held">
          As of {fmtClock(horizon.atMs)}: later entries appear when you return to Live.
        </p>
      ) : null}
      {unavailable ? (
        <p className="small muted">This lab serves no journal.</p>
      ) : rows.length === 0 ? (
        <p className="small muted">
          {filter.size === 0 ? 'No category selected.' : 'Nothing yet in the selected categories.'}
        </p>
      ) : (
        <ol className="event-list" aria-label="journal entries, newest first" data-testid="event-list">
          {rows.map((e) => (
            <EventRow key={e.id} e={e} onShow={onShow} />
          ))}
        </ol>
      )}
      {error ? (
        <p className="small bad" role="alert">
          journal: {error}
        </p>
      ) : null}
    </Panel>
  )
})
