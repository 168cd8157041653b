// The overview's last journal lines: what just happened to the lab (kills, recoveries, fences,
// settings), newest first, without the transactions (the strip above shows those).

import Link from 'next/link'
import { memo, useMemo } from 'react'
import type { JournalEntry } from '../lib/journal.ts'
import { DEFAULT_FILTER, eventLogRows, type LogHorizon } from './event-log-panel.tsx'
import { Panel } from './panel.tsx'
import { fmtClock } from './time-travel.ts'

export interface JournalTailProps {
  entries: readonly JournalEntry[]
  horizon: LogHorizon | null
  /** Lines shown at most. */
  lines?: number
}

export const JournalTail = memo(function JournalTail({ entries, horizon, lines = 4 }: JournalTailProps) {
  const rows = useMemo(() => eventLogRows(entries, DEFAULT_FILTER, horizon, lines), [entries, horizon, lines])
  return (
    <Panel
      title="Just happened"
      hint={
        <>
          The journal&apos;s last lines, newest first · <Link href="/journal">the whole journal</Link>
        </>
      }
      testId="journal-tail"
    >
      {rows.length === 0 ? (
        <p className="muted small empty">Nothing yet: kill a worker or change a setting.</p>
      ) : (
        <ol className="journal-tail" aria-label="the journal's last lines, newest first">
          {rows.map((e) => (
            <li key={e.id} data-testid="journal-tail-row" data-kind={e.fact.kind}>
              <time className="num muted" dateTime={new Date(e.atMs).toISOString()}>
                {fmtClock(e.atMs)}
              </time>{' '}
              {e.label}
            </li>
          ))}
        </ol>
      )}
    </Panel>
  )
})
