import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import type { JournalEntry } from '../lib/journal.ts'
import type { TxnView } from '../lib/lab-protocol.ts'
import { fixtureAtLeastOnce, fixtureSnapshot } from './__fixtures__/lab-snapshot.ts'
import { renderLab } from './__fixtures__/render-lab.ts'
import { idempotenceHint } from './controls-panel.tsx'
import { DEFAULT_FILTER, eventLogRows } from './event-log-panel.tsx'
import { isCurrent, NAV_ITEMS } from './site-nav.tsx'
import { stripSummary, stripTransactions, TxnStrip, txnMarkLabel } from './txn-strip.tsx'

describe('the pages of the lab', () => {
  it('mark the current page only: the overview at / alone, a page at its path and below', () => {
    expect(isCurrent('/', '/')).toBe(true)
    expect(isCurrent('/', '/transactions')).toBe(false)
    expect(isCurrent('/transactions', '/transactions')).toBe(true)
    expect(isCurrent('/transactions', '/transactions/x')).toBe(true)
    expect(isCurrent('/transactions', '/transactionsx')).toBe(false)
    expect(isCurrent('/', null)).toBe(false)
    expect(new Set(NAV_ITEMS.map((n) => n.href)).size).toBe(NAV_ITEMS.length)
  })

  it('render each page in the frame, the header naming every page', () => {
    for (const page of ['overview', 'scenarios', 'transactions', 'recovery', 'partitions', 'journal'] as const) {
      const html = renderLab(fixtureSnapshot, { pages: [page] })
      expect(html).toContain(`data-testid="page-${page}"`)
      for (const item of NAV_ITEMS) expect(html).toContain(`href="${item.href}"`)
    }
  })

  it('show how far the workers are from the brokers in the header, only when the lab puts a delay there', () => {
    const far = renderLab({ ...fixtureSnapshot, backend: 'kafka', network: 'workers 1 ms from the brokers' })
    expect(far).toMatch(/data-testid="network"[^>]*>workers 1 ms from the brokers</)
    expect(renderLab({ ...fixtureSnapshot, backend: 'kafka' })).not.toContain('data-testid="network"')
  })

  const overviewStory =
    'put on the overview what the story needs: the guarantee, commit.interval.ms, Kill, the five steps, the chart'
  it(overviewStory, () => {
    const html = renderLab(fixtureSnapshot)
    for (const id of ['guarantee-exactly_once', 'commit-interval', 'kill-worker-1', 'panel-throughput', 'txn-strip'])
      expect(html).toContain(`data-testid="${id}"`)
    for (const step of ['consume', 'process + update state', 'produce', 'broker ack', 'commit offset'])
      expect(html).toContain(step)
  })
})

describe('the enable.idempotence hint', () => {
  it('follows the box: on, off, or forced by the guarantee', () => {
    expect(idempotenceHint('on', 'at_least_once')).toMatch(/^On: .*producer id, epoch and sequence/)
    expect(idempotenceHint('off', 'at_least_once')).toMatch(/^Off: .*twice/)
    expect(idempotenceHint('forced', 'exactly_once')).toBe(
      'exactly_once forces enable.idempotence=true, as Kafka Streams does.',
    )
  })

  it('reads On beside a checked box under at_least_once', () => {
    const checked = { ...fixtureAtLeastOnce, config: { ...fixtureAtLeastOnce.config, 'enable.idempotence': true } }
    expect(renderLab(checked)).toContain('On: the broker drops a retried produce')
    const unchecked = { ...fixtureAtLeastOnce, config: { ...fixtureAtLeastOnce.config, 'enable.idempotence': false } }
    expect(renderLab(unchecked)).toContain('Off: a retried produce after a lost ack writes the record twice.')
  })
})

describe('the event log', () => {
  const entry = (id: number, atMs: number): JournalEntry => ({
    id,
    atMs,
    category: 'kills',
    label: `e${id}`,
    fact: { kind: 'kill', workerId: 'worker-1', atMs } as unknown as JournalEntry['fact'],
  })

  it('lists the newest moment first, whatever order the entries were journalled in', () => {
    // A recovery is journalled when it completes, with an earlier moment than lines journalled before it.
    const rows = eventLogRows([entry(1, 1000), entry(2, 5000), entry(3, 2000), entry(4, 4000)], DEFAULT_FILTER, null)
    expect(rows.map((e) => e.atMs)).toEqual([5000, 4000, 2000, 1000])
  })
})

describe('the strip of latest transactions', () => {
  const txn = (id: string, beginMs: number, outcome: TxnView['outcome']): TxnView => ({
    id,
    transactionalId: 'app-0_1',
    producerId: 1001,
    epoch: 3,
    partitions: ['output-1'],
    outputRecords: 10,
    changelogRecords: 10,
    offsetsCommitted: 1,
    beginMs,
    endMs: outcome === 'open' ? null : beginMs + 100,
    outcome,
    abortReason: outcome === 'aborted' ? 'fenced' : null,
  })

  it('keeps the newest, oldest first, and says who wrote what on hover', () => {
    const shown = stripTransactions([txn('c', 300, 'open'), txn('a', 100, 'committed'), txn('b', 200, 'aborted')], 2)
    expect(shown.map((t) => t.id)).toEqual(['b', 'c'])
    expect(txnMarkLabel(shown[0]!)).toBe(
      'app-0_1, producer id 1001, epoch 3: aborted (fenced); 10 output and 10 changelog records, 1 offsets',
    )
  })

  it('says what it holds in one label, and a mark carries its outcome only', () => {
    const shown = [txn('a', 100, 'committed'), txn('b', 200, 'aborted'), txn('c', 300, 'open')]
    expect(stripSummary(shown)).toBe('the latest 3 transactions, oldest first: 1 committed, 1 aborted, 1 open')
    const totals = { committed: 1, aborted: 1, open: 1 }
    const html = renderToString(createElement(TxnStrip, { transactions: shown, totals }))
    const marks = html.match(/<li [^>]*>(.*?)<\/li>|<li [^>]*\/>/g) ?? []
    expect(marks).toHaveLength(3)
    for (const [i, mark] of marks.entries()) {
      expect(mark).toBe(
        `<li class="txn-mark txn-mark-${shown[i]!.outcome}" data-outcome="${shown[i]!.outcome}" data-slot="${i}"></li>`,
      )
    }
  })

  it('moves on by slots: a newer transaction of the same outcome in a slot changes nothing on the page', () => {
    const totals = { committed: 2, aborted: 0, open: 0 }
    const before = renderToString(
      createElement(TxnStrip, { transactions: [txn('a', 100, 'committed'), txn('b', 200, 'committed')], totals }),
    )
    const after = renderToString(
      createElement(TxnStrip, { transactions: [txn('b', 200, 'committed'), txn('c', 300, 'committed')], totals }),
    )
    expect(after).toBe(before)
  })
})

describe('a claim the machine cannot decide', () => {
  it('reads "not distinguishable" with why, neither holds nor fails', async () => {
    const { createElement } = await import('react')
    const { renderToString } = await import('react-dom/server')
    const { ExpectationList } = await import('./expectation-list.tsx')
    const html = renderToString(
      createElement(ExpectationList, {
        testId: 'x',
        expectations: [
          { claim: 'more records redone at 5000', holds: true },
          { claim: 'higher throughput at 5000', holds: false, undecided: 'their 93.75% intervals overlap' },
        ],
      }),
    )
    expect(html).toContain('data-holds="undecided"')
    expect(html).toContain('not distinguishable')
    expect(html).toContain('their 93.75% intervals overlap')
    expect(html).not.toContain('>fails<')
  })
})

describe('the narrative box', () => {
  it('follows new lines only while its reader is at its end', async () => {
    const { isAtEnd } = await import('./scenarios-panel.tsx')
    expect(isAtEnd({ scrollTop: 200, clientHeight: 100, scrollHeight: 300 })).toBe(true)
    expect(isAtEnd({ scrollTop: 190, clientHeight: 100, scrollHeight: 300 })).toBe(true)
    expect(isAtEnd({ scrollTop: 150, clientHeight: 100, scrollHeight: 300 })).toBe(false)
    expect(isAtEnd({ scrollTop: 0, clientHeight: 100, scrollHeight: 300 })).toBe(false)
    expect(isAtEnd({ scrollTop: 0, clientHeight: 100, scrollHeight: 100 })).toBe(true)
  })
})
