// Memory growth after the first five minutes, robust to the garbage collector's sawtooth: the
// median resident memory of the last five minutes against the median of minutes 5 to 10. The
// samples also say where the memory is: JS heap (used, reserved), external and array buffers; the
// rest of RSS is code, stacks and the C heap.

export interface MemorySample {
  atS: number
  rssMB: number
  heapUsedMB: number
  /** The JS heap V8 has reserved (used or not). */
  heapTotalMB?: number
  /** Memory of C++ objects bound to JS objects, array buffers included (process.memoryUsage().external). */
  externalMB?: number
  /** Memory of ArrayBuffers and Buffers: arena chunks, past frames, zlib output. */
  arrayBuffersMB?: number
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

type Part = 'rssMB' | 'heapUsedMB' | 'heapTotalMB' | 'externalMB' | 'arrayBuffersMB'
const PARTS: readonly Part[] = ['rssMB', 'heapUsedMB', 'heapTotalMB', 'externalMB', 'arrayBuffersMB']

/** The median of each part of memory over a window's samples (a part no sample has: null). */
const medians = (window: readonly MemorySample[]) =>
  Object.fromEntries(
    PARTS.map((p) => [p, median(window.flatMap((x) => (x[p] === undefined ? [] : [x[p]!])))]),
  ) as Record<Part, number | null>

export function memoryGrowth(samples: readonly MemorySample[]) {
  const firstWindow = samples.filter((x) => x.atS >= 300 && x.atS < 600)
  const end = samples.at(-1)?.atS ?? 0
  const lastWindow = samples.filter((x) => x.atS > end - 300 && x.atS >= 600)
  const a = median(firstWindow.map((x) => x.rssMB))
  const b = median(lastWindow.map((x) => x.rssMB))
  const after5 = samples.filter((x) => x.atS >= 300).map((x) => x.rssMB)
  return {
    definition:
      'growth = median RSS over the last 5 minutes / median RSS over minutes 5-10, minus 1 (samples every 30 s)',
    rssMedianFirstWindowMB: a,
    rssMedianLastWindowMB: b,
    rssPeakAfter5MinMB: after5.length ? Math.max(...after5) : null,
    growthAfter5Min: a !== null && b !== null ? Math.round(((b - a) / a) * 1000) / 1000 : null,
    /** Where the memory is, median of each window: RSS, JS heap used and reserved, external, array buffers. */
    firstWindowMB: medians(firstWindow),
    lastWindowMB: medians(lastWindow),
    samples,
  }
}
