import { memo, useRef } from 'react'
import type { TxnView } from '../lib/lab-protocol.ts'
import { fmtInt, fmtMs, fmtSince } from './format.ts'
import { Panel } from './panel.tsx'
import { HistoryTable } from './history-table.tsx'

export interface TransactionsPanelProps {
  transactions: TxnView[]
  totals: { committed: number; aborted: number; open: number }
  startedAtMs: number
  nowMs: number
  /** Widest time window of the lanes. */
  windowMs?: number
  historyRows?: number
}

export interface Lane {
  transactionalId: string
  producerId: number
  epoch: number
  txns: TxnView[]
}

/**
 * One lane per transactional producer, sorted by transactional.id; the epoch of its latest transaction
 * labels the lane (the epoch that transaction began with: on the embedded log the producer's current
 * epoch, on its worker card, moves on at each EndTxn, KIP-890).
 */
export function toLanes(transactions: TxnView[]): Lane[] {
  const lanes = new Map<string, Lane>()
  for (const t of transactions) {
    const lane = lanes.get(t.transactionalId) ?? {
      transactionalId: t.transactionalId,
      producerId: t.producerId,
      epoch: t.epoch,
      txns: [],
    }
    lane.txns.push(t)
    if (t.epoch > lane.epoch || (t.epoch === lane.epoch && t.producerId !== lane.producerId)) {
      lane.epoch = t.epoch
      lane.producerId = t.producerId
    }
    lanes.set(t.transactionalId, lane)
  }
  return [...lanes.values()].sort((a, b) => a.transactionalId.localeCompare(b.transactionalId, 'en', { numeric: true }))
}

/** What the lane's epoch is (docs/measures.md, "Current epoch and a transaction's epoch"). */
export const LANE_EPOCH =
  'last txn e…: the epoch its latest transaction began with; the producer’s current epoch is on its worker card ' +
  'and moves on at every EndTxn on the embedded log (KIP-890)'

function txnTitle(t: TxnView): string {
  const dur = t.endMs === null ? 'open' : fmtMs(t.endMs - t.beginMs)
  return [
    `${t.id} · ${t.outcome}${t.abortReason ? ` (${t.abortReason})` : ''}`,
    `${fmtInt(t.outputRecords)} output + ${fmtInt(t.changelogRecords)} changelog records`,
    `${fmtInt(t.offsetsCommitted)} offsets`,
    dur,
    `producer ${t.producerId}, epoch of this transaction ${t.epoch}`,
  ].join(' · ')
}

/**
 * The lanes' time window: at most `maxMs`, but no older than the oldest transaction the snapshot
 * holds (the lab keeps the latest ones only), and at least one second.
 */
export function laneWindow(transactions: TxnView[], nowMs: number, maxMs: number): number {
  let oldest = nowMs
  for (const t of transactions) if (t.beginMs < oldest) oldest = t.beginMs
  return Math.min(maxMs, Math.max(1000, nowMs - oldest))
}

/** History rows: the latest finished transactions, newest first, with every aborted one the snapshot still holds. */
export function historyRows(transactions: TxnView[], rows: number): TxnView[] {
  const finished = transactions.filter((t) => t.outcome !== 'open').sort((a, b) => (b.endMs ?? 0) - (a.endMs ?? 0))
  const shown = finished.slice(0, rows)
  const extra = finished
    .slice(rows)
    .filter((t) => t.outcome === 'aborted')
    .slice(0, REMEMBERED_ABORTS)
  return [...shown, ...extra].sort((a, b) => (b.endMs ?? 0) - (a.endMs ?? 0))
}

const TxnLanes = memo(function TxnLanes({
  transactions,
  nowMs,
  maxWindowMs,
}: {
  transactions: TxnView[]
  nowMs: number
  maxWindowMs: number
}) {
  const windowMs = laneWindow(transactions, nowMs, maxWindowMs)
  const from = nowMs - windowMs
  const lanes = toLanes(transactions)
  const pct = (ms: number) => `${Math.max(0, Math.min(100, ((ms - from) / windowMs) * 100))}%`
  return (
    /* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box, focusable so a keyboard can scroll it
       (axe: scrollable-region-focusable) */
    <div className="lanes-scroll" tabIndex={0}>
      {/* biome-ignore lint/a11y/useSemanticElements: besides its lanes the list holds its empty message and the
          time axis, which a <ul> may not hold (axe: list) */}
      <div className="lanes" role="list" aria-label="transactions per producer">
        {lanes.map((lane) => (
          // biome-ignore lint/a11y/useSemanticElements: a lane of the div list above (a <li> belongs in a <ul>)
          <div className="lane" role="listitem" key={lane.transactionalId}>
            <div
              className="lane-label mono"
              title={`transactional.id ${lane.transactionalId}, producer id ${lane.producerId}; ${LANE_EPOCH}`}
            >
              <span className="ellipsis">{lane.transactionalId}</span>
              <span className="muted small">
                pid {lane.producerId} · last txn e{lane.epoch}
              </span>
            </div>
            <div className="lane-track">
              {lane.txns
                .filter((t) => (t.endMs ?? nowMs) >= from)
                .map((t) => {
                  const begin = Math.max(t.beginMs, from)
                  const end = t.endMs ?? nowMs
                  return (
                    <span
                      key={t.id}
                      className={`txn-bar txn-${t.outcome}`}
                      data-testid="txn-bar"
                      data-outcome={t.outcome}
                      style={{ left: pct(begin), width: `max(3px, calc(${pct(end)} - ${pct(begin)}))` }}
                      title={txnTitle(t)}
                    />
                  )
                })}
            </div>
          </div>
        ))}
        {lanes.length === 0 ? (
          <p className="muted empty">No transactions: at_least_once and at_most_once write without them.</p>
        ) : null}
        <div className="lane lane-axis" aria-hidden="true" hidden={lanes.length === 0}>
          <div />
          <div className="lane-track axis">
            <span style={{ left: '0%' }}>−{(windowMs / 1000).toFixed(1)} s</span>
            <span style={{ left: '50%' }}>−{(windowMs / 2000).toFixed(1)} s</span>
            <span style={{ right: '0%' }}>now</span>
          </div>
        </div>
      </div>
    </div>
  )
})

const TxnHistory = memo(function TxnHistory({
  transactions,
  startedAtMs,
  rows,
}: {
  transactions: TxnView[]
  startedAtMs: number
  rows: number
}) {
  const latest = historyRows(transactions, rows)
  return (
    <HistoryTable
      testId="txn-history"
      head={
        <>
          <th>id</th>
          <th title="the producer id and the epoch this transaction began with">producer · txn epoch</th>
          <th>partitions</th>
          <th className="r">out</th>
          <th className="r">changelog</th>
          <th className="r">offsets</th>
          <th className="r">began</th>
          <th className="r">duration</th>
          <th>outcome</th>
          <th>abort reason</th>
        </>
      }
      after={latest.length === 0 ? <p className="muted empty">No finished transactions yet.</p> : null}
    >
      {latest.map((t) => (
        <tr key={t.id} className={`row-${t.outcome}`} data-outcome={t.outcome}>
          <td className="mono">{t.id}</td>
          <td className="mono" title={t.transactionalId}>
            {t.producerId} · {t.epoch}
          </td>
          <td className="mono ellipsis cell-partitions" title={t.partitions.join(', ')}>
            {t.partitions.join(', ')}
          </td>
          <td className="num r">{fmtInt(t.outputRecords)}</td>
          <td className="num r">{fmtInt(t.changelogRecords)}</td>
          <td className="num r">{fmtInt(t.offsetsCommitted)}</td>
          <td className="num r">{fmtSince(t.beginMs, startedAtMs)}</td>
          <td className="num r">{t.endMs === null ? '—' : fmtMs(t.endMs - t.beginMs)}</td>
          <td>
            <span className={`badge badge-${t.outcome}`}>{t.outcome}</span>
          </td>
          <td>{t.abortReason ?? ''}</td>
        </tr>
      ))}
    </HistoryTable>
  )
})

/** How many aborted transactions the page remembers after the lab's snapshot has dropped them. */
export const REMEMBERED_ABORTS = 10

/**
 * Aborted transactions seen since the lab (re)started, newest last: the lab keeps only its latest
 * transactions, and an abort after a kill should stay in the history table.
 */
function useRememberedAborts(transactions: TxnView[], startedAtMs: number): TxnView[] {
  const memory = useRef<{ startedAtMs: number; aborts: Map<string, TxnView> }>({ startedAtMs, aborts: new Map() })
  if (memory.current.startedAtMs !== startedAtMs) memory.current = { startedAtMs, aborts: new Map() }
  const aborts = memory.current.aborts
  for (const t of transactions) if (t.outcome === 'aborted' && !aborts.has(t.id)) aborts.set(t.id, t)
  while (aborts.size > REMEMBERED_ABORTS) aborts.delete(aborts.keys().next().value!)
  return [...aborts.values()]
}

/** What "open" counts here (docs/measures.md#open-transactions); the Partitions panel counts the same from the log. */
const OPEN_DEFINITION =
  'open transactions: begun by a producer and not yet committed or aborted, each counted once however many ' +
  'partitions it wrote to'

const LANES_HINT =
  'A lane per transactional producer; each bar runs from begin to commit (green) or abort (red); hover for record ' +
  'counts'

export const TransactionsPanel = memo(function TransactionsPanel({
  transactions,
  totals,
  startedAtMs,
  nowMs,
  windowMs = 10_000,
  historyRows: rows = 12,
}: TransactionsPanelProps) {
  const remembered = useRememberedAborts(transactions, startedAtMs)
  const held = new Set(transactions.map((t) => t.id))
  const forHistory = remembered.some((t) => !held.has(t.id))
    ? [...transactions, ...remembered.filter((t) => !held.has(t.id))]
    : transactions
  return (
    <Panel
      title="Transactions"
      hint={LANES_HINT}
      testId="transactions"
      actions={
        <span className="txn-totals num" data-testid="txn-totals">
          <span className="ok">{fmtInt(totals.committed)} committed</span> ·{' '}
          <span className={totals.aborted ? 'bad' : ''} data-testid="txn-aborted">
            {fmtInt(totals.aborted)} aborted
          </span>{' '}
          ·{' '}
          <span data-testid="txn-open" title={OPEN_DEFINITION}>
            {fmtInt(totals.open)} open
          </span>
        </span>
      }
    >
      <TxnLanes transactions={transactions} nowMs={nowMs} maxWindowMs={windowMs} />
      <h3 className="sub-head">History · finished transactions, newest first</h3>
      <TxnHistory transactions={forHistory} startedAtMs={startedAtMs} rows={rows} />
    </Panel>
  )
})
