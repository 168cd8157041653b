// The partition log view: the selected partition's newest stored records, or those around its
// latest ABORT marker, read through the log's inspector (the embedded log answers at once, a
// cluster over the network) and refreshed by a loop.

import type { CommandPayload, PartitionLogView } from '../../lib/lab-protocol.ts'
import type { LogInspector, TopicPartition } from '../log/types.ts'
import type { LabRuntime } from './lab-runtime.ts'
import { logCell } from './snapshot-parts.ts'

/** How far back the view looks for the latest ABORT marker. */
const ABORT_SEARCH_RECORDS = 20_000
const LOG_WINDOW = 120
const SEARCH_STEP = 1_000

export type LogSelection = CommandPayload<'selectPartition'>

async function lastAbortOffset(inspector: LogInspector, tp: TopicPartition, logStart: number, hw: number): Promise<number | null> {
  for (let to = hw; to > logStart && hw - to < ABORT_SEARCH_RECORDS; to -= SEARCH_STEP) {
    const raw = await inspector.readRaw(tp, Math.max(logStart, to - SEARCH_STEP), to, SEARCH_STEP)
    for (let i = raw.length - 1; i >= 0; i--) if (raw[i]!.control === 'ABORT') return raw[i]!.offset
  }
  return null
}

export class PartitionLogBook {
  selected: LogSelection = { topic: 'output', partition: 0, window: 'latest' }
  view: PartitionLogView | null = null

  /**
   * Reads the selection of this runtime; only the latest selection of the current runtime is kept
   * (an older refresh may end later). `readCommitted`: the dashboard's own read_committed position.
   */
  async refresh(rt: LabRuntime, current: () => LabRuntime, readCommitted: (partition: number) => number | undefined): Promise<void> {
    const sel = this.selected
    const topic = sel.topic === 'input' ? rt.topics.input : sel.topic === 'output' ? rt.topics.output : rt.topics.changelog
    const partition = Math.min(sel.partition, rt.partitions - 1)
    const tp = { topic, partition }
    const inspector = rt.connection.inspector()
    const o = await inspector.offsets(tp)
    let end = o.highWatermark
    if (sel.window === 'last-abort') {
      const abort = await lastAbortOffset(inspector, tp, o.logStartOffset, o.highWatermark)
      if (abort !== null) end = Math.min(o.highWatermark, abort + 10)
    }
    const raw = await inspector.readRaw(tp, Math.max(o.logStartOffset, end - LOG_WINDOW), end, LOG_WINDOW)
    const cells = raw.map((x) => logCell(x, topic === rt.topics.input ? 'input' : 'derived', partition))
    const rc = topic === rt.topics.output ? (readCommitted(partition) ?? o.lastStableOffset) : o.lastStableOffset
    if (rt !== current() || sel !== this.selected) return
    this.view = { topic, partition, logStartOffset: o.logStartOffset, lastStableOffset: o.lastStableOffset, highWatermark: o.highWatermark, cells, readCommittedPosition: rc, readUncommittedPosition: o.highWatermark }
  }

  clear(): void {
    this.view = null
  }
}
