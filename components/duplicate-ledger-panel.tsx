import { memo } from 'react'
import type { CorrectnessView, DuplicateLedgerEntry } from '../lib/lab-protocol.ts'
import { DOUBLE_APPLIED_DEFINITION, STATE_MISMATCH_DEFINITION } from './correctness-panel.tsx'
import type { ProcessingGuarantee } from '../lib/streams-config.ts'
import { fmtInt } from './format.ts'
import { Panel } from './panel.tsx'
import { HistoryTable } from './history-table.tsx'
import { MessagesLink } from './message-browser-link.tsx'
import { copiesQuery } from './message-browser-query.ts'
import { ledgerCopies } from '../lib/message-browser.ts'

export interface DuplicateLedgerProps {
  entries: DuplicateLedgerEntry[]
  guarantee: ProcessingGuarantee
  /** The validator's figures, shown beside the ledger's so the two read as one fact. */
  correctness?: CorrectnessView | null
  /** Rows drawn at most; the totals count every entry. */
  rows?: number
}

/** The keys the lab sends at most (the worst first). */
export const LEDGER_KEYS = 20

/** Worst keys first: by duplicates plus double-applied updates, then by key. */
export function ledgerRows(entries: DuplicateLedgerEntry[]): DuplicateLedgerEntry[] {
  return [...entries].sort(
    (a, b) =>
      b.duplicates + b.doubleApplied - (a.duplicates + a.doubleApplied) ||
      a.key.localeCompare(b.key, 'en', { numeric: true }),
  )
}

/** The latest duplicate's two copies, opened in the message browser. */
function CopiesLink({ e }: { e: DuplicateLedgerEntry }) {
  const c = ledgerCopies(e)
  if (!c) return null
  return (
    <MessagesLink
      query={copiesQuery(e.key, c)}
      testId="ledger-messages"
      title={`input-${c.source.partition}@${c.source.offset} written twice: open both copies in the message browser`}
    >
      out-{c.partition} @ {c.first}, {c.copy}
    </MessagesLink>
  )
}

const LEDGER_HINT =
  'A duplicate is a second committed output record for the same input record, and a double-applied update an input ' +
  "record whose update reached the key's state twice (its running count runs one ahead of the replay's): a worker " +
  'got past step 3 (produce) or step 4 (broker ack) but not step 5 (commit offset), or retried a produce whose ack ' +
  'was lost. Under exactly_once the three writes (sink records, changelog records, offset commits) commit or abort ' +
  'together, so this ledger stays empty.'

/** Which keys got duplicates or double-applied updates, by how much, and which kill or retry caused them. */
export const DuplicateLedger = memo(function DuplicateLedger({
  entries,
  guarantee,
  correctness = null,
  rows = 40,
}: DuplicateLedgerProps) {
  const sorted = ledgerRows(entries)
  const shown = sorted.slice(0, rows)
  const dupes = entries.reduce((n, e) => n + e.duplicates, 0)
  const doubled = entries.reduce((n, e) => n + e.doubleApplied, 0)
  return (
    <Panel title="Duplicate ledger" hint={LEDGER_HINT} testId="duplicate-ledger">
      <p className="num ledger-totals" data-testid="ledger-totals">
        <span className={dupes ? 'bad' : 'ok'}>{fmtInt(dupes)} duplicates</span> ·{' '}
        <span className={doubled ? 'bad' : 'ok'} title={DOUBLE_APPLIED_DEFINITION}>
          {fmtInt(doubled)} double-applied updates
        </span>{' '}
        · {fmtInt(entries.length)} keys{entries.length >= LEDGER_KEYS ? ' (the worst shown)' : ''}
      </p>
      {correctness && correctness.doubleAppliedUpdates != null ? (
        <p
          className="muted small"
          data-testid="ledger-validator"
          title={`${STATE_MISMATCH_DEFINITION} ${DOUBLE_APPLIED_DEFINITION}`}
        >
          validator, over every key: <span className="num">{fmtInt(correctness.doubleAppliedUpdates)}</span>{' '}
          double-applied updates in <span className="num">{fmtInt(correctness.stateMismatches)}</span> keys with state
          mismatches
        </p>
      ) : null}
      <HistoryTable
        scrollClassName="ledger-scroll"
        head={
          <>
            <th>key</th>
            <th className="r">duplicates</th>
            <th className="r">double-applied</th>
            <th>caused by</th>
            <th title="the latest duplicate: the output offsets of its first copy and of the extra one">copies</th>
          </>
        }
        after={
          <>
            {sorted.length > shown.length ? (
              <p className="muted small">and {fmtInt(sorted.length - shown.length)} more keys</p>
            ) : null}
            {entries.length === 0 ? (
              <p className="muted empty" data-testid="ledger-empty">
                No duplicates and no double-applied updates
                {guarantee === 'at_least_once'
                  ? ' yet: under at_least_once a kill between step 4 and step 5 makes some.'
                  : guarantee === 'at_most_once'
                    ? ': at_most_once never redoes a record (it loses the records a crash cuts instead).'
                    : ` (${guarantee}).`}
              </p>
            ) : null}
          </>
        }
      >
        {shown.map((e) => (
          <tr key={e.key} data-testid="ledger-row" data-key={e.key}>
            <td className="mono">{e.key}</td>
            <td className={`num r${e.duplicates ? ' bad' : ''}`}>{fmtInt(e.duplicates)}</td>
            <td className={`num r${e.doubleApplied ? ' bad' : ''}`}>{fmtInt(e.doubleApplied)}</td>
            <td className="cause-cell">
              {e.causes.map((c) => (
                <span key={c} className="chip">
                  {c}
                </span>
              ))}
              {e.causes.length === 0 ? <span className="muted">unattributed</span> : null}
            </td>
            <td className="num">
              <CopiesLink e={e} />
            </td>
          </tr>
        ))}
      </HistoryTable>
    </Panel>
  )
})
