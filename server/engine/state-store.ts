// The task's key-value store of aggregates, and its restore from the changelog
// (like Kafka Streams' ProcessorStateManager and StoreChangelogReader, for one store).

import type { Aggregate } from '../../lib/records.ts'
import { decodeOutputValue } from '../../lib/records.ts'
import type { LogReader, TopicPartition } from '../log/types.ts'
import type { IsolationLevel } from '../../lib/streams-config.ts'

export class KeyValueStore {
  private readonly map = new Map<string, Aggregate>()
  get(key: string): Aggregate | undefined {
    return this.map.get(key)
  }
  put(key: string, value: Aggregate): void {
    this.map.set(key, value)
  }
  size(): number {
    return this.map.size
  }
  entries(): IterableIterator<[string, Aggregate]> {
    return this.map.entries()
  }
  /** Discards all local state (closeDirty under exactly_once, or TaskCorrupted). */
  wipe(): void {
    this.map.clear()
  }
}

const RESTORE_BATCH = 10_000

/**
 * Rebuilds the store from its changelog partition: from the log start to the end offset as seen
 * by the isolation level (the last stable offset under read_committed, so pending and aborted
 * writes of a dead owner are never restored).
 */
export async function restoreFromChangelog(
  store: KeyValueStore,
  reader: LogReader,
  changelog: TopicPartition,
  isolation: IsolationLevel,
): Promise<{ records: number; fromOffset: number; toOffset: number }> {
  const offsets = await reader.offsets(changelog)
  const end = isolation === 'read_committed' ? offsets.lastStableOffset : offsets.highWatermark
  let position = offsets.logStartOffset
  let records = 0
  while (position < end) {
    const r = await reader.read(changelog, position, Math.min(RESTORE_BATCH, end - position), isolation)
    for (const rec of r.records) {
      if (rec.offset >= end) break
      const v = decodeOutputValue(rec.value)
      if (v && rec.key !== null) {
        store.put(rec.key, { count: v.count, sum: v.sum, min: v.min, max: v.max })
        records++
      }
    }
    if (r.nextOffset <= position) break
    position = r.nextOffset
  }
  return { records, fromOffset: offsets.logStartOffset, toOffset: end }
}

/**
 * Waits until no transaction is pending on the changelog partition (its last stable offset has
 * reached the high watermark). A pending transaction there belongs to a previous owner of the task
 * that crashed or was paused: until it is aborted (by fencing or transaction.timeout.ms), the
 * committed records written after it by a later owner are hidden from read_committed, and a
 * restore would silently miss them. Like requireStable for offsets, for the store.
 */
export async function awaitStableChangelog(reader: LogReader, changelog: TopicPartition, sleep: (ms: number) => Promise<void>, pollMs = 10): Promise<number> {
  let waited = 0
  for (;;) {
    const o = await reader.offsets(changelog)
    if (o.lastStableOffset >= o.highWatermark) return waited
    await sleep(pollMs)
    waited += pollMs
  }
}
