// The engine's processed throughput in its steady state, from samples of the group's committed
// input offsets taken while it runs. A run of 1,000,000 records lasts about one second on the
// embedded log, ten commit intervals at 100 ms: the committed total advances in steps (one per
// worker commit), and the whole-run figure ends at the commit that covers the last record, up to
// one interval after the work. That quantised the whole-run figure by about a tenth: six runs of
// the same code read 886k-893k, 972k-975k, 1,076k-1,083k and 1,206k-1,214k records/s, a cluster per
// whole number of intervals. The slope of a least-squares line through every sample taken between
// 10% and 90% committed averages over the steps and leaves out the start and the final wait.

export interface CommittedSample {
  /** Milliseconds (any origin, the same for every sample). */
  at: number
  /** The group's committed input offsets, summed over the partitions. */
  committed: number
}

export interface SteadyRate {
  /** Records per second: the slope of the fitted line. */
  perSec: number
  /** From the first to the last sample in the window. */
  windowMs: number
  /** Samples in the window. */
  samples: number
  /** Distinct committed totals among them: the commits the line is fitted through. */
  steps: number
}

/** Fewer samples than this in the window: no rate (the run was too short to measure). */
export const MIN_SAMPLES = 10
/** Fewer distinct committed totals than this in the window: no rate (too few commits to draw a line through). */
export const MIN_STEPS = 4

/**
 * The least-squares slope of committed against time over the samples between `from` and `to` of `records` committed;
 * null when the window holds too few samples or commits, or no time.
 */
export function steadyRate(
  samples: readonly CommittedSample[],
  records: number,
  from = 0.1,
  to = 0.9,
): SteadyRate | null {
  const low = records * from
  const high = records * to
  const inWindow = samples.filter((s) => s.committed >= low && s.committed <= high)
  const n = inWindow.length
  const steps = new Set(inWindow.map((s) => s.committed)).size
  if (n < MIN_SAMPLES || steps < MIN_STEPS) return null
  let meanT = 0
  let meanC = 0
  for (const s of inWindow) {
    meanT += s.at / n
    meanC += s.committed / n
  }
  let cov = 0
  let varT = 0
  for (const s of inWindow) {
    cov += (s.at - meanT) * (s.committed - meanC)
    varT += (s.at - meanT) ** 2
  }
  const windowMs = inWindow[n - 1]!.at - inWindow[0]!.at
  if (varT === 0 || windowMs <= 0) return null
  return { perSec: Math.round((cov / varT) * 1000), windowMs: Math.round(windowMs), samples: n, steps }
}
