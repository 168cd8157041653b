'use client'
// The /experiments page: start a commit-interval sweep, watch it (GET /api/experiments/current
// every 500 ms while one runs), read the five charts, overlay an earlier run, export.

import Link from 'next/link'
import type { ExperimentRecord, ExperimentSummary } from '../../lib/experiment-protocol.ts'
import { Brand } from '../header-bar.tsx'
import { ThemeToggle } from '../theme-toggle.tsx'
import { TokenControl } from '../token-control.tsx'
import { HistoryTable } from '../history-table.tsx'
import { Panel } from '../panel.tsx'
import { fmtCompact, fmtMs } from '../format.ts'
import { DuplicatesChart, LatencyChart, RecoveryChart, ThroughputChart, TradeOffChart } from './sweep-charts.tsx'
import { SweepForm } from './sweep-form.tsx'
import { READING_GUIDE } from './reading-guide.ts'
import { useExperiments } from './use-experiments.ts'

const nameOf = (s: { id: string; label: string | null }) => s.label || s.id

export function ExperimentsView() {
  const { current, list, shown, overlay, error, running, start, cancel, choose, setOverlay } = useExperiments()
  const cells = shown?.cells ?? []
  const overlayCells = overlay && overlay.id !== shown?.id ? overlay.cells : null
  const overlayName = overlay ? nameOf(overlay) : undefined

  return (
    <div className="app" data-testid="experiments">
      <ExperimentsHeader />
      <main className="layout">
        <div className="sweep-top">
          <Panel title="Sweep" hint="throughput, latency and recovery against commit.interval.ms, per guarantee (MEASURES.md definitions)">
            <SweepForm running={running} backends={list.backends} onStart={(r) => void start(r)} onCancel={() => void cancel()} />
            {error ? (
              <p className="bad small" role="alert" data-testid="sweep-error">
                {error}
              </p>
            ) : null}
            {current && (running || current.status !== 'done') ? <SweepProgress current={current} /> : null}
          </Panel>
          <Panel title="Results" hint={`stored under the data directory; ${list.experiments.length} so far`}>
            <ResultsList list={list.experiments} shownId={shown?.id ?? null} overlayId={overlay?.id ?? null} onShow={(id) => void choose(id, 'shown')} onOverlay={(id) => (id ? void choose(id, 'overlay') : setOverlay(null))} />
          </Panel>
        </div>
        {shown ? <ShownCaption shown={shown} overlayName={overlayCells ? overlayName : undefined} /> : <p className="muted sweep-caption">No experiment yet: choose the intervals and guarantees above and run a sweep.</p>}
        {shown && cells.length > 0 ? <SweepResults record={shown} overlay={overlayCells} overlayName={overlayName} /> : null}
      </main>
    </div>
  )
}

function ExperimentsHeader() {
  return (
    <header className="top-bar">
      <Brand tagline="commit-interval experiments" />
      <nav className="top-meta">
        <Link href="/">← live lab</Link>
        <TokenControl />
        <ThemeToggle />
      </nav>
    </header>
  )
}

function SweepProgress({ current }: { current: ExperimentRecord }) {
  const progress = current.progress
  const pct = progress && progress.total > 0 ? Math.round((progress.done / progress.total) * 100) : 0
  return (
    <div className="sweep-progress" data-testid="sweep-progress" data-status={current.status}>
      <div className="progress-track" role="progressbar" aria-valuemin={0} aria-valuemax={progress?.total ?? 0} aria-valuenow={progress?.done ?? 0}>
        <div className="progress-fill" style={{ width: `${pct}%` }} />
      </div>
      <span className="small num">
        {current.status === 'running' ? `${progress!.done}/${progress!.total} repetitions` : current.status}
        {progress?.current ? ` · ${progress.current.guarantee} @ ${progress.current.commitIntervalMs} ms, repetition ${progress.current.repetition}: ${progress.current.stage}` : ''}
        {current.error ? ` · ${current.error}` : ''}
      </span>
    </div>
  )
}

/** What the charts show, the overlay's name when one is drawn, and the exports. */
function ShownCaption({ shown, overlayName }: { shown: ExperimentRecord; overlayName: string | undefined }) {
  return (
    <p className="muted small sweep-caption" data-testid="shown-experiment">
      Showing <span className="mono">{nameOf(shown)}</span> ({shown.request.backend}, {shown.status}, {shown.request.repeat} repetition{shown.request.repeat === 1 ? '' : 's'}, median with min–max
      band)
      {overlayName !== undefined ? (
        <>
          {' '}
          · dashed: <span className="mono">{overlayName}</span>
        </>
      ) : null}
      {' · '}
      <a href={`/api/experiments/${shown.id}.csv`} download data-testid="export-csv">
        export CSV
      </a>{' '}
      ·{' '}
      <a href={`/api/experiments/${shown.id}.json`} download data-testid="export-json">
        export JSON
      </a>
    </p>
  )
}

/** The five charts, the reading guide and the table of the shown experiment. */
function SweepResults({ record, overlay, overlayName }: { record: ExperimentRecord; overlay: ExperimentRecord['cells'] | null; overlayName: string | undefined }) {
  const cells = record.cells
  return (
    <>
      <div className="sweep-grid">
        <Panel title="Processed throughput" hint={READING_GUIDE.throughput.definition} testId="panel-throughput">
          <ThroughputChart cells={cells} overlay={overlay} overlayName={overlayName} />
        </Panel>
        <Panel title="Recovery time by phase" hint={READING_GUIDE.recovery.definition} testId="panel-recovery">
          <RecoveryChart cells={cells} overlay={overlay} />
        </Panel>
        <Panel title="End-to-end latency" hint={READING_GUIDE.latency.definition} testId="panel-latency">
          <LatencyChart cells={cells} overlay={overlay} overlayName={overlayName} />
        </Panel>
        <Panel title="Trade-off: throughput against recovery" hint={READING_GUIDE.tradeoff.definition} testId="panel-tradeoff">
          <TradeOffChart cells={cells} overlay={overlay} overlayName={overlayName} />
        </Panel>
        <Panel title="Duplicates per kill (at_least_once)" hint={READING_GUIDE.duplicates.definition} testId="panel-duplicates">
          <DuplicatesChart cells={cells} overlay={overlay} overlayName={overlayName} />
        </Panel>
        <Panel title="How to read these charts" testId="panel-guide">
          <dl className="sweep-guide">
            {Object.values(READING_GUIDE).map((g) => (
              <div key={g.title}>
                <dt>{g.title}</dt>
                <dd>{g.read}</dd>
              </div>
            ))}
          </dl>
        </Panel>
      </div>
      <Panel title="Table" hint="medians over the repetitions (min–max for throughput); — : not measured" testId="panel-table">
        <SweepTable record={record} />
      </Panel>
    </>
  )
}

function ResultsList({ list, shownId, overlayId, onShow, onOverlay }: { list: ExperimentSummary[]; shownId: string | null; overlayId: string | null; onShow: (id: string) => void; onOverlay: (id: string | null) => void }) {
  if (list.length === 0) return <p className="muted small">Nothing stored yet.</p>
  return (
    <div className="sweep-results" data-testid="results-list">
      <table className="history sweep-table">
        <thead>
          <tr>
            <th>experiment</th>
            <th>backend</th>
            <th>cells</th>
            <th>status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((e) => (
            <tr key={e.id} className={e.id === shownId ? 'row-shown' : ''}>
              <td className="mono small ellipsis" title={e.id}>
                {nameOf(e)}
              </td>
              <td className="small">{e.backend}</td>
              <td className="small num">
                {e.guarantees.length}×{e.intervals.length}×{e.repeat}
              </td>
              <td className="small">{e.status}</td>
              <td className="r">
                <button type="button" className="link-button" onClick={() => onShow(e.id)} disabled={e.id === shownId}>
                  show
                </button>{' '}
                <button type="button" className="link-button" onClick={() => onOverlay(e.id === overlayId ? null : e.id)} data-testid={`overlay-${e.id}`}>
                  {e.id === overlayId ? 'no overlay' : 'overlay'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function SweepTable({ record }: { record: ExperimentRecord }) {
  return (
    <HistoryTable
      className="sweep-table num"
      testId="sweep-table"
      head={
        <>
          <th>guarantee</th>
          <th className="r">commit ms</th>
          <th className="r">throughput (min–max)</th>
          <th className="r">p50</th>
          <th className="r">p99</th>
          <th className="r">recovery</th>
          <th className="r">detection</th>
          <th className="r">rebalance</th>
          <th className="r">fence</th>
          <th className="r">restore</th>
          <th className="r">catch-up</th>
          <th className="r">dups/kill</th>
        </>
      }
    >
      {record.cells.map((c) => (
        <tr key={`${c.guarantee}-${c.commitIntervalMs}`}>
          <td className="mono">{c.guarantee}</td>
          <td className="r">{c.commitIntervalMs}</td>
          <td className="r">
            {fmtCompact(c.throughputPerSec.median)}/s <span className="muted">({fmtCompact(c.throughputPerSec.min)}–{fmtCompact(c.throughputPerSec.max)})</span>
          </td>
          <td className="r">{fmtMs(c.latencyP50Ms.median)}</td>
          <td className="r">{fmtMs(c.latencyP99Ms.median)}</td>
          <td className="r">{fmtMs(c.recoveryMs.median)}</td>
          <td className="r">{fmtMs(c.phases.detection.median)}</td>
          <td className="r">{fmtMs(c.phases.rebalance.median)}</td>
          <td className="r">{fmtMs(c.phases.fence.median)}</td>
          <td className="r">{fmtMs(c.phases.restore.median)}</td>
          <td className="r">{fmtMs(c.phases.catchUp.median)}</td>
          <td className="r">{c.duplicatesPerKill.median === null ? '—' : fmtCompact(c.duplicatesPerKill.median)}</td>
        </tr>
      ))}
    </HistoryTable>
  )
}
