// The overview's strip of the latest transactions: one mark per transaction, oldest left, coloured
// by outcome, each naming its producer, epoch and what it wrote on hover and focus; the counts
// beside it are the Transactions page's, which holds every detail.

import Link from 'next/link'
import { memo, type PointerEvent, useState } from 'react'
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

/** What the strip says of itself: how many marks, and how many of each outcome. */
export function stripSummary(shown: readonly TxnView[]): string {
  const count = (o: TxnView['outcome']) => shown.filter((t) => t.outcome === o).length
  return (
    `the latest ${shown.length} transactions, oldest first: ${count('committed')} committed, ` +
    `${count('aborted')} aborted, ${count('open')} open`
  )
}

const POINT_AT = 'Point at a mark: its transactional.id, producer id, epoch and what it wrote.'

export const TxnStrip = memo(function TxnStrip({ transactions, totals, marks = 40 }: TxnStripProps) {
  const shown = stripTransactions(transactions, marks)
  // The mark under the pointer, held as the transaction it showed: the strip moves on every second.
  const [pointed, setPointed] = useState<TxnView | null>(null)
  const point = (e: PointerEvent<HTMLOListElement>) => {
    const slot = (e.target as HTMLElement).dataset.slot
    const t = slot === undefined ? undefined : shown[Number(slot)]
    if (t !== undefined && t.id !== pointed?.id) setPointed(t)
  }
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
        <>
          {/* Keyed by slot, not by transaction, and with nothing in a mark but its outcome: at tens of
              transactions a second the strip turns over every second, and a slot then takes its next
              transaction by changing nothing or one class, where a keyed mark, or one carrying its own
              label, was nodes removed and inserted or texts rewritten, forty at a time. */}
          <ol
            className="txn-strip"
            aria-label={stripSummary(shown)}
            onPointerOver={point}
            onPointerLeave={() => setPointed(null)}
          >
            {shown.map((t, slot) => (
              <li
                // biome-ignore lint/suspicious/noArrayIndexKey: the slots are the strip's places, oldest to newest
                key={slot}
                className={`txn-mark txn-mark-${t.outcome}`}
                data-outcome={t.outcome}
                data-slot={slot}
              />
            ))}
          </ol>
          <p className="txn-strip-detail small muted" data-testid="txn-strip-detail">
            {pointed ? txnMarkLabel(pointed) : POINT_AT}
          </p>
        </>
      )}
    </Panel>
  )
})
