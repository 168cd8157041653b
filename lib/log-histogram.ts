// A bounded, mergeable quantile sketch: a histogram with logarithmic buckets (the scheme of
// DDSketch). A value x > 0 falls in bucket i = ceil(log_γ x) with γ = (1 + α) / (1 − α), and a
// bucket answers with 2γ^i / (γ + 1), which is within a relative error α of every value in it. So a
// quantile read from the sketch is within α (relative) of the true order statistic at that rank,
// for any number of values, in fixed memory. Two sketches of one α add bucket by bucket (merge).
// Values of 0 are counted apart; values outside [MIN_VALUE, MAX_VALUE] fall in the end buckets
// (the error bound holds inside that range). Pure and isomorphic.

/** The relative error of every quantile this sketch answers: 1%. */
export const RELATIVE_ERROR = 0.01
const GAMMA = (1 + RELATIVE_ERROR) / (1 - RELATIVE_ERROR)
const LN_GAMMA = Math.log(GAMMA)
/** The range within which the error bound holds: 1 µs to about 28 hours in milliseconds, or 1e-3 to 1e8 records. */
export const MIN_VALUE = 1e-3
export const MAX_VALUE = 1e8
const MIN_INDEX = Math.ceil(Math.log(MIN_VALUE) / LN_GAMMA)
const MAX_INDEX = Math.ceil(Math.log(MAX_VALUE) / LN_GAMMA)
/** Buckets held: 1,267 at α = 1% (5 KB of Uint32). */
export const BUCKETS = MAX_INDEX - MIN_INDEX + 1

export class LogHistogram {
  private readonly counts = new Uint32Array(BUCKETS)
  private zeros = 0
  private n = 0

  add(x: number): void {
    if (!Number.isFinite(x) || x < 0) return
    this.n++
    if (x === 0) {
      this.zeros++
      return
    }
    this.counts[bucketOf(x)]!++
  }

  get count(): number {
    return this.n
  }

  /** Adds another sketch's counts into this one. */
  merge(other: LogHistogram): void {
    for (let i = 0; i < BUCKETS; i++) this.counts[i]! += other.counts[i]!
    this.zeros += other.zeros
    this.n += other.n
  }

  /**
   * The q-quantile by nearest rank: the value at rank ceil(q·n) of the values added (1-based,
   * ascending; the smallest for q = 0), within a relative error of RELATIVE_ERROR; null when empty.
   */
  quantile(q: number): number | null {
    if (this.n === 0) return null
    const rank = nearestRank(q, this.n)
    if (rank < this.zeros) return 0
    let seen = this.zeros
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!
      if (seen > rank) return bucketValue(i)
    }
    return bucketValue(BUCKETS - 1)
  }

  /** Bytes this sketch holds in its buckets. */
  static readonly BYTES = BUCKETS * Uint32Array.BYTES_PER_ELEMENT
}

/** The 0-based index of the q-quantile by nearest rank among n sorted values. */
export function nearestRank(q: number, n: number): number {
  return Math.max(0, Math.ceil(Math.max(0, Math.min(1, q)) * n) - 1)
}

function bucketOf(x: number): number {
  const i = Math.ceil(Math.log(x) / LN_GAMMA)
  return Math.max(MIN_INDEX, Math.min(MAX_INDEX, i)) - MIN_INDEX
}

function bucketValue(bucket: number): number {
  return (2 * GAMMA ** (bucket + MIN_INDEX)) / (GAMMA + 1)
}
