'use client'
// The message browser: any partition of the lab's input, output and changelog topics, by offset
// range, key or time; every stored record with what a read_committed and a read_uncommitted
// consumer are given, side by side; control markers, aborted and pending records marked; headers,
// the producer's fields and the input record an output came from on expand. Its query lives in the
// URL (message-browser-query.ts), so links from other panels open it at exact offsets.

import { orNone } from '../lib/kafka-none.ts'
import { Fragment, useCallback, useEffect, useState, type FormEvent } from 'react'
import type { MessagePage, MessageRow } from '../lib/message-browser.ts'
import type { LabTopicRole } from '../lib/log-range.ts'
import { authHeaders } from './lab-token.ts'
import { fmtInt } from './format.ts'
import { MessagesLink } from './message-browser-link.tsx'
import {
  apiParams,
  MESSAGE_BROWSER_ID,
  OPEN_EVENT,
  readBrowserQuery,
  writeBrowserQuery,
  type BrowserQuery,
} from './message-browser-query.ts'
import { Panel } from './panel.tsx'

export interface MessageBrowserProps {
  /** The lab's partitions per topic. */
  partitions: number
}

const DEFAULT_QUERY: BrowserQuery = { topic: 'output', partition: 0 }
const TOPICS: LabTopicRole[] = ['input', 'output', 'changelog']

async function fetchPage(q: BrowserQuery, signal: AbortSignal): Promise<MessagePage> {
  const r = await fetch(`/api/lab/messages?${apiParams(q)}`, { headers: authHeaders(), signal })
  const body = (await r.json().catch(() => ({}))) as MessagePage & { error?: string }
  if (!r.ok) throw new Error(body.error ?? `${r.status} ${r.statusText}`)
  return body
}

/** The query from the URL (or the default), the page read for it, and how to ask for another. */
function useMessagePage() {
  const [query, setQuery] = useState<BrowserQuery>(DEFAULT_QUERY)
  const [page, setPage] = useState<MessagePage | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [reads, setReads] = useState(0)
  useEffect(() => {
    // Reads only when asked (a query in the URL, a link, Read): a dashboard load costs no log read.
    const fromUrl = () => {
      const q = readBrowserQuery(window.location.search)
      setQuery(q ?? DEFAULT_QUERY)
      if (q) setReads((n) => n + 1)
      else setPage(null)
    }
    fromUrl()
    window.addEventListener('popstate', fromUrl)
    window.addEventListener(OPEN_EVENT, fromUrl)
    return () => {
      window.removeEventListener('popstate', fromUrl)
      window.removeEventListener(OPEN_EVENT, fromUrl)
    }
  }, [])
  useEffect(() => {
    if (reads === 0) return
    const ac = new AbortController()
    setError(null)
    fetchPage(query, ac.signal).then(
      (p) => setPage(p),
      (e: unknown) => {
        if (ac.signal.aborted) return
        setPage(null)
        setError(e instanceof Error ? e.message : String(e))
      },
    )
    return () => ac.abort()
  }, [query, reads])
  const ask = useCallback((q: BrowserQuery) => {
    window.history.pushState(null, '', `${writeBrowserQuery(window.location.search, q)}#${MESSAGE_BROWSER_ID}`)
    setQuery(q)
    setReads((n) => n + 1)
  }, [])
  return { query, page, error, ask }
}

const num = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s.trim()))

function MessageForm({
  query,
  partitions,
  onAsk,
}: {
  query: BrowserQuery
  partitions: number
  onAsk: (q: BrowserQuery) => void
}) {
  const [draft, setDraft] = useState(query)
  useEffect(() => setDraft(query), [query])
  const text = (v: number | string | undefined) => (v === undefined ? '' : String(v))
  const set = (patch: Partial<BrowserQuery>) => setDraft((d) => ({ ...d, ...patch }))
  const submit = (e: FormEvent) => {
    e.preventDefault()
    onAsk(
      Object.fromEntries(
        Object.entries(draft).filter(([, v]) => v !== undefined && v !== ''),
      ) as unknown as BrowserQuery,
    )
  }
  return (
    <form className="msg-form" onSubmit={submit} data-testid="msg-form">
      <label>
        topic
        <select
          value={draft.topic}
          onChange={(e) => set({ topic: e.target.value as LabTopicRole })}
          data-testid="msg-topic"
        >
          {TOPICS.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label>
        partition
        <select
          value={draft.partition}
          onChange={(e) => set({ partition: Number(e.target.value) })}
          data-testid="msg-partition"
        >
          {Array.from({ length: Math.max(partitions, draft.partition + 1) }, (_, p) => p).map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </label>
      <label title="first offset (included)">
        from{' '}
        <input
          inputMode="numeric"
          value={text(draft.from)}
          onChange={(e) => set({ from: num(e.target.value) })}
          placeholder="newest"
          data-testid="msg-from"
        />
      </label>
      <label title="end offset (excluded): the range is [from, to)">
        to{' '}
        <input
          inputMode="numeric"
          value={text(draft.to)}
          onChange={(e) => set({ to: num(e.target.value) })}
          placeholder="HW"
          data-testid="msg-to"
        />
      </label>
      <label>
        key{' '}
        <input
          value={draft.key ?? ''}
          onChange={(e) => set({ key: e.target.value || undefined })}
          placeholder="any"
          data-testid="msg-key"
        />
      </label>
      <label title="only the records made from this input record: PARTITION@OFFSET (a duplicate's copies)">
        source{' '}
        <input
          value={draft.source ?? ''}
          onChange={(e) => set({ source: e.target.value || undefined })}
          placeholder="any"
          data-testid="msg-source"
        />
      </label>
      <label title="record timestamps at or after this instant (ms since the epoch)">
        since ms{' '}
        <input
          inputMode="numeric"
          className="wide"
          value={text(draft.sinceMs)}
          onChange={(e) => set({ sinceMs: num(e.target.value) })}
        />
      </label>
      <label title="record timestamps before this instant (ms since the epoch)">
        until ms{' '}
        <input
          inputMode="numeric"
          className="wide"
          value={text(draft.untilMs)}
          onChange={(e) => set({ untilMs: num(e.target.value) })}
        />
      </label>
      <button type="submit" data-testid="msg-read">
        Read
      </button>
    </form>
  )
}

const STATE_LABEL: Record<MessageRow['state'], string> = {
  committed: 'committed',
  aborted: 'aborted',
  pending: 'pending',
  'non-transactional': 'no txn',
  control: 'marker',
}

function clock(ms: number): string {
  const d = new Date(ms)
  return `${d.toLocaleTimeString('en-GB', { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0')}`
}

function Seen({ seen, what }: { seen: boolean; what: string }) {
  return (
    <td
      className={`r msg-seen ${seen ? 'ok' : 'muted'}`}
      title={seen ? `a ${what} consumer is given this record` : `a ${what} consumer is not given this record`}
    >
      {seen ? '✓' : '—'}
    </td>
  )
}

function RowDetail({ r, partition }: { r: MessageRow; partition: number }) {
  const headers = Object.entries(r.headers)
  return (
    <tr className="msg-detail" data-testid="msg-detail">
      <td colSpan={9}>
        <dl>
          <dt>producer</dt>
          <dd className="mono">
            id {orNone(r.producerId)} · epoch {orNone(r.producerEpoch)} · sequence {orNone(r.sequence)} ·{' '}
            {r.transactional ? 'transactional' : 'not transactional'}
          </dd>
          <dt>headers</dt>
          <dd className="mono">
            {headers.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              headers.map(([k, v]) => <div key={k}>{`${k}: ${v}`}</div>)
            )}
          </dd>
          <dt>value</dt>
          <dd className="mono msg-value-full">{r.value ?? <span className="muted">null</span>}</dd>
          {r.source ? (
            <>
              <dt>came from</dt>
              <dd>
                <MessagesLink
                  query={{
                    topic: 'input',
                    partition: r.source.partition,
                    from: r.source.offset,
                    to: r.source.offset + 1,
                  }}
                >
                  input-{r.source.partition} @ {r.source.offset}
                </MessagesLink>
                {r.sameSourceAs.length > 0 ? (
                  <span className="bad">
                    {' '}
                    · also written at {r.sameSourceAs.map((o) => `${partition}@${o}`).join(', ')} (a duplicate)
                  </span>
                ) : null}
              </dd>
            </>
          ) : null}
        </dl>
      </td>
    </tr>
  )
}

function MessageRowView({
  r,
  partition,
  open,
  onToggle,
}: {
  r: MessageRow
  partition: number
  open: boolean
  onToggle: () => void
}) {
  const cls = `msg-row msg-${r.state}${r.sameSourceAs.length > 0 ? ' msg-dup' : ''}`
  return (
    <>
      <tr
        className={cls}
        data-testid="msg-row"
        data-offset={r.offset}
        data-state={r.state}
        data-rc={r.readCommitted}
        data-ru={r.readUncommitted}
      >
        <td className="num">
          <button
            type="button"
            className="link-button"
            onClick={onToggle}
            aria-expanded={open}
            title="headers, producer and provenance"
          >
            {open ? '▾' : '▸'} {r.offset}
          </button>
        </td>
        <td className="num muted">{clock(r.timestamp)}</td>
        <td className="mono">
          {r.control ? <span className="msg-marker">{r.control}</span> : (r.key ?? <span className="muted">null</span>)}
        </td>
        <td className="mono msg-value">{r.control ? '' : r.value}</td>
        <td className="num" title="producer id · epoch · sequence">
          {orNone(r.producerId)}·{orNone(r.producerEpoch)}·{orNone(r.sequence)}
        </td>
        <td>
          <span className={`chip msg-state-${r.state}`}>{STATE_LABEL[r.state]}</span>
          {r.aboveLso && r.control === null ? (
            <span className="chip warn-text" title="at or above the last stable offset">
              ≥ LSO
            </span>
          ) : null}
          {r.sameSourceAs.length > 0 ? (
            <span className="chip bad" title={`same input record as offset ${r.sameSourceAs.join(', ')}`}>
              copy
            </span>
          ) : null}
        </td>
        <Seen seen={r.readCommitted} what="read_committed" />
        <Seen seen={r.readUncommitted} what="read_uncommitted" />
        <td className="num">{r.source ? `in-${r.source.partition}@${r.source.offset}` : ''}</td>
      </tr>
      {open ? <RowDetail r={r} partition={partition} /> : null}
    </>
  )
}

function PageTable({ page }: { page: MessagePage }) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set())
  const toggle = (o: number) => setOpen((s) => (s.has(o) ? new Set([...s].filter((x) => x !== o)) : new Set([...s, o])))
  return (
    <div className="msg-scroll">
      <table className="msg-table">
        <thead>
          <tr>
            <th>offset</th>
            <th>timestamp</th>
            <th>key</th>
            <th>value</th>
            <th title="producer id · epoch · sequence">producer</th>
            <th>transaction</th>
            <th className="r">read_committed</th>
            <th className="r">read_uncommitted</th>
            <th title="the input record it came from">source</th>
          </tr>
        </thead>
        <tbody>
          {page.records.map((r) => (
            <Fragment key={r.offset}>
              <MessageRowView
                r={r}
                partition={page.partition}
                open={open.has(r.offset)}
                onToggle={() => toggle(r.offset)}
              />
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function PageSummary({ page }: { page: MessagePage }) {
  const rc = page.records.filter((r) => r.readCommitted).length
  const ru = page.records.filter((r) => r.readUncommitted).length
  const { logStartOffset, lastStableOffset, highWatermark } = page
  return (
    <p className="num msg-summary" data-testid="msg-summary">
      <span className="mono">
        {page.topic}-{page.partition}
      </span>{' '}
      · log start {fmtInt(logStartOffset)} · LSO {fmtInt(lastStableOffset)} · HW {fmtInt(highWatermark)} · read [
      {fmtInt(page.from)}, {fmtInt(page.scannedTo)}): {fmtInt(page.records.length)} records shown, {fmtInt(rc)} given to
      read_committed, {fmtInt(ru)} to read_uncommitted
    </p>
  )
}

const BROWSER_HINT =
  'Every stored record of a partition, control markers included, with what a read_committed and a read_uncommitted ' +
  'consumer are each given: read_committed stops at the last stable offset (LSO) and skips aborted records. Click an ' +
  'offset for its headers, producer and the input record it came from.'

/** The message browser panel. */
export function MessageBrowser({ partitions }: MessageBrowserProps) {
  const { query, page, error, ask } = useMessagePage()
  const next = page?.nextOffset ?? null
  return (
    <div id={MESSAGE_BROWSER_ID} className="msg-anchor">
      <Panel title="Message browser" hint={BROWSER_HINT} testId="message-browser">
        <MessageForm query={query} partitions={partitions} onAsk={ask} />
        {error ? (
          <p className="bad" role="alert" data-testid="msg-error" data-lab={query.lab}>
            {error}
            {query.lab !== undefined ? ' Newest reads the running lab.' : null}
          </p>
        ) : null}
        {page ? (
          <PageSummary page={page} />
        ) : (
          <p className="muted small">
            Choose a partition and Read, or follow a link from the duplicate ledger, a traced record, an evidence card
            or the Partitions table. It reads the log as it is now, also while the dashboard is paused.
          </p>
        )}
        {page ? <PageTable key={`${page.topic}-${page.partition}-${page.from}`} page={page} /> : null}
        {page && page.records.length === 0 ? <p className="muted empty">No record in this range matches.</p> : null}
        <div className="msg-pager">
          {next !== null ? (
            <button type="button" onClick={() => ask({ ...query, from: next })} data-testid="msg-next">
              Next page from {fmtInt(next)} →
            </button>
          ) : null}
          {/* The running lab's newest records: a link's lab (an evidence card's) is left behind. */}
          <button
            type="button"
            onClick={() => ask({ ...query, from: undefined, to: undefined, lab: undefined })}
            data-testid="msg-newest"
          >
            Newest
          </button>
        </div>
      </Panel>
    </div>
  )
}
