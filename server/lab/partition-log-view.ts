// The partition log view: the selected partition's newest stored records, those around its
// latest ABORT marker, or those from an offset (an evidence card's link), read through the
// log's inspector (the embedded log answers at once, a cluster over the network) and
// refreshed by a loop.

import type { CommandPayload, PartitionLogView } from '../../lib/lab-protocol.ts'
import type { LogInspector, PartitionOffsets, TopicPartition } from '../log/types.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import { logCell } from './snapshot-parts.ts'

/** How far back the view looks for the latest ABORT marker. */
const ABORT_SEARCH_RECORDS = 20_000
const LOG_WINDOW = 120
const SEARCH_STEP = 1_000

export type LogSelection = CommandPayload<'selectPartition'>

async function lastAbortOffset(
  inspector: LogInspector,
  tp: TopicPartition,
  logStart: number,
  hw: number,
): Promise<number | null> {
  for (let to = hw; to > logStart && hw - to < ABORT_SEARCH_RECORDS; to -= SEARCH_STEP) {
    const raw = await inspector.readRaw(tp, Math.max(logStart, to - SEARCH_STEP), to, SEARCH_STEP)
    for (let i = raw.length - 1; i >= 0; i--) if (raw[i]!.control === 'ABORT') return raw[i]!.offset
  }
  return null
}

export class PartitionLogBook {
  selected: LogSelection = { topic: 'output', partition: 0, window: 'latest' }
  view: PartitionLogView | null = null
  /** Why the last selection was refused (it named another lab's records): shown instead of records. */
  private refused: string | null = null

  /** A new selection: the view follows it (a refusal shown before goes). */
  select(sel: LogSelection): void {
    this.selected = sel
    this.refused = null
  }

  /** A selection refused: until the next one, the view shows why instead of any lab's records. */
  refuse(why: string): void {
    this.refused = why
  }

  /** What the partition log shows: the view, or the refusal in place of its records. */
  shown(): PartitionLogView | null {
    if (this.refused === null) return this.view
    const sel = this.selected
    const base: PartitionLogView = this.view ?? {
      topic: sel.topic,
      partition: sel.partition,
      logStartOffset: 0,
      lastStableOffset: 0,
      highWatermark: 0,
      cells: [],
      readCommittedPosition: 0,
      readUncommittedPosition: 0,
    }
    return { ...base, cells: [], refusal: this.refused }
  }

  /**
   * Reads the selection of this runtime; only the latest selection of the current runtime is kept
   * (an older refresh may end later). `readCommitted`: the dashboard's own read_committed position;
   * `offsetsOf`: the partition's offsets when the partitions table has just read them (one moment for both).
   */
  async refresh(
    rt: LabRuntime,
    current: () => LabRuntime,
    readCommitted: (partition: number) => number | undefined,
    offsetsOf?: (tp: TopicPartition) => PartitionOffsets | undefined,
  ): Promise<void> {
    const sel = this.selected
    const topic =
      sel.topic === 'input' ? rt.topics.input : sel.topic === 'output' ? rt.topics.output : rt.topics.changelog
    const partition = Math.min(sel.partition, rt.partitions - 1)
    const tp = { topic, partition }
    const inspector = rt.connection.inspector()
    const o = offsetsOf?.(tp) ?? (await inspector.offsets(tp))
    let end = o.highWatermark
    if (sel.window === 'last-abort') {
      const abort = await lastAbortOffset(inspector, tp, o.logStartOffset, o.highWatermark)
      if (abort !== null) end = Math.min(o.highWatermark, abort + 10)
    }
    // 'at': LOG_WINDOW offsets from fromOffset (or the log start, when retention dropped it).
    const from =
      sel.window === 'at'
        ? Math.min(Math.max(o.logStartOffset, sel.fromOffset ?? 0), o.highWatermark)
        : Math.max(o.logStartOffset, end - LOG_WINDOW)
    if (sel.window === 'at') end = Math.min(o.highWatermark, from + LOG_WINDOW)
    const raw = await inspector.readRaw(tp, from, end, LOG_WINDOW)
    const cells = raw.map((x) => logCell(x, topic === rt.topics.input ? 'input' : 'derived', partition))
    const rc = topic === rt.topics.output ? (readCommitted(partition) ?? o.lastStableOffset) : o.lastStableOffset
    if (rt !== current() || sel !== this.selected) return
    const window = sel.window === 'at' ? { window: sel.window, fromOffset: from } : { window: sel.window }
    this.view = {
      topic,
      partition,
      logStartOffset: o.logStartOffset,
      lastStableOffset: o.lastStableOffset,
      highWatermark: o.highWatermark,
      cells,
      readCommittedPosition: rc,
      readUncommittedPosition: o.highWatermark,
      ...window,
    }
  }

  clear(): void {
    this.view = null
    this.refused = null
  }
}
