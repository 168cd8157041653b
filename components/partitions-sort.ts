// The partitions table's columns, their Kafka names and order: pure functions of the rows, so the
// sort and the figures are tested without a browser.

import type { PartitionRole, PartitionRow } from '../lib/partition-table.ts'
import { fmtInt, UNAVAILABLE } from './format.ts'

export type PartitionColumn = 'partition' | 'role' | 'logStart' | 'lso' | 'hw' | 'open' | 'committed' | 'lag'
export type SortDirection = 'asc' | 'desc'
export interface PartitionSort {
  column: PartitionColumn
  direction: SortDirection
}

export interface ColumnSpec {
  column: PartitionColumn
  label: string
  /** Kafka's name for the figure (a caption under the label), where it has one. */
  kafka?: string
  /** What the figure is, and where Kafka shows it. */
  title: string
  numeric: boolean
}

export const PARTITION_COLUMNS: readonly ColumnSpec[] = [
  { column: 'partition', label: 'Partition', title: 'topic-partition', numeric: false },
  {
    column: 'role',
    label: 'Role',
    title:
      'what the partition is to the lab: its input, output or changelog, or the internal partition holding its ' +
      "group's offsets or its transactional ids' state",
    numeric: false,
  },
  {
    column: 'logStart',
    label: 'Log start',
    kafka: 'log-start-offset',
    title: 'the first offset still stored (Kafka: log start offset, ListOffsets EARLIEST)',
    numeric: true,
  },
  {
    column: 'lso',
    label: 'Last stable',
    kafka: 'LSO',
    title:
      'last stable offset: below it every transaction has ended; a read_committed consumer reads up to it (Kafka: ' +
      'LSO, ListOffsets LATEST under read_committed)',
    numeric: true,
  },
  {
    column: 'hw',
    label: 'High watermark',
    kafka: 'HW',
    title:
      'high watermark: the offset after the last replicated record; a read_uncommitted consumer reads up to it ' +
      '(Kafka: HW, ListOffsets LATEST)',
    numeric: true,
  },
  {
    column: 'open',
    label: 'Open txns',
    kafka: 'describe-producers',
    title:
      'open transactions on the partition: the producers whose transactional records after the LSO have no marker ' +
      'yet, with the first offset of each (kafka-transactions.sh describe-producers: CurrentTransactionStartOffset); ' +
      '≥ when only the LSO below the HW tells',
    numeric: true,
  },
  {
    column: 'committed',
    label: 'Committed',
    kafka: 'CURRENT-OFFSET',
    title:
      "input partitions: the group's committed offset, the next record to process (kafka-consumer-groups.sh " +
      '--describe: CURRENT-OFFSET)',
    numeric: true,
  },
  {
    column: 'lag',
    label: 'Lag',
    kafka: 'LAG · records-lag',
    title:
      "input partitions: high watermark − the group's committed offset (kafka-consumer-groups.sh --describe: LAG; " +
      "the consumer's own records-lag measures from its fetch position instead)",
    numeric: true,
  },
]

const ROLE_ORDER: Record<PartitionRole, number> = {
  input: 0,
  output: 1,
  changelog: 2,
  offsets: 3,
  'transaction-state': 4,
}

/** The row's value in a column; null sorts last whatever the direction. */
export function cellValue(r: PartitionRow, column: PartitionColumn): number | string | null {
  switch (column) {
    case 'partition':
      return `${r.topic}-${r.partition}`
    case 'role':
      return ROLE_ORDER[r.role]
    case 'logStart':
      return r.logStartOffset
    case 'lso':
      return r.lastStableOffset
    case 'hw':
      return r.highWatermark
    case 'open':
      return r.open.count
    case 'committed':
      return r.committed ?? null
    case 'lag':
      return r.lag ?? null
  }
}

/** The lab's order: role (input, output, changelog, internal), then partition number. */
function natural(a: PartitionRow, b: PartitionRow): number {
  return ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.topic.localeCompare(b.topic) || a.partition - b.partition
}

/** The rows sorted by a column (ties in the lab's order); rows without the figure go last. */
export function sortPartitions(rows: readonly PartitionRow[], sort: PartitionSort): PartitionRow[] {
  const sign = sort.direction === 'asc' ? 1 : -1
  return [...rows].sort((a, b) => {
    const x = cellValue(a, sort.column)
    const y = cellValue(b, sort.column)
    if (x === null || y === null) return x === y ? natural(a, b) : x === null ? 1 : -1
    if (sort.column === 'partition') return sign * natural(a, b)
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))
    return c !== 0 ? sign * c : natural(a, b)
  })
}

/** A header click: the same column flips its direction; another starts descending for figures, ascending for names. */
export function nextSort(current: PartitionSort, column: PartitionColumn): PartitionSort {
  if (current.column === column) return { column, direction: current.direction === 'asc' ? 'desc' : 'asc' }
  const numeric = PARTITION_COLUMNS.find((c) => c.column === column)?.numeric ?? false
  return { column, direction: numeric ? 'desc' : 'asc' }
}

/** The open-transactions cell: "0", "2", "≥1". */
export function fmtOpen(open: PartitionRow['open']): string {
  return `${open.atLeast ? '≥' : ''}${open.count}`
}

/** Who holds them: "eoscope-0_1 (pid 1001 e2) from 4,120"; producers the lab does not know by their producer id. */
export function fmtHolders(open: PartitionRow['open']): string {
  if (open.holders.length === 0) return open.count > 0 ? 'pending transaction (its producer is not known)' : ''
  return open.holders
    .map((h) => `${h.transactionalId ?? 'producer'} (pid ${h.producerId} e${h.epoch}) from ${fmtInt(h.firstOffset)}`)
    .join(', ')
}

/** An input partition's figure, "—" elsewhere or when no offset is committed yet. */
export function fmtInputFigure(r: PartitionRow, figure: 'committed' | 'lag'): string {
  return r.role === 'input' ? fmtInt(r[figure]) : UNAVAILABLE
}

export const ROLE_LABEL: Record<PartitionRole, string> = {
  input: 'input',
  output: 'output',
  changelog: 'changelog',
  offsets: 'group offsets',
  'transaction-state': 'transaction state',
}
