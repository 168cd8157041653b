'use client'
// The live dashboard: one socket, one snapshot, the panels. Everything below renders from the
// snapshot; commands go out through `send` and each control shows its acknowledgement's error.

import { useEffect } from 'react'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { ChartsPanel } from './charts-panel.tsx'
import { ControlsPanel } from './controls-panel.tsx'
import { CorrectnessPanel } from './correctness-panel.tsx'
import { HeaderBar } from './header-bar.tsx'
import { FIRST_DATA_MARK } from './perf-marks.ts'
import { PipelinePanel } from './pipeline-panel.tsx'
import { RecoveryPanel } from './recovery-panel.tsx'
import { StatRow } from './stat-row.tsx'
import { TransactionsPanel } from './transactions-panel.tsx'
import type { SendCommand } from './use-command.ts'
import { useLab, type ConnectionState } from './use-lab.ts'
import { WorkersPanel } from './workers-panel.tsx'
import { DeepViews } from './deep-views.tsx'
import { FailBanner } from './fail-banner.tsx'
import { ScenariosPanel } from './scenarios-panel.tsx'


export interface LabViewProps {
  snapshot: LabSnapshot | null
  connection: ConnectionState
  send: SendCommand
}

/** The dashboard for one snapshot; pure rendering, used live and in tests. */
export function LabView({ snapshot, connection, send }: LabViewProps) {
  return (
    <div className="app">
      <HeaderBar backend={snapshot?.backend ?? null} notes={snapshot?.notes ?? NO_NOTES} connection={connection} health={snapshot?.health ?? null} applicationId={snapshot?.applicationId ?? null} nowMs={snapshot?.atMs ?? 0} />
      {snapshot === null ? (
        <main className="loading" aria-busy="true">
          <p className="muted">Waiting for the lab…</p>
        </main>
      ) : (
        <main className="layout" data-testid="dashboard" data-seq={snapshot.seq}>
          <StatRow snapshot={snapshot} />
          <FailBanner workers={snapshot.workers} stoppedTasks={snapshot.stoppedTasks ?? NO_STOPPED} send={send} />
          <div className="columns">
            <aside className="side">
              <ControlsPanel config={snapshot.config} defaults={snapshot.kafkaStreamsDefaults} send={send} unavailable={snapshot.unavailable} deadLetters={snapshot.totals.deadLetters} />
              <CorrectnessPanel correctness={snapshot.correctness} guarantee={snapshot.config['processing.guarantee']} startedAtMs={snapshot.startedAtMs} />
              <ScenariosPanel unavailable={snapshot.unavailable?.scenarios} scenarios={snapshot.scenarios ?? NO_SCENARIOS} scenario={snapshot.scenario ?? null} send={send} nowMs={snapshot.scenario?.status === 'running' ? snapshot.atMs : 0} />
            </aside>
            <div className="main-col">
              <ChartsPanel series={snapshot.series} markers={snapshot.markers} startedAtMs={snapshot.startedAtMs} />
              <PipelinePanel tasks={snapshot.tasks} stopped={snapshot.stoppedTasks ?? NO_STOPPED} traces={snapshot.traces} nowMs={snapshot.atMs} />
              <WorkersPanel workers={snapshot.workers} send={send} killAtStep={snapshot.unavailable?.killAtStep} />
              <RecoveryPanel recoveries={snapshot.recoveries} startedAtMs={snapshot.startedAtMs} nowMs={snapshot.atMs} />
              <TransactionsPanel transactions={snapshot.transactions} totals={snapshot.txnTotals} startedAtMs={snapshot.startedAtMs} nowMs={snapshot.atMs} />
            </div>
          </div>
          <DeepViews snapshot={snapshot} send={send} />
        </main>
      )}
    </div>
  )
}

const NO_NOTES: string[] = []
const NO_STOPPED: NonNullable<LabSnapshot['stoppedTasks']> = []
const NO_SCENARIOS: NonNullable<LabSnapshot['scenarios']> = []

export function LabDashboard() {
  const { snapshot, connection, send } = useLab()
  const hasData = snapshot !== null
  useEffect(() => {
    if (hasData && performance.getEntriesByName(FIRST_DATA_MARK).length === 0) performance.mark(FIRST_DATA_MARK)
  }, [hasData])
  return <LabView snapshot={snapshot} connection={connection} send={send} />
}
