'use client'
// What every page of the live lab shares, around the page: the header with the pages, the time
// control (Pause, Live, the scrubber), the headline figures and a failure banner when a task stopped.

import type { ReactNode } from 'react'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { FailBanner } from './fail-banner.tsx'
import { HeaderBar } from './header-bar.tsx'
import { type LabViewMode, useLabContext } from './lab-context.tsx'
import { StatRow } from './stat-row.tsx'
import { TimeControl } from './time-control.tsx'
import type { SendCommand } from './use-command.ts'
import type { ConnectionState } from './use-lab.ts'

export interface LabFrameProps {
  snapshot: LabSnapshot | null
  connection: ConnectionState
  send: SendCommand
  /** The time control, under the header. */
  timeControl?: ReactNode
  view?: LabViewMode
  /** The page. */
  children: ReactNode
}

const NO_NOTES: string[] = []
const NO_STOPPED: NonNullable<LabSnapshot['stoppedTasks']> = []

/** The frame of every lab page for one snapshot; pure rendering, used live and in tests. */
export function LabFrame({ snapshot, connection, send, timeControl, view = 'live', children }: LabFrameProps) {
  return (
    <div className="app">
      <HeaderBar
        backend={snapshot?.backend ?? null}
        notes={snapshot?.notes ?? NO_NOTES}
        connection={connection}
        health={snapshot?.health ?? null}
        applicationId={snapshot?.applicationId ?? null}
        network={snapshot?.network ?? null}
        nowMs={snapshot?.atMs ?? 0}
      />
      {snapshot === null ? null : timeControl}
      {snapshot === null ? (
        <main className="loading" aria-busy="true">
          <p className="muted">Waiting for the lab…</p>
        </main>
      ) : (
        <main className="layout" data-testid="dashboard" data-seq={snapshot.seq} data-view={view}>
          <StatRow snapshot={snapshot} />
          <FailBanner workers={snapshot.workers} stoppedTasks={snapshot.stoppedTasks ?? NO_STOPPED} send={send} />
          {children}
        </main>
      )}
    </div>
  )
}

/** The frame around the live lab's pages, from the layout's one lab. */
export function LabShell({ children }: { children: ReactNode }) {
  const lab = useLabContext()
  const { time, journal, live } = lab
  const timeControl = (
    <TimeControl
      state={time.state}
      liveAtMs={live?.atMs ?? 0}
      span={live?.journal}
      entries={journal.entries}
      onPause={time.pause}
      onLive={time.live}
      onSeek={time.seek}
      onSeekSoon={time.seekSoon}
    />
  )
  return (
    <LabFrame
      snapshot={lab.snapshot}
      connection={lab.connection}
      send={lab.send}
      timeControl={timeControl}
      view={lab.view}
    >
      {children}
    </LabFrame>
  )
}
