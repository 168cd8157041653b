import { memo, useMemo, useState } from 'react'
import { openTransactionTotals, type PartitionRow } from '../lib/partition-table.ts'
import { fmtInt } from './format.ts'
import { HistoryTable } from './history-table.tsx'
import { Panel } from './panel.tsx'
import type { LabTopicRole } from '../lib/log-range.ts'
import { MessagesLink } from './message-browser-link.tsx'
import type { BrowserQuery } from './message-browser-query.ts'
import {
  fmtHolders,
  fmtInputFigure,
  fmtOpen,
  nextSort,
  PARTITION_COLUMNS,
  ROLE_LABEL,
  sortPartitions,
  type ColumnSpec,
  type PartitionSort,
} from './partitions-sort.ts'

export interface PartitionsTableProps {
  /** undefined: not read yet (or this server does not send the table). */
  rows: PartitionRow[] | undefined
}

const FIRST_SORT: PartitionSort = { column: 'partition', direction: 'asc' }

function HeaderCell({
  spec,
  sort,
  onSort,
}: {
  spec: ColumnSpec
  sort: PartitionSort
  onSort: (s: PartitionSort) => void
}) {
  const active = sort.column === spec.column
  return (
    <th
      className={spec.numeric ? 'r' : undefined}
      title={spec.title}
      aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
      data-testid={`partitions-col-${spec.column}`}
    >
      <button
        type="button"
        className="sort-head"
        onClick={() => onSort(nextSort(sort, spec.column))}
        data-testid={`partitions-sort-${spec.column}`}
      >
        {spec.label}
        <span className="sort-mark" aria-hidden="true">
          {active ? (sort.direction === 'asc' ? '▲' : '▼') : ''}
        </span>
      </button>
      {spec.kafka ? <span className="kafka-name">{spec.kafka}</span> : null}
    </th>
  )
}

/** The lab's own topics open in the message browser: at the first open transaction's records, else the newest. */
const browsable = (r: PartitionRow): r is PartitionRow & { role: LabTopicRole } =>
  r.role === 'input' || r.role === 'output' || r.role === 'changelog'
function partitionQuery(r: PartitionRow & { role: LabTopicRole }): BrowserQuery {
  const first = Math.min(...r.open.holders.map((h) => h.firstOffset))
  return Number.isFinite(first)
    ? { topic: r.role, partition: r.partition, from: first, to: r.highWatermark }
    : { topic: r.role, partition: r.partition }
}

function Row({ r }: { r: PartitionRow }) {
  const holders = fmtHolders(r.open)
  return (
    <tr
      data-testid="partition-row"
      data-topic={r.topic}
      data-partition={r.partition}
      data-role={r.role}
      className={r.open.count > 0 ? 'row-open' : undefined}
    >
      <td className="mono name-cell" title={`${r.topic}-${r.partition}`}>
        {browsable(r) ? (
          <MessagesLink query={partitionQuery(r)} testId="pt-messages">{`${r.topic}-${r.partition}`}</MessagesLink>
        ) : (
          `${r.topic}-${r.partition}`
        )}
      </td>
      <td>{ROLE_LABEL[r.role]}</td>
      <td className="r mono" data-testid="pt-log-start">
        {fmtInt(r.logStartOffset)}
      </td>
      <td className="r mono" data-testid="pt-lso">
        {fmtInt(r.lastStableOffset)}
      </td>
      <td className="r mono" data-testid="pt-hw">
        {fmtInt(r.highWatermark)}
      </td>
      <td className="r mono open-cell" data-testid="pt-open" title={holders || undefined}>
        {fmtOpen(r.open)}
        {holders ? (
          <span className="open-holders">
            {r.open.holders.map((h) => h.transactionalId ?? `pid ${h.producerId}`).join(', ') || 'unknown producer'}
          </span>
        ) : null}
      </td>
      <td className="r mono" data-testid="pt-committed">
        {fmtInputFigure(r, 'committed')}
      </td>
      <td className="r mono" data-testid="pt-lag">
        {fmtInputFigure(r, 'lag')}
      </td>
    </tr>
  )
}

/** The open transactions, each once, and the partitions they hold open: two figures, two names. */
function OpenTotal({ transactions, partitions, atLeast }: ReturnType<typeof openTransactionTotals>) {
  const plural = (n: number, word: string) => `${fmtInt(n)} ${word}${n === 1 ? '' : 's'}`
  return (
    <span
      className="muted nowrap"
      data-testid="partitions-open-total"
      title={
        'Open transactions: transactions whose records after the LSO have no COMMIT or ABORT marker yet, each ' +
        'counted once however many partitions it wrote to (the Transactions panel counts the same). Partitions ' +
        'with an open transaction: LSO below HW (the correctness panel counts these, on all topics).'
      }
    >
      {`${atLeast ? '≥' : ''}${plural(transactions, 'open transaction')} on ${plural(partitions, 'partition')}`}
    </span>
  )
}

const PARTITIONS_HINT =
  "Every partition of the lab's topics, read at one moment with the partition log: log start, last stable offset " +
  "(LSO), high watermark (HW), the transactions holding the LSO below the HW, and an input partition's lag (HW − the " +
  "group's committed offset). Click a header to sort."

/** Every partition of the lab's topics at one moment, sortable by any column; live, or as the held snapshot had it. */
export const PartitionsTable = memo(function PartitionsTable({ rows }: PartitionsTableProps) {
  const [sort, setSort] = useState<PartitionSort>(FIRST_SORT)
  const sorted = useMemo(() => (rows ? sortPartitions(rows, sort) : []), [rows, sort])
  const open = rows ? openTransactionTotals(rows) : null
  return (
    <Panel
      title="Partitions"
      testId="partitions-table"
      className="partitions-panel"
      hint={PARTITIONS_HINT}
      actions={open ? <OpenTotal {...open} /> : null}
    >
      <HistoryTable
        className="partitions"
        scrollClassName="partitions-scroll"
        testId="partitions-grid"
        head={PARTITION_COLUMNS.map((c) => <HeaderCell key={c.column} spec={c} sort={sort} onSort={setSort} />)}
        after={rows === undefined ? <p className="muted">Waiting for the first read of the partitions…</p> : null}
      >
        {sorted.map((r) => (
          <Row key={`${r.topic}-${r.partition}`} r={r} />
        ))}
      </HistoryTable>
    </Panel>
  )
})
