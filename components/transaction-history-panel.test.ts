import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { TxnStatistics } from '../lib/txn-statistics.ts'
import { historyQuery, TransactionHistoryView } from './transaction-history-panel.tsx'

const NONE = { outcome: 'all', transactionalId: '', minDurationMs: '', withinMs: 0 } as const

describe('the transaction history view', () => {
  it('asks the route for what the filters say, and for rows up to the moment held', () => {
    expect(historyQuery(NONE, 10_000, null)).toBe('')
    expect(
      historyQuery(
        { outcome: 'aborted', transactionalId: ' 0_1 ', minDurationMs: '12.5', withinMs: 60_000 },
        100_000,
        null,
        { limit: '50' },
      ),
    ).toBe('outcome=aborted&transactionalId=0_1&minDurationMs=12.5&sinceMs=40000&limit=50')
    // A duration that is not a number is left out (the field shows it invalid), not sent to be refused.
    expect(historyQuery({ ...NONE, minDurationMs: 'abc' }, 0, null)).toBe('')
    // Held on a moment: only rows ended by then, the window counted back from it.
    expect(historyQuery({ ...NONE, withinMs: 5_000 }, 100_000, 20_000.4)).toBe('sinceMs=15000&untilMs=20001')
  })

  it('shows the counts by outcome and the aborts by cause of the statistics it is given', () => {
    const run = new TxnStatistics(0)
    run.add({ outcome: 'committed', cause: null, durationMs: 120, records: 30, endTxnMs: 4, sendOffsetsMs: 1 })
    run.add({ outcome: 'aborted', cause: 'crash', durationMs: 900, records: 12, endTxnMs: null, sendOffsetsMs: null })
    run.add({ outcome: 'teardown', cause: 'teardown', durationMs: 5, records: 1, endTxnMs: null, sendOffsetsMs: null })
    const html = renderToString(
      createElement(TransactionHistoryView, { stats: { run: run.view(), life: run.view() }, heldAtMs: null }),
    )
    expect(html).toMatch(/data-testid="txn-stats-count-committed"[^>]*>1</)
    expect(html).toMatch(/data-testid="txn-stats-count-aborted"[^>]*>1</)
    expect(html).toMatch(/data-testid="txn-cause-crash"[^>]*>crash \(kill\)(<!-- -->)? (<!-- -->)?1</)
    expect(html).toContain('teardown <!-- -->1<!-- --> (not a fault)')
    expect(html).toContain('txn-commit-time-ns-total')
    // "this run" is shown: the exports are this run's rows.
    expect(html).toMatch(/href="\/api\/lab\/transactions\?sinceMs=0&amp;format=csv"/)
  })

  it('lists the rows of the span its statistics cover: under "this run", from the run’s start', () => {
    // Issue 34: "this run: committed 0" above 2,488 matching rows, all committed, of the run before.
    expect(historyQuery(NONE, 100_000, null, { limit: '50' }, 70_000.6)).toBe('sinceMs=70000&limit=50')
    // Within the last minute of a run that began earlier: the minute; of one that began later: the run.
    expect(historyQuery({ ...NONE, withinMs: 60_000 }, 100_000, null, {}, 20_000)).toBe('sinceMs=40000')
    expect(historyQuery({ ...NONE, withinMs: 60_000 }, 100_000, null, {}, 70_000)).toBe('sinceMs=70000')
    const before = new TxnStatistics(0)
    before.add({ outcome: 'committed', cause: null, durationMs: 120, records: 30, endTxnMs: 4, sendOffsetsMs: 1 })
    const run = new TxnStatistics(70_000)
    const html = renderToString(
      createElement(TransactionHistoryView, { stats: { run: run.view(), life: before.view() }, heldAtMs: null }),
    )
    expect(html).toMatch(/data-testid="txn-stats-count-committed"[^>]*>0</)
    expect(html).toMatch(/Rows of (<!-- -->)?this run/)
    expect(html).toMatch(/href="\/api\/lab\/transactions\?sinceMs=70000&amp;format=csv"/)
  })
})
