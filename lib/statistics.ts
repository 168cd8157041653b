// The statistics of a measured cell: its median, a 95% confidence interval of the median, and
// whether two cells' intervals overlap (then the order of their medians is not known). Pure and
// isomorphic: the sweep, the protocol's cells, the CLI and the page use the same code.
//
// The interval is the distribution-free binomial order-statistic interval: with the n samples
// sorted x(1) ≤ … ≤ x(n), [x(k), x(n−k+1)] covers the true median with probability
// 1 − 2·P(B ≤ k−1), B ~ Binomial(n, 1/2), whatever the distribution; k is the largest rank that
// keeps that probability at or above the confidence asked for. It needs no random draws (so it is
// the same on every run) and assumes only independent samples of one distribution. Below 6 samples
// no such k exists at 95% (even [min, max] covers with only 1 − 2/2ⁿ), and the interval is null.

export interface MedianInterval {
  median: number
  /** null when the samples are too few for the confidence asked for. */
  low: number | null
  high: number | null
  /** The interval's exact coverage (≥ the confidence asked for), or null without an interval. */
  coverage: number | null
  n: number
}

/** P(B ≤ k) for B ~ Binomial(n, 1/2). */
export function binomialHalfCdf(n: number, k: number): number {
  if (k < 0) return 0
  let term = 0.5 ** n
  let sum = term
  for (let i = 1; i <= Math.min(k, n); i++) {
    term = (term * (n - i + 1)) / i
    sum += term
  }
  return Math.min(1, sum)
}

export function median(sorted: readonly number[]): number {
  const n = sorted.length
  if (n === 0) throw new Error('the median of no samples')
  return n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2
}

/** The median of the samples and its order-statistic confidence interval (default 95%). */
export function medianInterval(samples: readonly number[], confidence = 0.95): MedianInterval {
  const xs = [...samples].sort((a, b) => a - b)
  const n = xs.length
  const m = median(xs)
  const alpha = 1 - confidence
  let k = 0
  // The largest k (1-based rank) with 2·P(B ≤ k−1) ≤ alpha.
  while (k + 1 <= Math.floor((n + 1) / 2) && 2 * binomialHalfCdf(n, k) <= alpha) k++
  if (k === 0) return { median: m, low: null, high: null, coverage: null, n }
  return { median: m, low: xs[k - 1]!, high: xs[n - k]!, coverage: 1 - 2 * binomialHalfCdf(n, k - 1), n }
}

/** Whether the interval lies within ±tolerance (a fraction) of its median: the stopping rule of a measured cell. */
export function preciseEnough(i: MedianInterval, tolerance = 0.1): boolean {
  if (i.low === null || i.high === null) return false
  const band = Math.abs(i.median) * tolerance
  return i.median - i.low <= band && i.high - i.median <= band
}

/**
 * Whether two intervals overlap: then which median is higher is not known (null:
 * an interval is missing, nothing is known).
 */
export function intervalsOverlap(a: MedianInterval, b: MedianInterval): boolean | null {
  if (a.low === null || a.high === null || b.low === null || b.high === null) return null
  return a.low <= b.high && b.low <= a.high
}

/** The fewest samples that give an interval at this confidence (6 at 95%). */
export function fewestSamplesForInterval(confidence = 0.95): number {
  let n = 1
  while (
    medianInterval(
      Array.from({ length: n }, (_, i) => i),
      confidence,
    ).low === null
  )
    n++
  return n
}
