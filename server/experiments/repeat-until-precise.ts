// Which run comes next in a sweep: the cells are run in turn (round-robin: one run of every cell
// that still needs one, then the next round), so that a drift of the machine's speed or load over
// the sweep hits every cell alike instead of the cells run last. A cell needs another run while it
// has fewer than `minRuns`, or while its watched figures' 95% intervals are wider than ±tolerance
// of their medians and it has fewer than `maxRuns` (the cap). With minRuns = maxRuns every cell
// runs exactly that often (a fixed number of repetitions).

import { cellOf, type CellResult, type RepetitionResult } from '../../lib/experiment-protocol.ts'
import { cellPrecise } from '../../lib/experiment-uncertainty.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'

export interface CellKey {
  guarantee: ProcessingGuarantee
  commitIntervalMs: number
}

export interface RepeatPlan {
  minRuns: number
  maxRuns: number
  tolerance: number
}

/** One run to make: the cell and its run number (1-based, within the cell). */
export interface RunOrder extends CellKey {
  run: number
}

export interface RepeatOptions extends RepeatPlan {
  /** The cells, in the order each round visits them. */
  cells: readonly CellKey[]
  run: (order: RunOrder) => Promise<RepetitionResult>
  /**
   * After every run: the cells so far (in the order of `cells`, those with a run)
   * and how many runs are planned at most now.
   */
  onResult?: (cells: CellResult[], plannedRuns: number) => void
}

/** The plan of a request: `repeat` runs exactly, or from `repeat` up to `maxRuns` until precise. */
export function repeatPlan(repeat: number, maxRuns: number | undefined, tolerance: number): RepeatPlan {
  return { minRuns: repeat, maxRuns: Math.max(repeat, maxRuns ?? repeat), tolerance }
}

/** Whether a cell with these runs needs another one under the plan. */
export function needsAnotherRun(cell: CellResult | undefined, plan: RepeatPlan): boolean {
  const runs = cell?.repetitions.length ?? 0
  if (runs < plan.minRuns) return true
  if (runs >= plan.maxRuns) return false
  return !cellPrecise(cell!, plan.tolerance)
}

/** Runs the cells in turn until none needs another run; resolves with every cell, in the order of `cells`. */
export async function repeatUntilPrecise(o: RepeatOptions): Promise<CellResult[]> {
  const results = new Map<string, CellResult>()
  const keyOf = (c: CellKey) => `${c.guarantee}@${c.commitIntervalMs}`
  const ordered = () => o.cells.map((c) => results.get(keyOf(c))).filter((c): c is CellResult => c !== undefined)
  // A cell still running may take up to the cap; a finished one took what it took.
  const planned = () =>
    o.cells.reduce((sum, c) => {
      const cell = results.get(keyOf(c))
      return sum + (needsAnotherRun(cell, o) ? o.maxRuns : cell!.repetitions.length)
    }, 0)
  for (let round = 1; round <= o.maxRuns; round++) {
    const due = o.cells.filter((c) => needsAnotherRun(results.get(keyOf(c)), o))
    if (due.length === 0) break
    for (const c of due) {
      const before = results.get(keyOf(c))?.repetitions ?? []
      const rep = await o.run({ ...c, run: before.length + 1 })
      results.set(keyOf(c), cellOf(c.guarantee, c.commitIntervalMs, [...before, rep]))
      o.onResult?.(ordered(), planned())
    }
  }
  return ordered()
}
