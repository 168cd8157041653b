// The partitions table: every partition of the lab's input, output and changelog topics, and the
// partitions of the internal topics that hold its group's offsets and its transactional ids where
// the backend has such topics, read through the log's inspector, the same port on either backend.
// All offsets are asked for at once (one moment); the partition log view takes its partition's
// offsets from the same read, so the two never disagree. Open transactions are the producers
// whose transactional records in [LSO, HW) have no marker yet (each producer has at most one).

import type { OpenTxnHolder, PartitionRole, PartitionRow } from '../../lib/partition-table.ts'
import { tpKey, type LogInspector, type PartitionOffsets, type TopicPartition } from '../log/types.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import { internalPartitionFor } from '../log/internal-partition.ts'

/** Kafka's internal topics: the group's committed offsets, the transaction coordinators' state. */
export const INTERNAL_TOPICS: readonly { topic: string; role: PartitionRole }[] = [
  { topic: '__consumer_offsets', role: 'offsets' },
  { topic: '__transaction_state', role: 'transaction-state' },
]
/** How many stored records of [LSO, HW) a partition's scan for open transactions reads at most. */
export const OPEN_SCAN_RECORDS = 2_000
/** How often the table asks again for an internal topic the cluster does not have yet. */
export const REASK_INTERNAL_MS = 2_000

export interface PartitionsTarget {
  topics: { input: string; output: string; changelog: string }
  partitions: number
  groupId: string
  /**
   * The lab's own transactional ids with their producer ids (the transaction state topic's keys; the holders' names).
   */
  producers: readonly { transactionalId: string; producerId: number }[]
  /** Internal topics the cluster has, with their partition counts. */
  internal: readonly { topic: string; partitions: number }[]
}

interface Slot extends TopicPartition {
  role: PartitionRole
}

function slots(t: PartitionsTarget): Slot[] {
  const out: Slot[] = []
  for (const role of ['input', 'output', 'changelog'] as const)
    for (let p = 0; p < t.partitions; p++) out.push({ topic: t.topics[role], partition: p, role })
  for (const it of INTERNAL_TOPICS) {
    const n = t.internal.find((x) => x.topic === it.topic)?.partitions
    if (!n) continue
    const ids = it.role === 'offsets' ? [t.groupId] : t.producers.map((p) => p.transactionalId)
    for (const p of [...new Set(ids.map((id) => internalPartitionFor(id, n)))].sort((a, b) => a - b))
      out.push({ topic: it.topic, partition: p, role: it.role })
  }
  return out
}

/** The producers with an open transaction in [LSO, HW), from the stored records. */
async function openTransactions(
  inspector: LogInspector,
  tp: TopicPartition,
  o: PartitionOffsets,
  nameOf: (producerId: number) => string | null,
): Promise<PartitionRow['open']> {
  if (o.lastStableOffset >= o.highWatermark) return { count: 0, holders: [] }
  const raw = await inspector.readRaw(tp, o.lastStableOffset, o.highWatermark, OPEN_SCAN_RECORDS)
  const holders = new Map<number, OpenTxnHolder>()
  for (const r of raw) {
    if (r.control !== null || !r.transactional || r.txnOutcome !== 'pending' || holders.has(r.producerId)) continue
    holders.set(r.producerId, {
      producerId: r.producerId,
      epoch: r.producerEpoch,
      transactionalId: nameOf(r.producerId),
      firstOffset: r.offset,
    })
  }
  const list = [...holders.values()]
  const bounded = raw.length >= OPEN_SCAN_RECORDS && raw.at(-1)!.offset + 1 < o.highWatermark
  // The LSO below the HW tells at least one; a scan that stopped early or saw them end since says no more.
  if (list.length === 0 || bounded) return { count: Math.max(1, list.length), atLeast: true, holders: list }
  return { count: list.length, holders: list }
}

/**
 * One read of every partition: the group's committed offsets, then every partition's offsets asked
 * for together, then the open transactions of those with LSO < HW.
 */
export async function readPartitions(
  inspector: LogInspector,
  t: PartitionsTarget,
): Promise<{ rows: PartitionRow[]; offsets: Map<string, PartitionOffsets> }> {
  const all = slots(t)
  // The group's committed offsets first, then the logs' offsets: a commit can only follow the
  // records it covers, so every committed offset read so is at most the high watermark read after it.
  const committed = await inspector.committedOffsets(t.groupId).catch(() => null)
  const read = await Promise.allSettled(all.map((s) => inspector.offsets(s)))
  const names = new Map(t.producers.map((p) => [p.producerId, p.transactionalId]))
  const nameOf = (id: number) => names.get(id) ?? null
  const offsets = new Map<string, PartitionOffsets>()
  const rows = await Promise.all(
    all.map(async (s, i): Promise<PartitionRow | null> => {
      const r = read[i]!
      if (r.status === 'rejected') return null
      const o = r.value
      offsets.set(tpKey(s.topic, s.partition), o)
      const open = await openTransactions(inspector, s, o, nameOf).catch(() => ({
        count: 1,
        atLeast: true as const,
        holders: [],
      }))
      const row: PartitionRow = {
        topic: s.topic,
        partition: s.partition,
        role: s.role,
        logStartOffset: o.logStartOffset,
        lastStableOffset: o.lastStableOffset,
        highWatermark: o.highWatermark,
        open,
      }
      if (s.role !== 'input' || committed === null) return row
      const c = committed.find((x) => x.topic === s.topic && x.partition === s.partition)?.offset ?? null
      return { ...row, committed: c, lag: c === null ? null : Math.max(0, o.highWatermark - c) }
    }),
  )
  return { rows: rows.filter((r): r is PartitionRow => r !== null), offsets }
}

/**
 * The table the lab shows, refreshed with the partition log view: `withOffsets` (the log view's
 * refresh) gets the offsets this read took, and the rows are kept once it is done, so a snapshot
 * holds both from one moment. Only the latest read of the current runtime is kept.
 */
export class PartitionsBook {
  rows: PartitionRow[] | undefined = undefined
  private internal: { rt: LabRuntime; topics: { topic: string; partitions: number }[]; askedAtMs: number } | null = null
  private reads = 0

  async refresh(
    rt: LabRuntime,
    current: () => LabRuntime,
    producers: PartitionsTarget['producers'],
    withOffsets: (offsetsOf: (tp: TopicPartition) => PartitionOffsets | undefined) => Promise<void>,
  ): Promise<void> {
    const inspector = rt.connection.inspector()
    const n = ++this.reads
    const internal = await this.internalTopics(rt, inspector)
    const read = await readPartitions(inspector, {
      topics: rt.topics,
      partitions: rt.partitions,
      groupId: rt.groupId,
      producers,
      internal,
    })
    try {
      await withOffsets((tp) => read.offsets.get(tpKey(tp.topic, tp.partition)))
    } finally {
      if (rt === current() && n === this.reads) this.rows = read.rows
    }
  }

  /**
   * The internal topics the cluster has. Once both are there they stay (asked once per runtime);
   * until then they are asked again each REASK_INTERNAL_MS: a new cluster creates __consumer_offsets
   * at the group's first coordinator lookup and __transaction_state at the first transactional producer.
   */
  private async internalTopics(
    rt: LabRuntime,
    inspector: LogInspector,
  ): Promise<{ topic: string; partitions: number }[]> {
    const known = this.internal?.rt === rt ? this.internal : null
    const now = rt.time.now()
    if (known && (known.topics.length === INTERNAL_TOPICS.length || now - known.askedAtMs < REASK_INTERNAL_MS))
      return known.topics
    const listed = await inspector.topics().catch(() => null)
    if (listed === null) return known?.topics ?? []
    const topics = listed.filter((x) => INTERNAL_TOPICS.some((it) => it.topic === x.topic))
    this.internal = { rt, topics, askedAtMs: now }
    return topics
  }

  clear(): void {
    this.rows = undefined
    this.reads++
  }
}
