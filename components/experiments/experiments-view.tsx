'use client'
// The /experiments page: start a commit-interval sweep, watch it (GET /api/experiments/current
// every 500 ms while one runs), read the five charts, overlay an earlier run, export.

import Link from 'next/link'
import { useCallback, useEffect, useRef, useState } from 'react'
import type { ExperimentRecord, ExperimentSummary, SweepRequest } from '../../lib/experiment-protocol.ts'
import { ThemeToggle } from '../theme-toggle.tsx'
import { TokenControl } from '../token-control.tsx'
import { authHeaders, isUnauthorized, refusalMessage, requestToken, useLabToken } from '../lab-token.ts'
import { HistoryTable } from '../history-table.tsx'
import { Panel } from '../panel.tsx'
import { fmtCompact, fmtMs } from '../format.ts'
import { DuplicatesChart, LatencyChart, RecoveryChart, ThroughputChart, TradeOffChart } from './sweep-charts.tsx'
import { SweepForm } from './sweep-form.tsx'
import { READING_GUIDE } from './reading-guide.ts'

const POLL_MS = 500

interface ListResponse {
  experiments: ExperimentSummary[]
  running: boolean
  backends: string[]
}

/** The error of a failed request; a 401 also asks for the token (the header's control opens). */
function refused(r: Response, error: string | undefined, what: 'command' | 'reads'): string {
  const e = error ?? `${r.status} ${r.statusText}`
  if (r.status !== 401 && !isUnauthorized(e)) return e
  const why = refusalMessage(e, what)
  requestToken(why)
  return why
}

async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { cache: 'no-store', headers: authHeaders() })
  if (!r.ok) throw new Error(refused(r, ((await r.json().catch(() => null)) as { error?: string } | null)?.error, 'reads'))
  return (await r.json()) as T
}

const nameOf = (s: { id: string; label: string | null }) => s.label || s.id

export function ExperimentsView() {
  const [current, setCurrent] = useState<ExperimentRecord | null>(null)
  const [list, setList] = useState<ListResponse>({ experiments: [], running: false, backends: ['embedded'] })
  const [shown, setShown] = useState<ExperimentRecord | null>(null)
  const [overlay, setOverlay] = useState<ExperimentRecord | null>(null)
  const [error, setError] = useState<string | null>(null)
  const running = current?.status === 'running'
  const wasRunning = useRef(false)
  const { token } = useLabToken()

  const refreshList = useCallback(async () => {
    try {
      setList(await getJson<ListResponse>('/api/experiments'))
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }, [])

  // The current experiment: polled every 500 ms while one runs, once otherwise.
  useEffect(() => {
    let stop = false
    let timer: ReturnType<typeof setTimeout> | null = null
    const tick = async () => {
      try {
        const { experiment } = await getJson<{ experiment: ExperimentRecord | null }>('/api/experiments/current')
        if (stop) return
        setCurrent(experiment)
        const isRunning = experiment?.status === 'running'
        if (experiment && (isRunning || wasRunning.current)) setShown(experiment)
        if (wasRunning.current && !isRunning) void refreshList()
        wasRunning.current = isRunning
        if (isRunning) timer = setTimeout(tick, POLL_MS)
      } catch (e) {
        if (!stop) {
          setError(e instanceof Error ? e.message : String(e))
          timer = setTimeout(tick, POLL_MS * 4)
        }
      }
    }
    if (running || current === null) void tick()
    return () => {
      stop = true
      if (timer) clearTimeout(timer)
    }
    // Re-arm when a run starts (running flips to true after a POST).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [running])

  // Again when the token changes: reads may be locked.
  useEffect(() => {
    setError(null)
    void refreshList()
  }, [refreshList, token])

  // With nothing running or chosen, show the newest stored experiment.
  useEffect(() => {
    if (shown || running || list.experiments.length === 0) return
    void getJson<ExperimentRecord>(`/api/experiments/${list.experiments[0]!.id}`).then(setShown, () => {})
  }, [list, shown, running])

  const start = async (request: SweepRequest) => {
    setError(null)
    const r = await fetch('/api/experiments', { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders() }, body: JSON.stringify(request) })
    const body = (await r.json().catch(() => ({}))) as { experiment?: ExperimentRecord; error?: string }
    if (!r.ok || !body.experiment) {
      setError(refused(r, body.error, 'command'))
      return
    }
    wasRunning.current = true
    setCurrent(body.experiment)
    setShown(body.experiment)
  }

  const cancel = async () => {
    const r = await fetch('/api/experiments/cancel', { method: 'POST', headers: authHeaders() })
    if (!r.ok) setError(refused(r, ((await r.json().catch(() => ({}))) as { error?: string }).error, 'command'))
  }

  const choose = async (id: string, as: 'shown' | 'overlay') => {
    try {
      const r = await getJson<ExperimentRecord>(`/api/experiments/${encodeURIComponent(id)}`)
      if (as === 'shown') setShown(r)
      else setOverlay(r)
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }

  const cells = shown?.cells ?? []
  const overlayCells = overlay && overlay.id !== shown?.id ? overlay.cells : null
  const overlayName = overlay ? nameOf(overlay) : undefined
  const progress = current?.progress
  const pct = progress && progress.total > 0 ? Math.round((progress.done / progress.total) * 100) : 0

  return (
    <div className="app" data-testid="experiments">
      <header className="top-bar">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ◎
          </span>
          <h1>eoscope</h1>
          <span className="muted tagline">commit-interval experiments</span>
        </div>
        <nav className="top-meta">
          <Link href="/">← live lab</Link>
          <TokenControl />
          <ThemeToggle />
        </nav>
      </header>
      <main className="layout">
        <div className="sweep-top">
          <Panel title="Sweep" hint="throughput, latency and recovery against commit.interval.ms, per guarantee (MEASURES.md definitions)">
            <SweepForm running={running} backends={list.backends} onStart={(r) => void start(r)} onCancel={() => void cancel()} />
            {error ? (
              <p className="bad small" role="alert" data-testid="sweep-error">
                {error}
              </p>
            ) : null}
            {current && (running || current.status !== 'done') ? (
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
            ) : null}
          </Panel>
          <Panel title="Results" hint={`stored under the data directory; ${list.experiments.length} so far`}>
            <ResultsList list={list.experiments} shownId={shown?.id ?? null} overlayId={overlay?.id ?? null} onShow={(id) => void choose(id, 'shown')} onOverlay={(id) => (id ? void choose(id, 'overlay') : setOverlay(null))} />
          </Panel>
        </div>

        {shown ? (
          <p className="muted small sweep-caption" data-testid="shown-experiment">
            Showing <span className="mono">{nameOf(shown)}</span> ({shown.request.backend}, {shown.status}, {shown.request.repeat} repetition{shown.request.repeat === 1 ? '' : 's'}, median with min–max
            band)
            {overlayCells ? (
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
        ) : (
          <p className="muted sweep-caption">No experiment yet: choose the intervals and guarantees above and run a sweep.</p>
        )}

        {cells.length > 0 ? (
          <>
            <div className="sweep-grid">
              <Panel title="Processed throughput" hint={READING_GUIDE.throughput.definition} testId="panel-throughput">
                <ThroughputChart cells={cells} overlay={overlayCells} overlayName={overlayName} />
              </Panel>
              <Panel title="Recovery time by phase" hint={READING_GUIDE.recovery.definition} testId="panel-recovery">
                <RecoveryChart cells={cells} overlay={overlayCells} />
              </Panel>
              <Panel title="End-to-end latency" hint={READING_GUIDE.latency.definition} testId="panel-latency">
                <LatencyChart cells={cells} overlay={overlayCells} overlayName={overlayName} />
              </Panel>
              <Panel title="Trade-off: throughput against recovery" hint={READING_GUIDE.tradeoff.definition} testId="panel-tradeoff">
                <TradeOffChart cells={cells} overlay={overlayCells} overlayName={overlayName} />
              </Panel>
              <Panel title="Duplicates per kill (at_least_once)" hint={READING_GUIDE.duplicates.definition} testId="panel-duplicates">
                <DuplicatesChart cells={cells} overlay={overlayCells} overlayName={overlayName} />
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
              <SweepTable record={shown!} />
            </Panel>
          </>
        ) : null}
      </main>
    </div>
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
