// Processed throughput over whole commit intervals (docs/measures.md: how fast the group's committed
// input offsets advance). A commit covers the work since the previous commit of its partition, so
// the window of each partition runs from one of its commits to a later one: measured from a fixed
// instant instead, a window at commit.interval.ms 5000 would count, or miss, up to five seconds of
// work done before it opened. The partitions' rates add up to the group's.

/** One commit of one partition: when it was reported and the offset it committed. */
export interface PartitionCommit {
  t: number
  offset: number
}

export interface CommitWindowRate {
  /**
   * Records per second: the sum over partitions of (offset at the window's last
   * commit − at its first) ÷ (their time apart).
   */
  perSec: number
  /** The partitions whose window is complete. */
  partitions: number
  /** The shortest window of any partition, in ms. */
  shortestMs: number
}

/**
 * Each partition's window: its first commit at or after `from`, and its first commit at least
 * `spanMs` after that one. Null until every partition that has committed at or after `from` has a
 * complete window (the wait goes on), or when none has.
 */
export function commitWindowRate(
  commits: readonly (readonly PartitionCommit[])[],
  from: number,
  spanMs: number,
): CommitWindowRate | null {
  let perSec = 0
  let partitions = 0
  let shortestMs = Number.POSITIVE_INFINITY
  for (const list of commits) {
    const first = list.find((c) => c.t >= from)
    if (!first) continue
    const last = list.find((c) => c.t >= first.t + spanMs)
    if (!last) return null
    perSec += ((last.offset - first.offset) / (last.t - first.t)) * 1000
    partitions++
    shortestMs = Math.min(shortestMs, last.t - first.t)
  }
  return partitions === 0 ? null : { perSec: Math.round(perSec), partitions, shortestMs: Math.round(shortestMs) }
}
