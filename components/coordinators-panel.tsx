// The Transactions view: what `kafka-transactions.sh describe`, `describe-producers` and
// `find-hanging` show, for the lab's own transactional ids and partitions: each id's state at its
// coordinator, its transaction.timeout.ms, partitions, the age of its open transaction and its last
// update; each partition's producers (id, epoch, last sequence, the first offset of the open
// transaction); find-hanging's verdict with its reason; and the abort of a hanging transaction,
// confirmed first.

import { orNone } from '../lib/kafka-none.ts'
import { memo, useState } from 'react'
import type { CoordinatorRow, ProducerStateRow, TransactionsViewData } from '../lib/transactions-view.ts'
import { fmtInt, fmtMs } from './format.ts'
import { HistoryTable } from './history-table.tsx'
import { Panel } from './panel.tsx'
import { useCommand, type SendCommand } from './use-command.ts'

export interface TransactionsViewProps {
  /** undefined: not read yet (or this server does not send it). */
  view: TransactionsViewData | null | undefined
  send: SendCommand
}

/** Where each coordinator state sits: open, completing, or ended. */
const STATE_TONE: Record<string, string> = {
  Empty: 'idle',
  Ongoing: 'open',
  PrepareCommit: 'ending',
  PrepareAbort: 'ending',
  PrepareEpochFence: 'ending',
  CompleteCommit: 'committed',
  CompleteAbort: 'aborted',
  Dead: 'idle',
}

const ago = (atMs: number | null, nowMs: number) => (atMs === null ? '—' : `${fmtMs(Math.max(0, nowMs - atMs))} ago`)

function CoordinatorLine({ c, nowMs }: { c: CoordinatorRow; nowMs: number }) {
  const abort = c.lastAbort
  return (
    <tr
      data-testid="txn-id-row"
      data-transactional-id={c.transactionalId}
      data-state={c.state}
      data-last-abort-at={abort?.atMs ?? ''}
    >
      <td className="mono tv-name" title={c.transactionalId}>
        {c.transactionalId}
      </td>
      <td>
        <span className={`tv-state tv-${STATE_TONE[c.state] ?? 'idle'}`} data-testid="txn-id-state">
          {c.state}
        </span>
      </td>
      <td className="r mono">{`${c.producerId} / ${c.epoch}`}</td>
      <td className="r mono">{fmtInt(c.timeoutMs)}</td>
      <td className="mono tv-parts" title={c.partitions.join(' ')}>
        {c.partitions.length > 0 ? c.partitions.join(' ') : '—'}
      </td>
      <td className="r mono" data-testid="txn-id-age">
        {c.startTimeMs === null ? '—' : fmtMs(Math.max(0, nowMs - c.startTimeMs))}
      </td>
      <td
        className="r mono"
        title={
          c.lastUpdateMs === null
            ? "Kafka's DescribeTransactions does not report when the state last changed"
            : undefined
        }
      >
        {ago(c.lastUpdateMs, nowMs)}
      </td>
      <td className="tv-last" data-testid="txn-id-last-abort">
        {abort ? (
          <span className="tv-aborted-text">
            {`${abort.cause ?? 'aborted'}, epoch ${abort.epoch}, ${ago(abort.atMs, nowMs)}`}
          </span>
        ) : (
          '—'
        )}
      </td>
    </tr>
  )
}

function ProducerLine({ p }: { p: ProducerStateRow }) {
  return (
    <tr
      data-testid="producer-state-row"
      data-topic={p.topic}
      data-partition={p.partition}
      data-producer-id={p.producerId}
      data-verdict={p.verdict ?? ''}
      className={p.verdict ? `tv-row-${p.verdict}` : undefined}
    >
      <td className="mono tv-name" title={`${p.topic}-${p.partition}`}>{`${p.role}-${p.partition}`}</td>
      <td className="r mono">{p.producerId}</td>
      <td className="r mono">{p.epoch}</td>
      <td className="r mono" title="the last sequence number the broker accepted from this producer here">
        {orNone(p.lastSequence)}
      </td>
      <td className="r mono" data-testid="producer-first-offset">
        {p.firstOffset === null ? '—' : fmtInt(p.firstOffset)}
      </td>
      <td className="mono tv-name" title={p.transactionalId ?? 'no coordinator knows this producer id'}>
        {p.transactionalId ?? '—'}
      </td>
      <td className="tv-verdict" title={p.reason ?? undefined}>
        {p.verdict ? (
          <span className={`tv-badge tv-badge-${p.verdict}`}>{p.verdict}</span>
        ) : (
          <span className="muted">none open</span>
        )}
      </td>
    </tr>
  )
}

const HANGING_BADGE = <span className="tv-badge tv-badge-hanging">hanging</span>

function HangingItem({ p, send }: { p: ProducerStateRow; send: SendCommand }) {
  const [confirming, setConfirming] = useState(false)
  const [run, state] = useCommand(send)
  const id = `${p.topic}-${p.partition}`
  return (
    <li
      className="tv-hanging-item"
      data-testid="hanging-row"
      data-topic={p.topic}
      data-partition={p.partition}
      data-producer-id={p.producerId}
    >
      <div className="tv-hanging-text">
        {HANGING_BADGE} <span className="mono strong">{id}</span> from offset{' '}
        <span className="mono strong">{p.firstOffset}</span>: producer <span className="mono">{p.producerId}</span>{' '}
        epoch <span className="mono">{p.epoch}</span>
        <p className="small muted">{p.reason}</p>
      </div>
      {confirming ? (
        <fieldset className="tv-confirm" aria-label={`confirm the abort on ${id}`}>
          <p className="small">
            Write an ABORT marker for producer {p.producerId} on {id}? Its records from offset {p.firstOffset} become
            aborted and the last stable offset moves past them.
          </p>
          <button
            type="button"
            className="danger"
            data-testid="abort-confirm"
            disabled={state.pending}
            onClick={() =>
              void run('abortHangingTransaction', {
                topic: p.role,
                partition: p.partition,
                producerId: p.producerId,
              }).then((r) => r.ok && setConfirming(false))
            }
          >
            Abort it
          </button>
          <button
            type="button"
            data-testid="abort-cancel"
            disabled={state.pending}
            onClick={() => setConfirming(false)}
          >
            Cancel
          </button>
        </fieldset>
      ) : (
        <button
          type="button"
          className="warn"
          data-testid={`abort-hanging-${p.producerId}`}
          onClick={() => setConfirming(true)}
          title="WriteTxnMarkers ABORT at the partition's leader, as kafka-transactions.sh abort does"
        >
          Abort…
        </button>
      )}
      {state.error ? (
        <p className="control-error" data-testid="abort-error">
          ⚠ {state.error}
        </p>
      ) : null}
    </li>
  )
}

/** find-hanging's result: each hanging transaction with its abort, or the all-clear. */
function FindHanging({ view, send }: { view: TransactionsViewData; send: SendCommand }) {
  const hanging = view.producers.filter((p) => p.verdict === 'hanging')
  if (hanging.length === 0) {
    return (
      <p className="tv-find tv-find-clear" data-testid="find-hanging-result" data-hanging="0">
        find-hanging: no hanging transaction on the lab&apos;s partitions.
      </p>
    )
  }
  return (
    <div className="tv-find tv-find-hanging" role="alert" data-testid="find-hanging-result" data-hanging={view.hanging}>
      <p className="strong">
        {`find-hanging: ${view.hanging} hanging transaction${view.hanging === 1 ? '' : 's'}: ` +
          `the last stable offset stays behind ${view.hanging === 1 ? 'it' : 'them'} until aborted`}
      </p>
      <ul className="tv-hanging-list">
        {hanging.map((p) => (
          <HangingItem key={`${p.topic}-${p.partition}-${p.producerId}`} p={p} send={send} />
        ))}
      </ul>
    </div>
  )
}

const COORDINATOR_HEAD = [
  'transactional.id',
  'state',
  'producer / epoch',
  'transaction.timeout.ms',
  'partitions',
  'open for',
  'last update',
  'last abort',
]
/** The coordinator's figures that the lab shows elsewhere too, and how they differ (docs/measures.md). */
const COORDINATOR_TITLE: Record<string, string> = {
  'producer / epoch':
    'the producer id and epoch the coordinator held when this view was read: the current epoch as of that read. ' +
    'The worker card shows the latest known; a lane, the epoch its latest transaction began with',
}
const COORDINATOR_NUMERIC = new Set(['producer / epoch', 'transaction.timeout.ms', 'open for', 'last update'])
const PRODUCER_HEAD = ['partition', 'producer id', 'epoch', 'last seq', 'first offset', 'transactional.id', 'verdict']
const PRODUCER_NUMERIC = new Set(['producer id', 'epoch', 'last seq', 'first offset'])

const TRANSACTIONS_VIEW_HINT =
  "What kafka-transactions.sh describe, describe-producers and find-hanging show, for the lab's transactional ids " +
  'and its input, output and changelog partitions. A transaction hangs when a producer holds it open on a partition ' +
  'but no coordinator knows it as ongoing there: nothing will ever write its marker.'

/** The coordinators' and partition leaders' view of the lab's transactions. */
export const TransactionsView = memo(function TransactionsView({ view, send }: TransactionsViewProps) {
  const [inject, injectState] = useCommand(send)
  const open = view?.producers.filter((p) => p.verdict !== null).length ?? 0
  return (
    <Panel
      title="Transactions: coordinators and partitions"
      testId="transactions-view"
      className="transactions-view"
      hint={TRANSACTIONS_VIEW_HINT}
      actions={
        view ? (
          <>
            <span className="muted nowrap" data-testid="txnview-open">{`${open} open`}</span>
            <button
              type="button"
              data-testid="inject-hanging"
              disabled={view.injectUnavailable !== null || injectState.pending}
              title={
                view.injectUnavailable ??
                'fault: a transactional record of a producer id no coordinator knows, on output partition 0'
              }
              onClick={() => void inject('injectHangingTransaction', { topic: 'output', partition: 0 })}
            >
              Make a hanging transaction
            </button>
          </>
        ) : null
      }
    >
      {view == null ? (
        <p className="muted">Waiting for the first read of the coordinators…</p>
      ) : (
        <>
          {view.error ? (
            <p className="control-error" data-testid="txnview-error">
              ⚠ the last read failed: {view.error}
            </p>
          ) : null}
          {injectState.error ? <p className="control-error">⚠ {injectState.error}</p> : null}
          <FindHanging view={view} send={send} />
          <div className="tv-grid">
            <div className="tv-block">
              <h3 className="tv-sub">Transactional ids, as their coordinators hold them</h3>
              <HistoryTable
                className="tv-table"
                scrollClassName="tv-scroll"
                testId="txn-ids"
                head={COORDINATOR_HEAD.map((h) => (
                  <th key={h} className={COORDINATOR_NUMERIC.has(h) ? 'r' : undefined} title={COORDINATOR_TITLE[h]}>
                    {h}
                  </th>
                ))}
                after={view.coordinators.length === 0 ? <p className="muted small">No transactional id yet.</p> : null}
              >
                {view.coordinators.map((c) => (
                  <CoordinatorLine key={c.transactionalId} c={c} nowMs={view.readAtMs} />
                ))}
              </HistoryTable>
            </div>
            <div className="tv-block">
              <h3 className="tv-sub">Producers of each partition, as its leader holds them</h3>
              <HistoryTable
                className="tv-table"
                scrollClassName="tv-scroll"
                testId="producer-states"
                head={PRODUCER_HEAD.map((h) => (
                  <th key={h} className={PRODUCER_NUMERIC.has(h) ? 'r' : undefined}>
                    {h}
                  </th>
                ))}
                after={
                  view.producerCount > view.producers.length ? (
                    <p className="muted small">
                      {`${fmtInt(view.producerCount - view.producers.length)} more producers without an open ` +
                        'transaction not shown'}
                    </p>
                  ) : null
                }
              >
                {view.producers.map((p) => (
                  <ProducerLine key={`${p.topic}-${p.partition}-${p.producerId}`} p={p} />
                ))}
              </HistoryTable>
            </div>
          </div>
        </>
      )}
    </Panel>
  )
})
