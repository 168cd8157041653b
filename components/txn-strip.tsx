// The overview's strip of the latest transactions: one mark per transaction, oldest left, coloured
// by outcome, each naming its producer, epoch and what it wrote on hover and focus; the counts
// beside it are the Transactions page's, which holds every detail.

import Link from 'next/link'
import { memo } from 'react'
import type { TxnView } from '../lib/lab-protocol.ts'
import { fmtInt } from './format.ts'
import { Panel } from './panel.tsx'

export interface TxnStripProps {
  transactions: TxnView[]
  totals: { committed: number; aborted: number; open: number }
  /** Marks shown at most (the newest). */
  marks?: number
}

/** The newest `n` transactions, oldest first (by begin time, then id). */
export function stripTransactions(transactions: readonly TxnView[], n: number): TxnView[] {
  return [...transactions].sort((a, b) => a.beginMs - b.beginMs || a.id.localeCompare(b.id)).slice(-n)
}

/** What a mark says on hover and focus. */
export function txnMarkLabel(t: TxnView): string {
  const outcome = t.outcome === 'aborted' && t.abortReason ? `aborted (${t.abortReason})` : t.outcome
  return (
    `${t.transactionalId}, producer id ${t.producerId}, epoch ${t.epoch}: ${outcome}; ` +
    `${fmtInt(t.outputRecords)} output and ${fmtInt(t.changelogRecords)} changelog records, ` +
    `${fmtInt(t.offsetsCommitted)} offsets`
  )
}

export const TxnStrip = memo(function TxnStrip({ transactions, totals, marks = 40 }: TxnStripProps) {
  const shown = stripTransactions(transactions, marks)
  return (
    <Panel
      title="Latest transactions"
      hint={
        <>
          {fmtInt(totals.committed)} committed · {fmtInt(totals.aborted)} aborted · {fmtInt(totals.open)} open ·{' '}
          <Link href="/transactions">all transactions</Link>
        </>
      }
      testId="txn-strip"
      className="txn-strip-panel"
    >
      {shown.length === 0 ? (
        <p className="muted small empty">No transactions: at_least_once and at_most_once commit offsets without one.</p>
      ) : (
        <ol className="txn-strip" aria-label="the latest transactions, oldest first">
          {shown.map((t) => (
            <li
              key={t.id}
              className={`txn-mark txn-mark-${t.outcome}`}
              data-outcome={t.outcome}
              title={txnMarkLabel(t)}
            >
              <span className="visually-hidden">{txnMarkLabel(t)}</span>
            </li>
          ))}
        </ol>
      )}
    </Panel>
  )
})
