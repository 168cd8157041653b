// The message browser's query logic, pure: which offsets a query reads (planRange), and the page
// it makes of the stored records and what each isolation level's consumer was given
// (messagePage). The reads themselves are in message-browser-read.ts.

import {
  MESSAGE_SCAN_MAX,
  type MessagePage,
  type MessageQuery,
  type MessageRow,
  type MessageSource,
  type MessageState,
} from '../../lib/message-browser.ts'
import type { LabTopicRole } from '../../lib/log-range.ts'
import { decodeOutputValue } from '../../lib/records.ts'
import type { PartitionOffsets, StoredRecordView } from '../log/types.ts'

type Result<T> = { ok: true; value: T } | { ok: false; error: string }

/** The offsets a query covers, [from, to), and the part of it this request examines, [from, scanEnd). */
export interface PlannedRange {
  from: number
  to: number
  scanEnd: number
}

/**
 * Without `from`, a query with no key or time filter shows the newest `limit` records before `to`
 * (the high watermark by default), and a filtered one searches from the log start. A range that
 * starts beyond the high watermark, or ends before the log start, is refused; one that overlaps
 * the log is cut to it.
 */
export function planRange(q: MessageQuery, partitions: number, o: PartitionOffsets): Result<PlannedRange> {
  if (q.partition >= partitions)
    return {
      ok: false,
      error: `partition ${q.partition} does not exist: topic ${q.topic} has ${partitions} (0 to ${partitions - 1})`,
    }
  if (q.from !== undefined && q.from > o.highWatermark)
    return {
      ok: false,
      error: `from ${q.from} is beyond the high watermark ${o.highWatermark} of ${q.topic}-${q.partition}`,
    }
  if (q.to !== undefined && q.to <= o.logStartOffset && o.logStartOffset > 0)
    return {
      ok: false,
      error:
        `to ${q.to} is at or below the log start offset ${o.logStartOffset} of ${q.topic}-${q.partition}: those ` +
        `records were deleted`,
    }
  const to = Math.min(q.to ?? o.highWatermark, o.highWatermark)
  const filtered = q.key !== undefined || q.source !== undefined || q.sinceMs !== undefined || q.untilMs !== undefined
  const start = q.from ?? (filtered ? o.logStartOffset : to - q.limit)
  const from = Math.min(Math.max(start, o.logStartOffset), to)
  return { ok: true, value: { from, to, scanEnd: Math.min(to, from + MESSAGE_SCAN_MAX) } }
}

export interface PageInput {
  query: MessageQuery
  role: LabTopicRole
  topic: string
  partitions: number
  offsets: PartitionOffsets
  range: PlannedRange
  /** The stored records of [range.from, range.scanEnd), control markers included, in offset order. */
  stored: readonly StoredRecordView[]
  /** The offsets a read_committed and a read_uncommitted consumer were given over the same range. */
  readCommitted: ReadonlySet<number>
  readUncommitted: ReadonlySet<number>
}

function stateOf(r: StoredRecordView): MessageState {
  if (r.control !== null) return 'control'
  if (!r.transactional) return 'non-transactional'
  return r.txnOutcome === 'committed' || r.txnOutcome === 'aborted' ? r.txnOutcome : 'pending'
}

/** The input record an output or changelog record came from, read off its value. */
export function sourceOf(role: LabTopicRole, r: StoredRecordView): MessageSource | null {
  if (role === 'input' || r.control !== null) return null
  const v = decodeOutputValue(r.value)
  return v ? { topic: 'input', partition: v.source.partition, offset: v.source.offset } : null
}

function matches(q: MessageQuery, r: StoredRecordView): boolean {
  if (q.key !== undefined && r.key !== q.key) return false
  if (q.sinceMs !== undefined && r.timestamp < q.sinceMs) return false
  if (q.untilMs !== undefined && r.timestamp >= q.untilMs) return false
  return true
}

function row(p: PageInput, r: StoredRecordView): MessageRow {
  return {
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.key,
    value: r.value,
    headers: { ...(r.headers ?? {}) },
    producerId: r.producerId,
    producerEpoch: r.producerEpoch,
    sequence: r.sequence,
    transactional: r.transactional,
    control: r.control,
    state: stateOf(r),
    aboveLso: r.offset >= p.offsets.lastStableOffset,
    readCommitted: p.readCommitted.has(r.offset),
    readUncommitted: p.readUncommitted.has(r.offset),
    source: sourceOf(p.role, r),
    sameSourceAs: [],
  }
}

/** Rows whose records came from the same input record name one another (a duplicate's copies). */
function linkSameSource(rows: MessageRow[]): void {
  const bySource = new Map<string, MessageRow[]>()
  for (const r of rows) {
    if (!r.source) continue
    const k = `${r.source.partition}:${r.source.offset}`
    const list = bySource.get(k)
    if (list) list.push(r)
    else bySource.set(k, [r])
  }
  for (const list of bySource.values())
    if (list.length > 1) for (const r of list) r.sameSourceAs = list.filter((x) => x !== r).map((x) => x.offset)
}

/** The page: the records of the range that pass the filters, at most `limit`, and where the next page starts. */
export function messagePage(p: PageInput): MessagePage {
  const { query, range } = p
  const rows: MessageRow[] = []
  let scannedTo = range.scanEnd
  for (const r of p.stored) {
    if (r.offset < range.from || r.offset >= range.scanEnd) continue
    if (!matches(query, r)) continue
    const shown = row(p, r)
    if (
      query.source !== undefined &&
      (shown.source?.partition !== query.source.partition || shown.source.offset !== query.source.offset)
    )
      continue
    rows.push(shown)
    if (rows.length >= query.limit) {
      scannedTo = r.offset + 1
      break
    }
  }
  linkSameSource(rows)
  return {
    topic: p.topic,
    role: p.role,
    partition: query.partition,
    partitions: p.partitions,
    logStartOffset: p.offsets.logStartOffset,
    lastStableOffset: p.offsets.lastStableOffset,
    highWatermark: p.offsets.highWatermark,
    from: range.from,
    scannedTo,
    nextOffset: scannedTo < range.to ? scannedTo : null,
    records: rows,
  }
}
