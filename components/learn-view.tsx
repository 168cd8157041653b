// The live view beside a chapter's text: the dashboard's own panels, chosen for the chapter's point,
// over the snapshot on screen (while a scenario runs, its lab).

import Link from 'next/link'
import type { LearnView } from '../lib/learn-chapters.ts'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { ChartsPanel } from './charts-panel.tsx'
import { CorrectnessPanel } from './correctness-panel.tsx'
import { DuplicateLedger } from './duplicate-ledger-panel.tsx'
import { PipelinePanel } from './pipeline-panel.tsx'
import { RecordTraceView } from './record-trace-view.tsx'
import { RecoveryPanel } from './recovery-panel.tsx'
import { TxnStrip } from './txn-strip.tsx'

const NO_LEDGER: NonNullable<LabSnapshot['duplicateLedger']> = []

function Correctness({ s }: { s: LabSnapshot }) {
  return (
    <CorrectnessPanel
      correctness={s.correctness}
      guarantee={s.config['processing.guarantee']}
      startedAtMs={s.startedAtMs}
    />
  )
}

function Pipeline({ s }: { s: LabSnapshot }) {
  return <PipelinePanel tasks={s.tasks} traces={s.traces} nowMs={s.atMs} tracesPerTask={1} />
}

function Recovery({ s }: { s: LabSnapshot }) {
  return <RecoveryPanel recoveries={s.recoveries} startedAtMs={s.startedAtMs} nowMs={s.atMs} latest={1} />
}

/** The latest transactions, committed and aborted; the Transactions page holds their lanes and history. */
function Transactions({ s }: { s: LabSnapshot }) {
  return (
    <>
      <TxnStrip transactions={s.transactions} totals={s.txnTotals} />
      <p className="small muted">
        Each transaction&apos;s lane and its writes: <Link href="/transactions">Transactions</Link>.
      </p>
    </>
  )
}

/** The panels of one chapter. */
export function LearnLiveView({ view, snapshot: s }: { view: LearnView; snapshot: LabSnapshot }) {
  switch (view) {
    case 'pipeline':
      return (
        <div className="learn-views">
          <Pipeline s={s} />
          <RecordTraceView traces={s.traces} startedAtMs={s.startedAtMs} rows={4} />
        </div>
      )
    case 'semantics':
      return (
        <div className="learn-views">
          <Correctness s={s} />
          <Recovery s={s} />
        </div>
      )
    case 'lost-ack':
    case 'replay':
      return (
        <div className="learn-views">
          <Correctness s={s} />
          <DuplicateLedger
            entries={s.duplicateLedger ?? NO_LEDGER}
            guarantee={s.config['processing.guarantee']}
            correctness={s.correctness}
          />
        </div>
      )
    case 'transactions':
      return (
        <div className="learn-views">
          <Transactions s={s} />
          <Recovery s={s} />
        </div>
      )
    case 'zombie':
      return (
        <div className="learn-views">
          <Transactions s={s} />
          <Correctness s={s} />
        </div>
      )
    case 'price':
      return (
        <div className="learn-views">
          <ChartsPanel
            series={s.series}
            markers={s.markers}
            startedAtMs={s.startedAtMs}
            commitIntervalMs={s.config['commit.interval.ms']}
            chartHeight={150}
          />
          <p className="small muted">
            The whole trade-off, from the model and from a measurement, with its reading guide:{' '}
            <Link href="/experiments">Experiments</Link>.
          </p>
        </div>
      )
  }
}
