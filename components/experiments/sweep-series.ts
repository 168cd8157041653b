// From experiment cells to chart rows: pure, so the page's charts are tested without a browser.
// One row per commit.interval.ms; each guarantee contributes `${g}` (median), `${g}_band` (the 95%
// interval of the median, [low, high]), `${g}_err` (the same as an error bar: [median − low, high −
// median]) and so on; an overlaid earlier run contributes the same keys with the `cmp_` prefix. A
// figure without an interval (fewer than 6 runs) has null band and error bar: nothing is drawn.

import type { CellResult, Phase, Stat } from '../../lib/experiment-protocol.ts'
import { PROCESSING_GUARANTEES, type ProcessingGuarantee } from '../../lib/streams-config.ts'

export const GUARANTEE_COLORS: Record<ProcessingGuarantee, string> = {
  at_most_once: 'var(--chart-4)',
  at_least_once: 'var(--chart-3)',
  exactly_once: 'var(--chart-1)',
  exactly_once_v2: 'var(--chart-2)',
}

export const PHASE_COLORS: Record<Phase, string> = {
  detection: 'var(--phase-detection)',
  rebalance: 'var(--phase-rebalance)',
  fence: 'var(--phase-fence)',
  restore: 'var(--phase-restore)',
  catchUp: 'var(--phase-catchUp)',
}

export const PHASE_LABELS: Record<Phase, string> = {
  detection: 'detection',
  rebalance: 'rebalance',
  fence: 'fence / abort',
  restore: 'restore',
  catchUp: 'catch-up',
}

export type Row = { x: number } & Record<string, number | [number, number] | null>

export const COMPARE_PREFIX = 'cmp_'

/** The keys of the i-th overlaid experiment: cmp_ for the first, cmp2_, cmp3_… after it. */
export const overlayPrefix = (i: number) => (i === 0 ? COMPARE_PREFIX : `cmp${i + 1}_`)

/** Dash patterns of the overlaid experiments, in turn. */
export const OVERLAY_DASHES = ['5 3', '2 2', '8 3 2 3', '1 3']
export const overlayDash = (i: number) => OVERLAY_DASHES[i % OVERLAY_DASHES.length]!

/** Experiments drawn over the shown one, each its cells. */
export type Overlays = readonly (readonly CellResult[])[]

export function guaranteesOf(cells: readonly CellResult[]): ProcessingGuarantee[] {
  const order: readonly ProcessingGuarantee[] = PROCESSING_GUARANTEES
  const present = new Set(cells.map((c) => c.guarantee))
  return order.filter((g) => present.has(g))
}

export function intervalsOf(...runs: (readonly CellResult[] | null | undefined)[]): number[] {
  return intervalsAcross(runs)
}

/** Every interval of any of the runs, ascending. */
export function intervalsAcross(runs: readonly (readonly CellResult[] | null | undefined)[]): number[] {
  const s = new Set<number>()
  for (const cells of runs) for (const c of cells ?? []) s.add(c.commitIntervalMs)
  return [...s].sort((a, b) => a - b)
}

/** The 95% interval of the median, or null where it is unknown. */
export const band = (s: Stat): [number, number] | null =>
  s.median === null || s.low == null || s.high == null ? null : [s.low, s.high]

/** The interval as an error bar around the median: [below, above]. */
export const errorBar = (s: Stat): [number, number] | null => {
  const b = band(s)
  return b === null ? null : [s.median! - b[0], b[1] - s.median!]
}

/**
 * Rows over commit.interval.ms of one figure (median and its 95% interval) per guarantee, for the current run and
 * the overlays.
 */
export function statRows(current: readonly CellResult[], overlays: Overlays, pick: (c: CellResult) => Stat): Row[] {
  return intervalsAcross([current, ...overlays]).map((x) => {
    const row: Row = { x }
    const add = (cells: readonly CellResult[], prefix: string) => {
      for (const c of cells) {
        if (c.commitIntervalMs !== x) continue
        const s = pick(c)
        row[`${prefix}${c.guarantee}`] = s.median
        row[`${prefix}${c.guarantee}_band`] = band(s)
        row[`${prefix}${c.guarantee}_err`] = errorBar(s)
      }
    }
    add(current, '')
    for (const [i, o] of overlays.entries()) add(o, overlayPrefix(i))
    return row
  })
}

/** Latency rows: `${g}_p50` and `${g}_p99` medians. */
export function latencyRows(current: readonly CellResult[], overlays: Overlays): Row[] {
  return intervalsAcross([current, ...overlays]).map((x) => {
    const row: Row = { x }
    const add = (cells: readonly CellResult[], prefix: string) => {
      for (const c of cells) {
        if (c.commitIntervalMs !== x) continue
        row[`${prefix}${c.guarantee}_p50`] = c.latencyP50Ms.median
        row[`${prefix}${c.guarantee}_p50_err`] = errorBar(c.latencyP50Ms)
        row[`${prefix}${c.guarantee}_p99`] = c.latencyP99Ms.median
      }
    }
    add(current, '')
    for (const [i, o] of overlays.entries()) add(o, overlayPrefix(i))
    return row
  })
}

/** Recovery rows for one guarantee's stacked bars: one row per interval, the phases' medians. */
export function recoveryRows(
  cells: readonly CellResult[],
  guarantee: ProcessingGuarantee,
): ({ label: string; x: number } & Record<Phase, number | null>)[] {
  return cells
    .filter((c) => c.guarantee === guarantee)
    .sort((a, b) => a.commitIntervalMs - b.commitIntervalMs)
    .map((c) => ({
      x: c.commitIntervalMs,
      label: `${c.commitIntervalMs}`,
      detection: c.phases.detection.median,
      rebalance: c.phases.rebalance.median,
      fence: c.phases.fence.median,
      restore: c.phases.restore.median,
      catchUp: c.phases.catchUp.median,
    }))
}

export interface TradeOffPoint {
  recoveryMs: number
  throughput: number
  interval: number
  label: string
  /** The 95% intervals as error bars: recovery time (x) and throughput (y); null where unknown. */
  recoveryErr: [number, number] | null
  throughputErr: [number, number] | null
}

/**
 * The trade-off: one point per interval, recovery time (x) against processed throughput (y), each with its
 * intervals.
 */
export function tradeOffPoints(cells: readonly CellResult[], guarantee: ProcessingGuarantee): TradeOffPoint[] {
  return cells
    .filter((c) => c.guarantee === guarantee && c.recoveryMs.median !== null && c.throughputPerSec.median !== null)
    .sort((a, b) => a.commitIntervalMs - b.commitIntervalMs)
    .map((c) => ({
      recoveryMs: c.recoveryMs.median!,
      throughput: c.throughputPerSec.median!,
      interval: c.commitIntervalMs,
      label: `${c.commitIntervalMs} ms`,
      recoveryErr: errorBar(c.recoveryMs),
      throughputErr: errorBar(c.throughputPerSec),
    }))
}

/** "6 runs per cell", "6–9 runs per cell": the runs the cells actually had. */
export function runsLabel(cells: readonly CellResult[]): string {
  const counts = cells.map((c) => c.repetitions.length)
  if (counts.length === 0) return 'no runs yet'
  const lo = Math.min(...counts)
  const hi = Math.max(...counts)
  const n = lo === hi ? `${lo}` : `${lo}–${hi}`
  return `${n} run${hi === 1 ? '' : 's'} per cell`
}
