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
//
// The markers themselves are counted too (markersInLog): one per partition a transaction touched,
// per topic and partition, as a reader of one topic's partitions (Kafka's tools, eoscope observe)
// counts them. So one transaction over six partitions is 1 transaction and 6 COMMIT markers.

import type { LogInspector, StoredRecordView, TopicPartition } from '../log/types.ts'

/** How far apart one transaction's markers on different partitions may be written. */
export const MARKER_ROUND_MS = 25

const PAGE = 20_000

export interface LogTransactionCounts {
  committed: number
  aborted: number
}

/** The COMMIT and ABORT markers on each topic, per partition (index = partition), and their totals. */
export interface MarkerCounts {
  commit: number
  abort: number
  byTopic: Record<string, { commit: number[]; abort: number[] }>
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
  return (await transactionsAndMarkersInLog(inspector, topics)).transactions
}

/** Both counts from one read of the log: transactions (by producer id and epoch) and markers (per partition). */
export async function transactionsAndMarkersInLog(
  inspector: LogInspector,
  topics: readonly string[],
): Promise<{ transactions: LogTransactionCounts; markers: MarkerCounts }> {
  const partitions = new Map((await inspector.topics()).map((t) => [t.topic, t.partitions]))
  const all: Marker[] = []
  const markers: MarkerCounts = { commit: 0, abort: 0, byTopic: {} }
  for (const topic of topics) {
    const n = partitions.get(topic) ?? 0
    if (n === 0) continue
    const perTopic = { commit: new Array<number>(n).fill(0), abort: new Array<number>(n).fill(0) }
    markers.byTopic[topic] = perTopic
    for (let partition = 0; partition < n; partition++) {
      const from = all.length
      await markersOf(inspector, { topic, partition }, all)
      for (let i = from; i < all.length; i++) {
        if (all[i]!.control === 'COMMIT') perTopic.commit[partition]!++
        else perTopic.abort[partition]!++
      }
    }
    markers.commit += perTopic.commit.reduce((a, b) => a + b, 0)
    markers.abort += perTopic.abort.reduce((a, b) => a + b, 0)
  }
  return { transactions: countTransactions(all), markers }
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
