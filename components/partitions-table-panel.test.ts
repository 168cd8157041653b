import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { fixtureSnapshot } from './__fixtures__/lab-snapshot.ts'
import { renderLab } from './__fixtures__/render-lab.ts'
import {
  cellValue,
  fmtHolders,
  fmtInputFigure,
  fmtOpen,
  nextSort,
  PARTITION_COLUMNS,
  sortPartitions,
} from './partitions-sort.ts'
import { PartitionsTable } from './partitions-table-panel.tsx'
import { openTransactionTotals } from '../lib/partition-table.ts'

const rows = fixtureSnapshot.partitions!
const names = (rs: typeof rows) => rs.map((r) => `${r.topic}-${r.partition}`)

describe('the partitions table', () => {
  it('sorts by default in the lab order: input, output, changelog, internal, by partition', () => {
    const sorted = sortPartitions([...rows].reverse(), { column: 'partition', direction: 'asc' })
    expect(names(sorted)).toEqual(names(rows))
    expect(names(sortPartitions(rows, { column: 'partition', direction: 'desc' }))).toEqual(names(rows).reverse())
  })

  it('sorts by each figure either way, ties in the lab order, rows without the figure last', () => {
    const byOpen = sortPartitions(rows, { column: 'open', direction: 'desc' })
    expect(names(byOpen).slice(0, 4)).toEqual(['changelog-3', 'output-0', 'changelog-4', '__consumer_offsets-0'])
    const byLag = sortPartitions(rows, { column: 'lag', direction: 'desc' })
    expect(names(byLag).slice(0, 5)).toEqual(['input-0', 'input-1', 'input-2', 'input-3', 'input-4'])
    // input-5 has nothing committed yet, the other topics have no lag: after every figure, in the lab order.
    expect(names(byLag).slice(5)).toEqual(names(rows).filter((n) => !/^input-[0-4]$/.test(n)))
    expect(names(sortPartitions(rows, { column: 'lag', direction: 'asc' })).slice(0, 5)).toEqual([
      'input-0',
      'input-1',
      'input-2',
      'input-3',
      'input-4',
    ])
    for (const spec of PARTITION_COLUMNS) {
      for (const direction of ['asc', 'desc'] as const) {
        const values = sortPartitions(rows, { column: spec.column, direction }).map((r) => cellValue(r, spec.column))
        const present = values.filter((v) => v !== null)
        expect(values.slice(0, present.length)).toEqual(present)
        for (let i = 1; i < present.length; i++) {
          const [a, b] = [present[i - 1]!, present[i]!]
          if (spec.column === 'partition') continue
          if (direction === 'asc') expect(a <= b).toBe(true)
          else expect(a >= b).toBe(true)
        }
      }
    }
  })

  it('flips the direction on the same header, starts figures descending and names ascending', () => {
    expect(nextSort({ column: 'partition', direction: 'asc' }, 'partition')).toEqual({
      column: 'partition',
      direction: 'desc',
    })
    expect(nextSort({ column: 'partition', direction: 'asc' }, 'lag')).toEqual({ column: 'lag', direction: 'desc' })
    expect(nextSort({ column: 'lag', direction: 'desc' }, 'lag')).toEqual({ column: 'lag', direction: 'asc' })
    expect(nextSort({ column: 'lag', direction: 'desc' }, 'role')).toEqual({ column: 'role', direction: 'asc' })
  })

  it('formats open transactions with their holders, a lower bound with ≥, and input figures on input rows only', () => {
    const byName = new Map(rows.map((r) => [`${r.topic}-${r.partition}`, r]))
    expect(fmtOpen(byName.get('output-1')!.open)).toBe('0')
    expect(fmtOpen(byName.get('changelog-3')!.open)).toBe('2')
    expect(fmtOpen(byName.get('changelog-4')!.open)).toBe('≥1')
    expect(fmtHolders(byName.get('changelog-3')!.open)).toBe(
      'eoscope-0_1 (pid 1001 e2) from 8,010, producer (pid 1207 e0) from 8,014',
    )
    expect(fmtHolders(byName.get('changelog-4')!.open)).toBe('pending transaction (its producer is not known)')
    expect(fmtHolders(byName.get('output-1')!.open)).toBe('')
    expect(fmtInputFigure(byName.get('input-0')!, 'lag')).toBe('100')
    expect(fmtInputFigure(byName.get('input-5')!, 'lag')).toBe('—')
    expect(fmtInputFigure(byName.get('output-0')!, 'committed')).toBe('—')
  })

  it('counts each open transaction once, and the partitions they hold open apart', () => {
    // docs/measures.md#open-transactions
    // pid 1000 holds output-0 and the offsets partition, 1001 and 1207 changelog-3; changelog-4's holder is unknown.
    expect(openTransactionTotals(rows)).toEqual({ transactions: 3, partitions: 4, atLeast: true })
    const html = renderToString(createElement(PartitionsTable, { rows }))
    expect(html).toContain('≥3 open transactions on 4 partitions')
    const known = rows.filter((r) => !r.open.atLeast)
    expect(openTransactionTotals(known)).toEqual({ transactions: 3, partitions: 3, atLeast: false })
    expect(openTransactionTotals(rows.filter((r) => r.open.count === 0))).toEqual({
      transactions: 0,
      partitions: 0,
      atLeast: false,
    })
  })

  it('names the Kafka figures beside its own: LSO, HW, LAG and records-lag', () => {
    const html = renderToString(createElement(PartitionsTable, { rows }))
    for (const name of ['LSO', 'HW', 'log-start-offset', 'CURRENT-OFFSET', 'LAG · records-lag'])
      expect(html).toContain(`<span class="kafka-name">${name}</span>`)
    expect(html.match(/data-testid="partition-row"/g)).toHaveLength(rows.length)
    expect(html).toContain('aria-sort="ascending" data-testid="partitions-col-partition"')
  })

  it('is on the dashboard, from the snapshot it is given, and waits for a first read without rows', () => {
    const html = renderLab(fixtureSnapshot, { pages: ['partitions'] })
    expect(html).toContain('data-testid="partitions-table"')
    expect(html.match(/data-testid="partition-row"/g)).toHaveLength(rows.length)
    const without = renderLab({ ...fixtureSnapshot, partitions: undefined }, { pages: ['partitions'] })
    expect(without).toContain('Waiting for the first read of the partitions')
  })
})
