'use client'
// The live dashboard: one socket, one snapshot, the panels. Everything below renders from the
// snapshot; commands go out through `send` and each control shows its acknowledgement's error.

import { useEffect, useMemo, useRef, type ReactNode } from 'react'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { ChartsPanel } from './charts-panel.tsx'
import { ControlsPanel } from './controls-panel.tsx'
import { CorrectnessPanel } from './correctness-panel.tsx'
import { HeaderBar } from './header-bar.tsx'
import { FIRST_DATA_MARK } from './perf-marks.ts'
import { PipelinePanel } from './pipeline-panel.tsx'
import { PartitionsTable } from './partitions-table.tsx'
import { RecoveryPanel } from './recovery-panel.tsx'
import { StatRow } from './stat-row.tsx'
import { TransactionsPanel } from './transactions-panel.tsx'
import { TransactionsView } from './transactions-view.tsx'
import { TransactionHistoryView } from './transaction-history.tsx'
import type { SendCommand } from './use-command.ts'
import { useLab, type ConnectionState } from './use-lab.ts'
import { WorkersPanel } from './workers-panel.tsx'
import { DeepViews } from './deep-views.tsx'
import { FailBanner } from './fail-banner.tsx'
import { ScenariosPanel } from './scenarios-panel.tsx'
import { EventLogPanel, type LogHorizon } from './event-log-panel.tsx'
import { EvidencePanel } from './evidence-card.tsx'
import { TimeControl } from './time-control.tsx'
import { useJournal } from './use-journal.ts'
import { useTimeTravel } from './use-time-travel.ts'
import { GroupView } from './group-view.tsx'
import { MessageBrowser } from './message-browser.tsx'
import { BrokerCards } from './broker-cards.tsx'

export interface LabViewProps {
  snapshot: LabSnapshot | null
  connection: ConnectionState
  send: SendCommand
  /** The time control, under the header (Pause, Live, the scrubber). */
  timeControl?: ReactNode
  /** The event log panel, at the foot of the main column. */
  eventLog?: ReactNode
  /** What the panels show: the live lab, or a moment held by the time control. */
  view?: 'live' | 'pause' | 'frame'
}

/** The dashboard for one snapshot; pure rendering, used live and in tests. */
export function LabView({ snapshot, connection, send, timeControl, eventLog, view = 'live' }: LabViewProps) {
  return (
    <div className="app">
      <HeaderBar
        backend={snapshot?.backend ?? null}
        notes={snapshot?.notes ?? NO_NOTES}
        connection={connection}
        health={snapshot?.health ?? null}
        applicationId={snapshot?.applicationId ?? null}
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
          <div className="columns">
            <aside className="side">
              <ControlsPanel
                config={snapshot.config}
                defaults={snapshot.kafkaStreamsDefaults}
                send={send}
                unavailable={snapshot.unavailable}
                deadLetters={snapshot.totals.deadLetters}
              />
              <CorrectnessPanel
                correctness={snapshot.correctness}
                guarantee={snapshot.config['processing.guarantee']}
                startedAtMs={snapshot.startedAtMs}
              />
              <ScenariosPanel
                unavailable={snapshot.unavailable?.scenarios}
                scenarios={snapshot.scenarios ?? NO_SCENARIOS}
                scenario={snapshot.scenario ?? null}
                send={send}
                nowMs={snapshot.scenario?.status === 'running' ? snapshot.atMs : 0}
              />
              <EvidencePanel cards={snapshot.evidence ?? NO_EVIDENCE} send={send} />
            </aside>
            <div className="main-col">
              <ChartsPanel
                series={snapshot.series}
                markers={snapshot.markers}
                startedAtMs={snapshot.startedAtMs}
                commitIntervalMs={snapshot.config['commit.interval.ms']}
              />
              <PipelinePanel
                tasks={snapshot.tasks}
                stopped={snapshot.stoppedTasks ?? NO_STOPPED}
                traces={snapshot.traces}
                nowMs={snapshot.atMs}
              />
              <WorkersPanel workers={snapshot.workers} send={send} killAtStep={snapshot.unavailable?.killAtStep} />
              {snapshot.brokers ? <BrokerCards brokers={snapshot.brokers} send={send} /> : null}
              <RecoveryPanel
                recoveries={snapshot.recoveries}
                startedAtMs={snapshot.startedAtMs}
                nowMs={snapshot.atMs}
              />
              <TransactionsPanel
                transactions={snapshot.transactions}
                totals={snapshot.txnTotals}
                startedAtMs={snapshot.startedAtMs}
                nowMs={snapshot.atMs}
              />
              <TransactionHistoryView stats={snapshot.txnStats} heldAtMs={view === 'live' ? null : snapshot.atMs} />
              {eventLog}
            </div>
          </div>
          <PartitionsTable rows={snapshot.partitions} />
          <TransactionsView view={snapshot.transactionsView} send={send} />
          <GroupView group={snapshot.group} startedAtMs={snapshot.startedAtMs} />
          <MessageBrowser partitions={snapshot.config.partitions} />
          <DeepViews snapshot={snapshot} send={send} />
        </main>
      )}
    </div>
  )
}

const NO_NOTES: string[] = []
const NO_STOPPED: NonNullable<LabSnapshot['stoppedTasks']> = []
const NO_SCENARIOS: NonNullable<LabSnapshot['scenarios']> = []
const NO_EVIDENCE: NonNullable<LabSnapshot['evidence']> = []

export function LabDashboard() {
  const { snapshot, connection, send } = useLab()
  const hasData = snapshot !== null
  useEffect(() => {
    if (hasData && performance.getEntriesByName(FIRST_DATA_MARK).length === 0) performance.mark(FIRST_DATA_MARK)
  }, [hasData])
  const time = useTimeTravel(snapshot)
  const span = snapshot?.journal
  const journal = useJournal(span)
  // A held view shows the log as it was read when the view was held: later reads do not change it.
  const cursor = useRef(journal.cursor)
  cursor.current = journal.cursor
  const held = time.state.mode === 'held' ? time.state.shown : null
  const horizon = useMemo<LogHorizon | null>(() => (held ? { atMs: held.atMs, lastId: cursor.current } : null), [held])
  const timeControl = (
    <TimeControl
      state={time.state}
      liveAtMs={snapshot?.atMs ?? 0}
      span={span}
      entries={journal.entries}
      onPause={time.pause}
      onLive={time.live}
      onSeek={time.seek}
      onSeekSoon={time.seekSoon}
    />
  )
  const eventLog = (
    <EventLogPanel
      entries={journal.entries}
      horizon={horizon}
      unavailable={hasData && span === undefined}
      error={journal.error}
      onShow={time.seek}
    />
  )
  const view = time.state.mode === 'held' ? time.state.source : 'live'
  return (
    <LabView
      snapshot={time.viewed}
      connection={connection}
      send={send}
      timeControl={timeControl}
      eventLog={eventLog}
      view={view}
    />
  )
}
