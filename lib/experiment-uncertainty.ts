// What a sweep's 95% intervals allow one to say: whether a cell is precise (its watched figures'
// intervals within ±10% of their medians), and which pairs of points cannot be ordered because
// their intervals overlap. Shared by the CLI (its warnings, on stderr and in --json) and the page
// (its noise warning and reading guide). Pure.

import { PRECISION_FIGURES, PRECISION_TOLERANCE, type CellResult, type Stat } from './experiment-protocol.ts'
import type { ProcessingGuarantee } from './streams-config.ts'
import { intervalsOverlap, preciseEnough, type MedianInterval } from './statistics.ts'

/**
 * A figure's median with its 95% interval, or null where the interval is unknown (too few runs, or an older record).
 */
export interface Interval {
  median: number
  low: number
  high: number
  n: number
}

export function intervalOf(s: Stat): Interval | null {
  if (s.median === null || s.low === undefined || s.high === undefined || s.low === null || s.high === null) return null
  return { median: s.median, low: s.low, high: s.high, n: s.n }
}

const asMedianInterval = (s: Stat): MedianInterval => ({
  median: s.median ?? 0,
  low: s.low ?? null,
  high: s.high ?? null,
  coverage: null,
  n: s.n,
})

/** Whether every watched figure's interval lies within ±tolerance of its median. */
export function cellPrecise(c: CellResult, tolerance = PRECISION_TOLERANCE): boolean {
  return PRECISION_FIGURES.every((f) => c[f].median !== null && preciseEnough(asMedianInterval(c[f]), tolerance))
}

/** Whether two figures' intervals overlap; null when either interval is unknown. */
export function overlap(a: Stat, b: Stat): boolean | null {
  if (a.median === null || b.median === null) return null
  return intervalsOverlap(asMedianInterval(a), asMedianInterval(b))
}

export type WarnedFigure = 'throughputPerSec' | 'recoveryMs'

export const FIGURE_WORDS: Record<WarnedFigure, { name: string; unit: string }> = {
  throughputPerSec: { name: 'throughput', unit: ' records/s' },
  recoveryMs: { name: 'recovery time', unit: ' ms' },
}

export interface CellRef {
  guarantee: ProcessingGuarantee
  commitIntervalMs: number
}

/** Two points whose order is not known: their 95% intervals overlap. */
export interface NoiseWarning {
  figure: WarnedFigure
  a: CellRef
  b: CellRef
  text: string
}

/** Three significant digits, no exponent. */
export function sig3(v: number): string {
  if (v === 0 || !Number.isFinite(v)) return String(v)
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(v))))
  return Number(v.toFixed(Math.min(digits, 6))).toLocaleString('en-US', { maximumFractionDigits: 6 })
}

const where = (c: CellRef) => `${c.guarantee} at ${c.commitIntervalMs} ms`
const span = (s: Stat, unit: string) => `${sig3(s.low!)}–${sig3(s.high!)}${unit}`

/** The pairs a reader compares: neighbouring intervals of one guarantee, and the guarantees at one interval. */
function comparedPairs(cells: readonly CellResult[]): [CellResult, CellResult][] {
  const pairs: [CellResult, CellResult][] = []
  const byInterval = (x: CellResult, y: CellResult) => x.commitIntervalMs - y.commitIntervalMs
  const guarantees = [...new Set(cells.map((c) => c.guarantee))]
  for (const g of guarantees) {
    const line = cells.filter((c) => c.guarantee === g).sort(byInterval)
    for (let i = 1; i < line.length; i++) pairs.push([line[i - 1]!, line[i]!])
  }
  const intervals = [...new Set(cells.map((c) => c.commitIntervalMs))].sort((x, y) => x - y)
  for (const ms of intervals) {
    const at = cells.filter((c) => c.commitIntervalMs === ms)
    for (let i = 0; i < at.length; i++) for (let j = i + 1; j < at.length; j++) pairs.push([at[i]!, at[j]!])
  }
  return pairs
}

/** Every compared pair of points whose intervals overlap, for throughput and recovery time. */
export function noiseWarnings(cells: readonly CellResult[]): NoiseWarning[] {
  const out: NoiseWarning[] = []
  for (const figure of ['throughputPerSec', 'recoveryMs'] as const) {
    const words = FIGURE_WORDS[figure]
    for (const [a, b] of comparedPairs(cells)) {
      if (overlap(a[figure], b[figure]) !== true) continue
      const ref = (c: CellResult): CellRef => ({ guarantee: c.guarantee, commitIntervalMs: c.commitIntervalMs })
      out.push({
        figure,
        a: ref(a),
        b: ref(b),
        text:
          `${words.name}: ${where(a)} (${span(a[figure], words.unit)}) and ` +
          `${where(b)} (${span(b[figure], words.unit)}): ` +
          `the 95% intervals overlap, so which is higher is not known`,
      })
    }
  }
  return out
}

/** Cells without an interval (fewer than 6 runs, or an older record): nothing can be said of their order. */
export function cellsWithoutInterval(cells: readonly CellResult[]): CellResult[] {
  return cells.filter((c) => intervalOf(c.throughputPerSec) === null || intervalOf(c.recoveryMs) === null)
}
