// Whether one commit interval's throughput is higher than another's, judged by intervals: the claim
// holds or fails only when the two medians' intervals do not overlap; otherwise the difference is
// inside the machine's spread and the claim is "not distinguishable on this machine" (neither).

import { intervalsOverlap, type MedianInterval, medianInterval } from '../../../lib/statistics.ts'

/**
 * The confidence asked of each median's interval. With five runs an order-statistic interval at 95%
 * does not exist (it needs six); at 90% it is the runs' range, whose coverage is 93.75%.
 */
export const THROUGHPUT_CONFIDENCE = 0.9

export type ThroughputVerdict =
  | { decided: true; holds: boolean; low: MedianInterval; high: MedianInterval }
  | { decided: false; why: string; low: MedianInterval; high: MedianInterval }

/**
 * The median's interval at THROUGHPUT_CONFIDENCE, or with fewer runs than that needs (three on
 * Kafka), their range, whose coverage is 1 − 2·0.5ⁿ (75% for three): a weaker statement, said so.
 */
function intervalOf(runs: readonly number[]): MedianInterval {
  const i = medianInterval(runs, THROUGHPUT_CONFIDENCE)
  if (i.low !== null || runs.length === 0) return i
  return { ...i, low: Math.min(...runs), high: Math.max(...runs), coverage: 1 - 2 * 0.5 ** runs.length }
}

const span = (i: MedianInterval) =>
  i.low === null || i.high === null ? `median ${Math.round(i.median)}` : `${Math.round(i.low)}–${Math.round(i.high)}`

/** Is the throughput measured at the higher interval (`atHigh` runs) above the lower's (`atLow` runs)? */
export function higherThroughput(
  atLow: readonly number[],
  atHigh: readonly number[],
  names: { low: string; high: string },
): ThroughputVerdict {
  const low = intervalOf(atLow)
  const high = intervalOf(atHigh)
  const overlap = intervalsOverlap(low, high)
  if (overlap === false) return { decided: true, holds: high.median > low.median, low, high }
  const coverage = low.coverage ?? high.coverage
  const why =
    overlap === null
      ? `too few runs for an interval (${low.n} and ${high.n})`
      : `their ${coverage === null ? '' : `${(coverage * 100).toFixed(2).replace(/\.?0+$/, '')}% `}intervals ` +
        `overlap (${names.low}: ${span(low)}, ${names.high}: ${span(high)} records/s)`
  return { decided: false, why: `not distinguishable on this machine: ${why}`, low, high }
}
