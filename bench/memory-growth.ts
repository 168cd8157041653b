// Memory growth after the first five minutes, robust to the garbage collector's sawtooth: the
// median resident memory of the last five minutes against the median of minutes 5 to 10.

export interface MemorySample {
  atS: number
  rssMB: number
  heapUsedMB: number
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

export function memoryGrowth(samples: readonly MemorySample[]) {
  const first = samples.filter((x) => x.atS >= 300 && x.atS < 600).map((x) => x.rssMB)
  const end = samples.at(-1)?.atS ?? 0
  const last = samples.filter((x) => x.atS > end - 300 && x.atS >= 600).map((x) => x.rssMB)
  const a = median(first)
  const b = median(last)
  const after5 = samples.filter((x) => x.atS >= 300).map((x) => x.rssMB)
  return {
    definition: 'growth = median RSS over the last 5 minutes / median RSS over minutes 5-10, minus 1 (samples every 30 s)',
    rssMedianFirstWindowMB: a,
    rssMedianLastWindowMB: b,
    rssPeakAfter5MinMB: after5.length ? Math.max(...after5) : null,
    growthAfter5Min: a !== null && b !== null ? Math.round(((b - a) / a) * 1000) / 1000 : null,
    samples,
  }
}
