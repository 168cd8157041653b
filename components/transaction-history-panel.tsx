'use client'
// The transaction history: statistics of every ended transaction (for this run, whose counts are
// the dashboard's committed/aborted totals, or the lab's life), failure causes, the Kafka producer
// metrics they complete, and the latest rows a filter selects, with CSV/JSON exports of them.
// Statistics come with the snapshot (paused or rewound, they show that moment); rows come from
// GET /api/lab/transactions (held, only those ended by the moment shown).

import { memo, useEffect, useState, type MouseEvent } from 'react'
import { kafkaNamesShownOn } from '../lib/kafka-metric-names.ts'
import {
  TXN_ABORT_CAUSES,
  TXN_HISTORY_OUTCOMES,
  type FigureSummary,
  type TxnHistoryOutcome,
  type TxnHistoryPage,
  type TxnStatsView,
} from '../lib/txn-statistics.ts'
import { fmtInt, fmtMs } from './format.ts'
import { authHeaders, readToken } from './lab-token.ts'
import { Panel } from './panel.tsx'
import { Segmented } from './segmented.tsx'

export interface TransactionHistoryProps {
  stats: { life: TxnStatsView; run: TxnStatsView } | undefined
  /** The moment shown when the view is held (rows ended after it are left out); null when live. */
  heldAtMs: number | null
}

export interface TxnHistoryFilters {
  outcome: TxnHistoryOutcome | 'all'
  transactionalId: string
  minDurationMs: string
  /** Ended within the last this many ms of the moment shown; 0: any time. */
  withinMs: number
}

const ROWS_SHOWN = 50
const REFRESH_MS = 3_000
const WITHIN: { value: number; label: string }[] = [
  { value: 0, label: 'any time' },
  { value: 60_000, label: 'last minute' },
  { value: 5 * 60_000, label: 'last 5 minutes' },
  { value: 15 * 60_000, label: 'last 15 minutes' },
]

/**
 * The query string of GET /api/lab/transactions for these filters (what a bad filter field would send is left out).
 * `fromMs`: the start of the span the statistics above the rows cover (this run's), so the rows are that span's too.
 */
export function historyQuery(
  f: TxnHistoryFilters,
  nowMs: number,
  heldAtMs: number | null,
  extra: Record<string, string> = {},
  fromMs: number | null = null,
): string {
  const q = new URLSearchParams()
  if (f.outcome !== 'all') q.set('outcome', f.outcome)
  if (f.transactionalId.trim() !== '') q.set('transactionalId', f.transactionalId.trim())
  if (/^\d{1,9}(\.\d{1,3})?$/.test(f.minDurationMs.trim())) q.set('minDurationMs', f.minDurationMs.trim())
  const until = heldAtMs ?? null
  const within = f.withinMs > 0 ? Math.max(0, Math.floor((until ?? nowMs) - f.withinMs)) : null
  const since = fromMs === null ? within : Math.max(Math.floor(fromMs), within ?? 0)
  if (since !== null) q.set('sinceMs', String(since))
  if (until !== null) q.set('untilMs', String(Math.ceil(until)))
  for (const [k, v] of Object.entries(extra)) q.set(k, v)
  return q.toString()
}

const triple = (s: FigureSummary, fmt: (n: number | null) => string) =>
  s.count === 0 ? '—' : `${fmt(s.min)} · ${fmt(s.avg)} · ${fmt(s.p99)}`
// Records are whole numbers: a sketch's answer (within 1%) and an average above 10 are shown whole.
const fmtRecords = (n: number | null) => (n === null ? '—' : n < 10 && !Number.isInteger(n) ? n.toFixed(1) : fmtInt(n))
const fmtLatency = (n: number | null) => (n === null ? '—' : n < 10 ? `${n.toFixed(2)} ms` : fmtMs(n))

function StatsTable({ view }: { view: TxnStatsView }) {
  return (
    /* biome-ignore lint/a11y/noNoninteractiveTabindex: scrolls sideways in a narrow window, and takes the
       keyboard's focus to do so (axe: scrollable-region-focusable) */
    <div className="table-scroll" tabIndex={0}>
      <table className="history txn-stats" data-testid="txn-stats">
        <thead>
          <tr>
            <th>outcome</th>
            <th className="r">count</th>
            <th className="r" title="begin → end">
              duration min · avg · p99
            </th>
            <th className="r" title="output + changelog records">
              records min · avg · p99
            </th>
            <th className="r" title="the producer's commitTransaction / abortTransaction, as the worker measured it">
              EndTxn latency min · avg · p99
            </th>
          </tr>
        </thead>
        <tbody>
          {TXN_HISTORY_OUTCOMES.map((k) => {
            const o = view.outcomes[k]
            return (
              <tr
                key={k}
                className={`row-${k === 'committed' ? 'committed' : k === 'aborted' ? 'aborted' : 'teardown'}`}
              >
                <td>
                  <span className={`badge badge-${k === 'teardown' ? 'open' : k}`}>{k}</span>
                </td>
                <td className="num r" data-testid={`txn-stats-count-${k}`}>
                  {fmtInt(o.count)}
                </td>
                <td className="num r">{triple(o.durationMs, fmtLatency)}</td>
                <td className="num r">{triple(o.records, fmtRecords)}</td>
                <td className="num r">{triple(o.endTxnMs, fmtLatency)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

/** The producer metrics the measured latencies complete, with their Kafka names (lib/kafka-metric-names.ts). */
function ProducerTimes({ view }: { view: TxnStatsView }) {
  const figures: [string, number][] = [
    ['txn-commit-time-ns-total', view.outcomes.committed.endTxnMs.sum],
    ['txn-abort-time-ns-total', view.outcomes.aborted.endTxnMs.sum + view.outcomes.teardown.endTxnMs.sum],
    ['txn-send-offsets-time-ns-total', view.outcomes.committed.sendOffsetsMs.sum],
  ]
  const mapped = new Map(
    [...kafkaNamesShownOn('history:endTxnMs'), ...kafkaNamesShownOn('history:sendOffsetsMs')].map((m) => [m.kafka, m]),
  )
  return (
    <p className="txn-kafka-names small" data-testid="txn-kafka-names">
      {figures.map(([name, ms]) => (
        <span key={name} title={mapped.get(name)?.how}>
          <code>{name}</code> {fmtMs(ms)} <span className="muted">({fmtInt(ms * 1e6)} ns)</span>
        </span>
      ))}
      <span
        className="muted"
        title={kafkaNamesShownOn('history:endTxnMs').find((m) => m.kafka === 'commit-latency-avg')?.how}
      >
        EndTxn latency is not <code>commit-latency-avg</code> (that times Streams&apos; whole commit)
      </span>
    </p>
  )
}

function Causes({ view }: { view: TxnStatsView }) {
  return (
    <p className="txn-causes small" data-testid="txn-causes">
      <span className="muted">aborts by cause:</span>
      {TXN_ABORT_CAUSES.filter((c) => c !== 'teardown').map((c) => (
        <span key={c} className={view.causes[c] > 0 ? 'bad' : ''} data-testid={`txn-cause-${c}`}>
          {c === 'crash' ? 'crash (kill)' : c} {fmtInt(view.causes[c])}
        </span>
      ))}
      <span className="muted" title="ended by the lab's own reset or close: not a fault">
        teardown {fmtInt(view.causes.teardown)} (not a fault)
      </span>
    </p>
  )
}

/** Rows of the history for the filters, refreshed while live; the latest page or the error. */
function useHistoryRows(
  filters: TxnHistoryFilters,
  heldAtMs: number | null,
  fromMs: number | null,
): { page: TxnHistoryPage | null; error: string | null } {
  const [state, setState] = useState<{ page: TxnHistoryPage | null; error: string | null }>({ page: null, error: null })
  const key = JSON.stringify(filters)
  useEffect(() => {
    const f = JSON.parse(key) as TxnHistoryFilters
    let stop = false
    let inFlight: AbortController | null = null
    const load = async () => {
      if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return
      inFlight?.abort()
      const ac = new AbortController()
      inFlight = ac
      try {
        const r = await fetch(
          `/api/lab/transactions?${historyQuery(f, Date.now(), heldAtMs, { limit: String(ROWS_SHOWN) }, fromMs)}`,
          { headers: authHeaders(), signal: ac.signal },
        )
        const body = (await r.json()) as TxnHistoryPage | { error: string }
        if (!stop) setState('error' in body ? { page: null, error: body.error } : { page: body, error: null })
      } catch (e) {
        if (!stop && !ac.signal.aborted) setState((s) => ({ ...s, error: (e as Error).message }))
      }
    }
    void load()
    const timer = heldAtMs === null ? setInterval(() => void load(), REFRESH_MS) : null
    return () => {
      stop = true
      inFlight?.abort()
      if (timer) clearInterval(timer)
    }
  }, [key, heldAtMs, fromMs])
  return state
}

/** A download of the export: a plain link, or with the token when reads need one. */
async function downloadWithToken(e: MouseEvent<HTMLAnchorElement>): Promise<void> {
  if (readToken() === null) return
  e.preventDefault()
  const a = e.currentTarget
  const r = await fetch(a.href, { headers: authHeaders() })
  const name = /filename="([^"]+)"/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? a.download
  const url = URL.createObjectURL(await r.blob())
  const link = Object.assign(document.createElement('a'), { href: url, download: name })
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

const Filters = memo(function Filters({
  filters,
  onChange,
}: {
  filters: TxnHistoryFilters
  onChange: (f: TxnHistoryFilters) => void
}) {
  const badDuration = filters.minDurationMs.trim() !== '' && !/^\d{1,9}(\.\d{1,3})?$/.test(filters.minDurationMs.trim())
  return (
    <fieldset className="txn-filters" aria-label="filter the rows">
      <label>
        outcome
        <select
          className="field"
          value={filters.outcome}
          onChange={(e) => onChange({ ...filters, outcome: e.target.value as TxnHistoryFilters['outcome'] })}
          data-testid="txn-filter-outcome"
        >
          <option value="all">all</option>
          {TXN_HISTORY_OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </label>
      <label>
        transactional.id contains
        <input
          className="text-input"
          type="text"
          value={filters.transactionalId}
          maxLength={256}
          placeholder="e.g. 0_1"
          onChange={(e) => onChange({ ...filters, transactionalId: e.target.value })}
          data-testid="txn-filter-id"
        />
      </label>
      <label>
        duration ≥ ms
        <input
          type="text"
          inputMode="decimal"
          value={filters.minDurationMs}
          aria-invalid={badDuration}
          className={badDuration ? 'text-input invalid' : 'text-input'}
          onChange={(e) => onChange({ ...filters, minDurationMs: e.target.value })}
          data-testid="txn-filter-duration"
        />
      </label>
      <label>
        ended
        <select
          className="field"
          value={filters.withinMs}
          onChange={(e) => onChange({ ...filters, withinMs: Number(e.target.value) })}
          data-testid="txn-filter-within"
        >
          {WITHIN.map((w) => (
            <option key={w.value} value={w.value}>
              {w.label}
            </option>
          ))}
        </select>
      </label>
    </fieldset>
  )
})

const Rows = memo(function Rows({ page }: { page: TxnHistoryPage }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box, focusable so a keyboard can scroll it
    <div className="table-scroll txn-history-rows" tabIndex={0}>
      <table className="history" data-testid="txn-history-rows">
        <thead>
          <tr>
            <th>ended</th>
            <th>transactional.id</th>
            <th>worker</th>
            <th>outcome</th>
            <th>cause</th>
            <th className="r">duration</th>
            <th className="r">out</th>
            <th className="r">changelog</th>
            <th className="r">offsets</th>
            <th className="r">EndTxn</th>
          </tr>
        </thead>
        <tbody>
          {[...page.rows].reverse().map((r) => (
            <tr
              key={`${r.producerId}.${r.epoch}.${r.endMs}`}
              className={`row-${r.outcome === 'teardown' ? 'teardown' : r.outcome}`}
              data-outcome={r.outcome}
              data-cause={r.cause ?? ''}
            >
              <td className="num">{new Date(r.endMs).toLocaleTimeString('en-GB', { hour12: false })}</td>
              <td
                className="mono ellipsis"
                title={`${r.transactionalId} · producer ${r.producerId} epoch ${r.epoch} · ${r.partitions}`}
              >
                {r.transactionalId}
              </td>
              <td className="mono">{r.workerId ?? '—'}</td>
              <td>
                <span className={`badge badge-${r.outcome === 'teardown' ? 'open' : r.outcome}`}>{r.outcome}</span>
              </td>
              <td>{r.cause ?? ''}</td>
              <td className="num r">{fmtLatency(r.durationMs)}</td>
              <td className="num r">{fmtInt(r.outputRecords)}</td>
              <td className="num r">{fmtInt(r.changelogRecords)}</td>
              <td className="num r">{fmtInt(r.offsetsCommitted)}</td>
              <td className="num r">{fmtLatency(r.endTxnMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.rows.length === 0 ? <p className="muted empty">No transaction matches.</p> : null}
    </div>
  )
})

export const TransactionHistoryView = memo(function TransactionHistoryView({
  stats,
  heldAtMs,
}: TransactionHistoryProps) {
  const [span, setSpan] = useState<'run' | 'life'>('run')
  const [filters, setFilters] = useState<TxnHistoryFilters>({
    outcome: 'all',
    transactionalId: '',
    minDurationMs: '',
    withinMs: 0,
  })
  const view = stats?.[span]
  // The rows and exports cover what the statistics above them cover: this run's rows under "this run" (issue
  // 34: "this run: committed 0" above 2,488 committed rows of the run before).
  const fromMs = span === 'run' ? (stats?.run.sinceMs ?? null) : null
  const { page, error } = useHistoryRows(filters, heldAtMs, fromMs)
  // JSON answers a page (500 rows unless a limit says more, at most 5000); the CSV streams every row kept.
  const exportQuery = (format: 'csv' | 'json') => {
    const extra: Record<string, string> = format === 'json' ? { format, limit: '5000' } : { format }
    return `/api/lab/transactions?${historyQuery(filters, Date.now(), heldAtMs, extra, fromMs)}`
  }
  return (
    <Panel
      title="Transaction history"
      hint={
        'Every ended transaction: exact counts, sums and extremes; ' +
        `p50/p99 within ${view ? view.relativeError * 100 : 1}% (a log-bucket sketch)`
      }
      testId="txn-history-view"
      actions={
        <Segmented
          label="statistics over"
          options={[
            { value: 'run', label: 'this run' },
            { value: 'life', label: "lab's life" },
          ]}
          value={span}
          testId={(v) => `txn-span-${v}`}
          onSelect={setSpan}
        />
      }
    >
      {view ? (
        <>
          <StatsTable view={view} />
          <Causes view={view} />
          <ProducerTimes view={view} />
        </>
      ) : (
        <p className="muted empty">No statistics from this lab.</p>
      )}
      <h3 className="sub-head" data-testid="txn-rows-head">
        Rows of {span === 'run' ? 'this run' : 'the lab’s life'} · newest first, the latest {ROWS_SHOWN} that match
      </h3>
      <div className="txn-history-bar">
        <Filters filters={filters} onChange={setFilters} />
        <span className="txn-exports">
          <a
            className="export-link"
            href={exportQuery('csv')}
            download="eoscope-transactions.csv"
            onClick={(e) => void downloadWithToken(e)}
            data-testid="txn-export-csv"
          >
            Export CSV
          </a>
          <a
            className="export-link"
            href={exportQuery('json')}
            download="eoscope-transactions.json"
            onClick={(e) => void downloadWithToken(e)}
            data-testid="txn-export-json"
          >
            Export JSON
          </a>
        </span>
      </div>
      <p className="muted small" data-testid="txn-history-window">
        {page
          ? `${page.window.text}. ${fmtInt(page.matched)} match; exports hold every matching row.`
          : error
            ? `Rows unavailable: ${error}`
            : 'Loading rows…'}
      </p>
      {page ? <Rows page={page} /> : null}
    </Panel>
  )
})
