// Input records waiting: written and not yet consumed. The backlog bound of a lab's load (the
// generator pauses above it) reads it on both backends. A partition's position is the furthest of
// the group's committed offset and its live task's consumed offset.

export interface TaskPosition {
  partition: number
  consumedOffset: number
}

/**
 * `written`: the input's end offset per partition, or only the total written (the load generator's
 * count, fresher than a metadata call on Kafka). Never negative: per partition when the ends are known.
 */
export function waitingRecords(
  written: number | readonly number[],
  committed: readonly (number | null)[],
  tasks: Iterable<TaskPosition>,
): number {
  const position = committed.map((c) => c ?? 0)
  for (const t of tasks)
    if (t.partition < position.length) position[t.partition] = Math.max(position[t.partition]!, t.consumedOffset)
  if (typeof written === 'number') return Math.max(0, written - position.reduce((a, b) => a + b, 0))
  return written.reduce((n, end, p) => n + Math.max(0, end - (position[p] ?? 0)), 0)
}
