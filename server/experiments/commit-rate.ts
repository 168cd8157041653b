// Processed throughput over a window, from the group's offset commits: the records per second by
// which committed input offsets advance, summed over the input partitions (docs/measures.md).
//
// Committed offsets advance in steps, one per commit, so a window with arbitrary edges would be
// off by up to one commit's worth of records. The window's edges therefore snap, per partition,
// to the first and last commit inside it: each partition's rate is (last − first offset) over
// (last − first commit instant), and the partitions' rates add up.

export interface CommitSample {
  partition: number
  offset: number
  atMs: number
}

/** null when some partition committed fewer than twice inside the window. */
export function commitRate(
  samples: readonly CommitSample[],
  partitions: number,
  fromMs: number,
  toMs: number,
): number | null {
  const first = new Map<number, CommitSample>()
  const last = new Map<number, CommitSample>()
  for (const s of samples) {
    if (s.atMs < fromMs || s.atMs > toMs) continue
    const f = first.get(s.partition)
    if (!f || s.atMs < f.atMs || (s.atMs === f.atMs && s.offset < f.offset)) first.set(s.partition, s)
    const l = last.get(s.partition)
    if (!l || s.atMs > l.atMs || (s.atMs === l.atMs && s.offset > l.offset)) last.set(s.partition, s)
  }
  if (first.size < partitions) return null
  let total = 0
  for (const [p, f] of first) {
    const l = last.get(p)!
    // One commit only: this partition's rate over the window is unknown.
    if (l.atMs <= f.atMs) return null
    total += ((l.offset - f.offset) / (l.atMs - f.atMs)) * 1000
  }
  return total
}
