import { memo } from 'react'
import type { CorrectnessView } from '../lib/lab-protocol.ts'
import { isExactlyOnce, type ProcessingGuarantee } from '../lib/streams-config.ts'
import { fmtInt, fmtSince } from './format.ts'
import { Panel } from './panel.tsx'

export interface CorrectnessPanelProps {
  correctness: CorrectnessView | null
  guarantee: ProcessingGuarantee
  startedAtMs: number
}

type Figure = keyof CorrectnessView['allowed']

/**
 * The dashboard's wording of the two figures defined in server/validator/state-drift.ts (and
 * docs/measures.md).
 */
export const STATE_MISMATCH_DEFINITION =
  'State mismatches: keys whose state differs from the replay of the committed input (an output, the latest ' +
  'changelog value or the store holds another count, sum, min or max), each key counted once: the later outputs of ' +
  'an inflated key add none.'
export const DOUBLE_APPLIED_DEFINITION =
  'Double-applied updates: input records whose update reached a key’s state twice (redone after a crash on a state ' +
  'that already held them); each adds 1 to the key’s running count, so they are summed from how far the counts run ' +
  'ahead of the replay. The mismatched keys hold them.'

export const FIGURES: { key: Figure; label: string; definition: string }[] = [
  {
    key: 'duplicates',
    label: 'Duplicates',
    definition: 'committed output records whose provenance (input partition, offset) appears more than once',
  },
  {
    key: 'lost',
    label: 'Lost',
    definition: 'input records below the committed input offset with no committed output record',
  },
  {
    key: 'abortedReads',
    label: 'Aborted reads',
    definition: 'records of aborted transactions delivered to a read_committed consumer',
  },
  {
    key: 'stateMismatches',
    label: 'State mismatches',
    definition: `${STATE_MISMATCH_DEFINITION} ${DOUBLE_APPLIED_DEFINITION}`,
  },
  {
    key: 'openTransactions',
    // Partitions, not transactions: one transaction holds its output, changelog and offsets partitions
    // open; the Transactions and Partitions panels count transactions (docs/measures.md#open-transactions).
    label: 'Partitions with an open transaction',
    definition:
      'partitions whose last stable offset (LSO) is below the high watermark (HW), on every topic the validator ' +
      'reads: a transaction counts once on each partition it wrote to, so this exceeds the open transactions ' +
      'the Transactions and Partitions panels count',
  },
]

/**
 * Whether a figure breaks what the guarantee allows (docs/measures.md): exactly-once allows no
 * duplicates, losses, aborted reads or state mismatches; at_least_once allows duplicates and state
 * mismatches after faults, but no losses and no aborted reads; at_most_once (eoscope's teaching mode)
 * allows losses and state mismatches after faults, but no duplicates and no aborted reads. Open
 * transactions are normal while the lab runs.
 */
export function isViolation(figure: Figure, value: number | null, guarantee: ProcessingGuarantee): boolean {
  // null: unavailable, shown as such, neither ok nor a violation
  if (value === null || value <= 0) return false
  switch (figure) {
    case 'lost':
      return guarantee !== 'at_most_once'
    case 'abortedReads':
      return true
    case 'duplicates':
      return guarantee !== 'at_least_once'
    case 'stateMismatches':
      return isExactlyOnce(guarantee)
    case 'openTransactions':
      return false
  }
}

export const CorrectnessPanel = memo(function CorrectnessPanel({
  correctness,
  guarantee,
  startedAtMs,
}: CorrectnessPanelProps) {
  return (
    <Panel
      title="Correctness"
      hint={
        correctness
          ? `validator: read the logs up to ${fmtInt(correctness.inputChecked)} input records, ` +
            `at ${fmtSince(correctness.checkedAtMs, startedAtMs)}`
          : 'validator: reads the logs only, never the engine’s counters'
      }
      testId="correctness"
    >
      {correctness === null ? (
        <p className="muted empty">The validator has not run yet.</p>
      ) : (
        <ul className="checks">
          {FIGURES.map((f) => {
            const value = correctness[f.key]
            const bad = isViolation(f.key, value, guarantee)
            const expected = value !== null && value > 0 && !bad && f.key !== 'openTransactions'
            const neutral = (f.key === 'openTransactions' && value !== null && value > 0) || value === null
            const tone = bad ? 'check-bad' : expected ? 'check-expected' : neutral ? 'check-neutral' : 'check-ok'
            return (
              <li key={f.key} className={`check ${tone}`} data-testid={`correctness-${f.key}`} data-violation={bad}>
                <div className="check-main">
                  <span className="check-label" title={f.definition}>
                    {f.label}
                  </span>
                  <span className="check-value num" data-testid={`correctness-${f.key}-value`}>
                    {fmtInt(value)}
                  </span>
                </div>
                <div className="check-allowed small">
                  {bad ? <strong>violation · </strong> : null}
                  {correctness.allowed[f.key]}
                </div>
                {f.key === 'abortedReads' ? (
                  <div className="check-contrast small muted">
                    read_uncommitted would have read{' '}
                    <span className="num">{fmtInt(correctness.abortedReadsUncommitted)}</span>
                  </div>
                ) : null}
                {f.key === 'stateMismatches' && correctness.doubleAppliedUpdates !== undefined ? (
                  <div
                    className="check-contrast small muted"
                    title={DOUBLE_APPLIED_DEFINITION}
                    data-testid="correctness-double-applied"
                  >
                    keys, holding <span className="num">{fmtInt(correctness.doubleAppliedUpdates)}</span> double-applied
                    updates
                  </div>
                ) : null}
                {f.key === 'duplicates' && correctness.duplicateKeys.length ? (
                  <div className="check-contrast small muted ellipsis" title={correctness.duplicateKeys.join(', ')}>
                    keys: <span className="mono">{correctness.duplicateKeys.slice(0, 8).join(', ')}</span>
                    {correctness.duplicateKeys.length > 8 ? ` +${correctness.duplicateKeys.length - 8}` : ''}
                  </div>
                ) : null}
              </li>
            )
          })}
        </ul>
      )}
    </Panel>
  )
})
