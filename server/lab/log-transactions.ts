// A run's transactions as the log holds them: the COMMIT and ABORT markers on the application's
// topics, read through the log's inspector. Workers report only the transactions they end
// themselves; a killed worker's open transaction is aborted by the coordinator (on the next owner's
// initTransactions, or at transaction.timeout.ms) and only its ABORT markers tell of it.
//
// One transaction writes one marker on each partition it touched, all in one round of the
// coordinator's, so a producer's markers are grouped into transactions: sorted by time, a marker
// starts a new transaction when its producer epoch or outcome differs from the group's, when its
// partition is already in the group (a transaction marks a partition once), or when it was written
// more than MARKER_ROUND_MS after the group's first marker.

import type { LogInspector, StoredRecordView, TopicPartition } from '../log/types.ts'

/** How far apart one transaction's markers on different partitions may be written. */
export const MARKER_ROUND_MS = 25

const PAGE = 20_000

export interface LogTransactionCounts {
  committed: number
  aborted: number
}

type Marker = { producerId: number; epoch: number; control: 'COMMIT' | 'ABORT'; partition: string; timestamp: number }

async function markersOf(inspector: LogInspector, tp: TopicPartition, into: Marker[]): Promise<void> {
  const { logStartOffset, highWatermark } = await inspector.offsets(tp)
  let from = logStartOffset
  while (from < highWatermark) {
    const page: StoredRecordView[] = await inspector.readRaw(tp, from, highWatermark, PAGE)
    if (page.length === 0) break
    for (const r of page) {
      if (r.control === 'COMMIT' || r.control === 'ABORT')
        into.push({
          producerId: r.producerId,
          epoch: r.producerEpoch,
          control: r.control,
          partition: `${tp.topic}-${tp.partition}`,
          timestamp: r.timestamp,
        })
    }
    from = page[page.length - 1]!.offset + 1
  }
}

/** The transactions the markers on these topics end, each counted once across its partitions. */
export async function transactionsInLog(
  inspector: LogInspector,
  topics: readonly string[],
): Promise<LogTransactionCounts> {
  const partitions = new Map((await inspector.topics()).map((t) => [t.topic, t.partitions]))
  const markers: Marker[] = []
  for (const topic of topics) {
    for (let partition = 0; partition < (partitions.get(topic) ?? 0); partition++)
      await markersOf(inspector, { topic, partition }, markers)
  }
  return countTransactions(markers)
}

/** Groups each producer's markers into transactions (see the head of this file). */
export function countTransactions(markers: readonly Marker[]): LogTransactionCounts {
  const counts = { committed: 0, aborted: 0 }
  const byProducer = new Map<number, Marker[]>()
  for (const m of markers) {
    const list = byProducer.get(m.producerId)
    if (list) list.push(m)
    else byProducer.set(m.producerId, [m])
  }
  for (const list of byProducer.values()) {
    list.sort((a, b) => a.timestamp - b.timestamp)
    let first: Marker | null = null
    let marked = new Set<string>()
    for (const m of list) {
      const same =
        first !== null &&
        m.epoch === first.epoch &&
        m.control === first.control &&
        !marked.has(m.partition) &&
        m.timestamp - first.timestamp <= MARKER_ROUND_MS
      if (!same) {
        first = m
        marked = new Set()
        if (m.control === 'COMMIT') counts.committed++
        else counts.aborted++
      }
      marked.add(m.partition)
    }
  }
  return counts
}
