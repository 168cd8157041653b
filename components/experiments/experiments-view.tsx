'use client'
// The /experiments page: start a commit-interval sweep, watch it (GET /api/experiments/current
// every 500 ms while one runs), read the five charts, overlay an earlier run, export.

import type { ExperimentRecord, ExperimentSummary } from '../../lib/experiment-protocol.ts'
import { Panel } from '../panel.tsx'
import { SubPageHeader } from '../sub-page-header.tsx'
import { SweepForm } from './sweep-form.tsx'
import { figuresOf, SweepResults } from './sweep-results.tsx'
import { runsLabel } from './sweep-series.ts'
import { useExperiments } from './use-experiments.ts'

const nameOf = (s: { id: string; label: string | null }) => s.label || s.id

/** An overlaid experiment's name says what its figures are: the model's, or measured on a backend. */
const overlayNameOf = (r: ExperimentRecord) =>
  `${nameOf(r)}, ${figuresOf(r) === 'model' ? 'model' : `${r.request.backend} measured`}`

export function ExperimentsView() {
  const { current, list, shown, overlays, error, running, start, cancel, choose, removeOverlay } = useExperiments()
  const cells = shown?.cells ?? []
  const drawn = overlays.filter((o) => o.id !== shown?.id).map((o) => ({ name: overlayNameOf(o), cells: o.cells }))
  const overlayIds = new Set(overlays.map((o) => o.id))

  return (
    <div className="app" data-testid="experiments">
      <SubPageHeader tagline="commit-interval experiments" />
      <main className="layout">
        <div className="sweep-top">
          <Panel
            title="Sweep"
            hint="throughput, latency and recovery against commit.interval.ms, per guarantee, measured on this machine"
          >
            <SweepForm
              running={running}
              backends={list.backends}
              unavailable={list.unavailableBackends ?? {}}
              onStart={(r) => void start(r)}
              onCancel={() => void cancel()}
            />
            {error ? (
              <p className="bad small" role="alert" data-testid="sweep-error">
                {error}
              </p>
            ) : null}
            {current && (running || current.status !== 'done') ? <SweepProgress current={current} /> : null}
          </Panel>
          <Panel title="Results" hint={`stored under the data directory; ${list.experiments.length} so far`}>
            <ResultsList
              list={list.experiments}
              shownId={shown?.id ?? null}
              overlayIds={overlayIds}
              onShow={(id) => void choose(id, 'shown')}
              onOverlay={(id) => (overlayIds.has(id) ? removeOverlay(id) : void choose(id, 'overlay'))}
            />
          </Panel>
        </div>
        {shown ? (
          <ShownCaption shown={shown} overlayNames={drawn.map((o) => o.name)} />
        ) : (
          <p className="muted sweep-caption">
            No experiment yet: choose the intervals and guarantees above and run a sweep.
          </p>
        )}
        {shown && cells.length > 0 ? <SweepResults record={shown} overlays={drawn} /> : null}
      </main>
    </div>
  )
}

function SweepProgress({ current }: { current: ExperimentRecord }) {
  const progress = current.progress
  const pct = progress && progress.total > 0 ? Math.round((progress.done / progress.total) * 100) : 0
  return (
    <div className="sweep-progress" data-testid="sweep-progress" data-status={current.status}>
      <div
        className="progress-track"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={progress?.total ?? 0}
        aria-valuenow={progress?.done ?? 0}
      >
        <div className="progress-fill" style={{ width: `${pct}%` }} />
      </div>
      <span className="small num">
        {current.status === 'running' ? `${progress!.done}/${progress!.total} runs` : current.status}
        {progress?.current
          ? ` · ${progress.current.guarantee} @ ${progress.current.commitIntervalMs} ms, ` +
            `run ${progress.current.repetition}: ${progress.current.stage}`
          : ''}
        {current.error ? ` · ${current.error}` : ''}
      </span>
    </div>
  )
}

/** What the charts show, the overlays' names when some are drawn, the permalink and the exports. */
function ShownCaption({ shown, overlayNames }: { shown: ExperimentRecord; overlayNames: string[] }) {
  return (
    <p className="muted small sweep-caption" data-testid="shown-experiment">
      Showing <span className="mono">{nameOf(shown)}</span> (
      {figuresOf(shown) === 'model' ? (
        <strong data-testid="model-label">model: virtual time, exact figures</strong>
      ) : (
        `${shown.request.backend}, measured`
      )}
      , {shown.status}, <span data-testid="runs-label">{runsLabel(shown.cells)}</span>, median
      {figuresOf(shown) === 'model' ? '' : ' with its 95% interval'})
      {overlayNames.length > 0 ? (
        <>
          {' '}
          · dashed: <span className="mono">{overlayNames.join('; ')}</span>
        </>
      ) : null}
      {' · '}
      <a href={`/experiments?id=${encodeURIComponent(shown.id)}`} data-testid="permalink">
        permalink
      </a>
      {' · '}
      <a href={`/api/experiments/${shown.id}.csv`} download data-testid="export-csv">
        export CSV (with 95% intervals)
      </a>{' '}
      ·{' '}
      <a href={`/api/experiments/${shown.id}.json`} download data-testid="export-json">
        export JSON
      </a>
    </p>
  )
}

function ResultsList({
  list,
  shownId,
  overlayIds,
  onShow,
  onOverlay,
}: {
  list: ExperimentSummary[]
  shownId: string | null
  overlayIds: ReadonlySet<string>
  onShow: (id: string) => void
  onOverlay: (id: string) => void
}) {
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
              <td className="small num" title="guarantees × intervals × runs per cell">
                {e.guarantees.length}×{e.intervals.length}×
                {e.maxRuns !== undefined && e.maxRuns !== e.repeat ? `${e.repeat}–${e.maxRuns}` : e.repeat}
              </td>
              <td className="small">{e.status}</td>
              <td className="r">
                <button
                  type="button"
                  className="link-button"
                  onClick={() => onShow(e.id)}
                  disabled={e.id === shownId}
                  data-testid={`show-${e.id}`}
                >
                  show
                </button>{' '}
                <button
                  type="button"
                  className="link-button"
                  onClick={() => onOverlay(e.id)}
                  data-testid={`overlay-${e.id}`}
                >
                  {overlayIds.has(e.id) ? 'no overlay' : 'overlay'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
