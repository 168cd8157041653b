// From experiment cells to chart rows: pure, so the page's charts are tested without a browser.
// One row per commit.interval.ms; each guarantee contributes `${g}` (median), `${g}_band` ([min, max])
// and so on; an overlaid earlier run contributes the same keys with the `cmp_` prefix.

import type { CellResult, Phase, Stat } from '../../lib/experiment-protocol.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'

export const GUARANTEE_COLORS: Record<ProcessingGuarantee, string> = {
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

export const PHASE_LABELS: Record<Phase, string> = { detection: 'detection', rebalance: 'rebalance', fence: 'fence / abort', restore: 'restore', catchUp: 'catch-up' }

export type Row = { x: number } & Record<string, number | [number, number] | null>

export const COMPARE_PREFIX = 'cmp_'

export function guaranteesOf(cells: readonly CellResult[]): ProcessingGuarantee[] {
  const order: ProcessingGuarantee[] = ['at_least_once', 'exactly_once', 'exactly_once_v2']
  const present = new Set(cells.map((c) => c.guarantee))
  return order.filter((g) => present.has(g))
}

export function intervalsOf(...runs: (readonly CellResult[] | null | undefined)[]): number[] {
  const s = new Set<number>()
  for (const cells of runs) for (const c of cells ?? []) s.add(c.commitIntervalMs)
  return [...s].sort((a, b) => a - b)
}

const band = (s: Stat): [number, number] | null => (s.min === null || s.max === null ? null : [s.min, s.max])

/** Rows over commit.interval.ms of one figure (median and min–max band) per guarantee, for the current run and an overlay. */
export function statRows(current: readonly CellResult[], overlay: readonly CellResult[] | null, pick: (c: CellResult) => Stat): Row[] {
  return intervalsOf(current, overlay).map((x) => {
    const row: Row = { x }
    const add = (cells: readonly CellResult[], prefix: string) => {
      for (const c of cells) {
        if (c.commitIntervalMs !== x) continue
        const s = pick(c)
        row[`${prefix}${c.guarantee}`] = s.median
        row[`${prefix}${c.guarantee}_band`] = band(s)
      }
    }
    add(current, '')
    if (overlay) add(overlay, COMPARE_PREFIX)
    return row
  })
}

/** Latency rows: `${g}_p50` and `${g}_p99` medians. */
export function latencyRows(current: readonly CellResult[], overlay: readonly CellResult[] | null): Row[] {
  return intervalsOf(current, overlay).map((x) => {
    const row: Row = { x }
    const add = (cells: readonly CellResult[], prefix: string) => {
      for (const c of cells) {
        if (c.commitIntervalMs !== x) continue
        row[`${prefix}${c.guarantee}_p50`] = c.latencyP50Ms.median
        row[`${prefix}${c.guarantee}_p99`] = c.latencyP99Ms.median
      }
    }
    add(current, '')
    if (overlay) add(overlay, COMPARE_PREFIX)
    return row
  })
}

/** Recovery rows for one guarantee's stacked bars: one row per interval, the phases' medians. */
export function recoveryRows(cells: readonly CellResult[], guarantee: ProcessingGuarantee): ({ label: string; x: number } & Record<Phase, number | null>)[] {
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

/** The trade-off: one point per interval, recovery time (x) against processed throughput (y). */
export function tradeOffPoints(cells: readonly CellResult[], guarantee: ProcessingGuarantee): { recoveryMs: number; throughput: number; interval: number; label: string }[] {
  return cells
    .filter((c) => c.guarantee === guarantee && c.recoveryMs.median !== null && c.throughputPerSec.median !== null)
    .sort((a, b) => a.commitIntervalMs - b.commitIntervalMs)
    .map((c) => ({ recoveryMs: c.recoveryMs.median!, throughput: c.throughputPerSec.median!, interval: c.commitIntervalMs, label: `${c.commitIntervalMs} ms` }))
}
