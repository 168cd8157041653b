'use client'
// The one live lab every page of the dashboard reads: one socket, one snapshot, the time control
// (Pause, Live, the scrubber) and the journal. It lives in the lab's layout, so moving between the
// pages keeps the connection, the held moment and the journal already read.

import { usePathname } from 'next/navigation'
import { createContext, type ReactNode, useContext, useEffect, useMemo, useRef } from 'react'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { liveViewOf } from '../lib/live-views.ts'
import type { LogHorizon } from './event-log-panel.tsx'
import type { CommitsRead } from './journal-client.ts'
import { FIRST_DATA_MARK } from './perf-marks.ts'
import type { SendCommand } from './use-command.ts'
import { type UseJournal, useJournal } from './use-journal.ts'
import { type ConnectionState, useLab } from './use-lab.ts'
import { type UseTimeTravel, useTimeTravel } from './use-time-travel.ts'

/** What the panels show: the live lab, or a moment held by the time control. */
export type LabViewMode = 'live' | 'pause' | 'frame'

export interface LabContextValue {
  /** The snapshot every panel renders: the live one, or the held moment. */
  snapshot: LabSnapshot | null
  /** The newest snapshot from the socket, whatever is shown. */
  live: LabSnapshot | null
  connection: ConnectionState
  send: SendCommand
  time: UseTimeTravel
  journal: UseJournal
  /** Null while live; where a held view stands in the journal. */
  horizon: LogHorizon | null
  view: LabViewMode
}

/** The pages that list committed transactions from the journal; the others read it without them. */
const PAGES_LISTING_COMMITS: ReadonlySet<string> = new Set(['/journal'])

const LabContext = createContext<LabContextValue | null>(null)

export function LabProvider({ children }: { children: ReactNode }) {
  const pathname = usePathname()
  const liveView = liveViewOf(pathname)
  const { snapshot, connection, send } = useLab(liveView)
  const hasData = snapshot !== null
  useEffect(() => {
    if (hasData && performance.getEntriesByName(FIRST_DATA_MARK).length === 0) performance.mark(FIRST_DATA_MARK)
  }, [hasData])
  const time = useTimeTravel(snapshot)
  const commits: CommitsRead = PAGES_LISTING_COMMITS.has(pathname ?? '') ? 'all' : 'none'
  const journal = useJournal(snapshot?.journal, commits)
  // A held view shows the log as it was read when the view was held: later reads do not change it.
  const cursor = useRef(journal.cursor)
  cursor.current = journal.cursor
  const held = time.state.mode === 'held' ? time.state.shown : null
  const horizon = useMemo<LogHorizon | null>(() => (held ? { atMs: held.atMs, lastId: cursor.current } : null), [held])
  const view: LabViewMode = time.state.mode === 'held' ? time.state.source : 'live'
  // Paused on a page that was sent less than the next draws (lib/live-views.ts): the next page
  // shows the held moment's whole frame, read from the journal.
  const pausedAtMs = time.state.mode === 'held' && time.state.source === 'pause' ? time.state.atMs : null
  const { seek } = time
  const viewShown = useRef(liveView)
  useEffect(() => {
    if (viewShown.current === liveView) return
    viewShown.current = liveView
    if (pausedAtMs !== null) seek(pausedAtMs)
  }, [liveView, pausedAtMs, seek])
  const value = useMemo<LabContextValue>(
    () => ({ snapshot: time.viewed, live: snapshot, connection, send, time, journal, horizon, view }),
    [time, snapshot, connection, send, journal, horizon, view],
  )
  return <LabContext.Provider value={value}>{children}</LabContext.Provider>
}

/** The lab of the surrounding layout; a page outside it is a programming error. */
export function useLabContext(): LabContextValue {
  const lab = useContext(LabContext)
  if (lab === null) throw new Error('useLabContext: the page is not inside the lab layout (app/(lab)/layout.tsx)')
  return lab
}
