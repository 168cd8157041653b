// The task's key-value store of aggregates, and its restore from the changelog
// (like Kafka Streams' ProcessorStateManager and StoreChangelogReader, for one store).

import type { Aggregate } from '../../lib/records.ts'
import { applyToAggregate, decodeOutputValue } from '../../lib/records.ts'
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
  /**
   * Applies one input value to the key's aggregate (as applyToAggregate does) and returns it. The
   * stored aggregate is updated in place: one object per key, not one per record for the garbage
   * collector to move. The result is the store's own entry, changed by the next update of the key.
   */
  aggregate(key: string, value: number): Aggregate {
    const prev = this.map.get(key)
    if (prev === undefined) {
      const first = applyToAggregate(undefined, value)
      this.map.set(key, first)
      return first
    }
    prev.count += 1
    prev.sum += value
    if (value < prev.min) prev.min = value
    if (value > prev.max) prev.max = value
    return prev
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
 * A restore whose read of the changelog came back empty before the end offset it was given: retriable
 * (the task's creation starts again from its fence), as a store restored short would be silently behind.
 */
export class RestoreIncompleteError extends Error {
  readonly name = 'RestoreIncompleteError'
  readonly retriable = true
  constructor(changelog: TopicPartition, position: number, end: number) {
    super(
      `restore of ${changelog.topic}-${changelog.partition} read nothing at offset ${position}, below its end ` +
        `offset ${end}: the store is not restored yet`,
    )
  }
}

/**
 * Rebuilds the store from its changelog partition: from the log start to the end offset as seen
 * by the isolation level (the last stable offset under read_committed, so pending and aborted
 * writes of a dead owner are never restored). `between` runs after each batch: the worker lets
 * other work run there (its group's heartbeats, the other workers), as Kafka Streams restores in
 * chunks from its poll loop while the consumer heartbeats on its own thread; a changelog of
 * 120,000 records restored in one turn held the event loop past session.timeout.ms.
 *
 * Only each key's last value decides the store, so values are decoded once per key at the end,
 * not once per record: a changelog not yet compacted holds hundreds of thousands of updates of a
 * few keys. Should a key's last value not decode (a corrupt record), the changelog is replayed
 * record by record instead, which keeps the key's last value that does decode.
 */
export async function restoreFromChangelog(
  store: KeyValueStore,
  reader: LogReader,
  changelog: TopicPartition,
  isolation: IsolationLevel,
  between: () => Promise<void> = async () => {},
): Promise<{ records: number; fromOffset: number; toOffset: number }> {
  const offsets = await reader.offsets(changelog)
  const range: ChangelogRange = {
    reader,
    changelog,
    from: offsets.logStartOffset,
    end: isolation === 'read_committed' ? offsets.lastStableOffset : offsets.highWatermark,
    isolation,
    between,
  }
  const latest = new Map<string, string>()
  let records = 0
  await readChangelog(range, (key, value) => {
    latest.set(key, value)
    records++
  })
  const decoded: [string, Aggregate][] = []
  for (const [key, raw] of latest) {
    const v = aggregateOf(raw)
    if (!v) {
      records = await replayRecordByRecord(store, range)
      break
    }
    decoded.push([key, v])
  }
  if (decoded.length === latest.size) for (const [key, v] of decoded) store.put(key, v)
  return { records, fromOffset: range.from, toOffset: range.end }
}

/** The changelog records a restore reads: [from, end) as the isolation level sees them, `between` after each batch. */
interface ChangelogRange {
  reader: LogReader
  changelog: TopicPartition
  from: number
  end: number
  isolation: IsolationLevel
  between: () => Promise<void>
}

/** A changelog value's aggregate, or null when it does not decode. */
function aggregateOf(raw: string): Aggregate | null {
  const v = decodeOutputValue(raw)
  return v ? { count: v.count, sum: v.sum, min: v.min, max: v.max } : null
}

/** Every keyed record with a value in the range, in offset order, a batch at a time. */
async function readChangelog(r: ChangelogRange, visit: (key: string, value: string) => void): Promise<void> {
  let position = r.from
  while (position < r.end) {
    const batch = await r.reader.read(r.changelog, position, Math.min(RESTORE_BATCH, r.end - position), r.isolation)
    for (const rec of batch.records) {
      if (rec.offset >= r.end) break
      if (rec.key !== null && rec.value !== null) visit(rec.key, rec.value)
    }
    // A read that moves nothing below the end (a new leader whose high watermark still lags the old
    // one's, say): the store would be short of what the changelog holds. Task creation tries again.
    if (batch.nextOffset <= position) throw new RestoreIncompleteError(r.changelog, position, r.end)
    position = batch.nextOffset
    if (position < r.end) await r.between()
  }
}

/** Puts every update that decodes, in order; returns how many. */
async function replayRecordByRecord(store: KeyValueStore, range: ChangelogRange): Promise<number> {
  let records = 0
  await readChangelog(range, (key, value) => {
    const v = aggregateOf(value)
    if (v) {
      store.put(key, v)
      records++
    }
  })
  return records
}

/**
 * Waits until no transaction is pending on the changelog partition (its last stable offset has
 * reached the high watermark). A pending transaction there belongs to a previous owner of the task
 * that crashed or was paused: until it is aborted (by fencing or transaction.timeout.ms), the
 * committed records written after it by a later owner are hidden from read_committed, and a
 * restore would silently miss them. Like requireStable for offsets, for the store.
 */
export async function awaitStableChangelog(
  reader: LogReader,
  changelog: TopicPartition,
  sleep: (ms: number) => Promise<void>,
  pollMs = 10,
): Promise<number> {
  let waited = 0
  for (;;) {
    const o = await reader.offsets(changelog)
    if (o.lastStableOffset >= o.highWatermark) return waited
    await sleep(pollMs)
    waited += pollMs
  }
}
