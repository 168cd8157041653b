// Stored experiments with known figures, for the reading guide's tests and the page's browser test:
// six runs per cell (the fewest with a 95% interval), each cell's runs spread evenly around its centre.

import {
  cellOf,
  type CellResult,
  type ExperimentRecord,
  type RepetitionResult,
  type SweepSettings,
} from '../../../lib/experiment-protocol.ts'
import type { ProcessingGuarantee } from '../../../lib/streams-config.ts'

export const FIXTURE_SETTINGS: SweepSettings = {
  workers: 3,
  partitions: 6,
  keys: 10_000,
  latencyModel: 'default',
  steadyRatePerSec: 5_000,
  warmupMs: 300,
  minWindowMs: 1_000,
  windowCommits: 2,
  backlogRecords: 20_000,
  sessionTimeoutMs: 1_000,
  maxPollRecords: 1_000,
  recoveryTimeoutMs: 30_000,
  visibilityPollMs: 5,
}

/** A cell's centres; `spread`: each run is within ±spread (a fraction) of them. */
export interface CellSpec {
  guarantee: ProcessingGuarantee
  ms: number
  throughput: number
  recovery: number
  spread: number
  runs?: number
}

const OFFSETS = [-1, -0.6, -0.2, 0.2, 0.6, 1]

function run(c: CellSpec, i: number): RepetitionResult {
  const k = 1 + c.spread * OFFSETS[i % OFFSETS.length]!
  const recovery = Math.round(c.recovery * k)
  const dup = c.guarantee === 'at_least_once' ? Math.round((5_000 / 3) * (c.ms / 2000) * k) : 0
  return {
    repetition: i + 1,
    seed: i + 1,
    throughputPerSec: Math.round(c.throughput * k),
    throughputWindowMs: 1_000,
    saturated: true,
    latencyP50Ms: Math.round((c.guarantee === 'at_least_once' ? 4 : c.ms / 2 + 8) * k),
    latencyP99Ms: Math.round((c.guarantee === 'at_least_once' ? 20 : c.ms + 20) * k),
    latencyMaxMs: null,
    latencyRecords: 1_000,
    latencyWindowMs: 1_000,
    killedWorker: 'worker-1',
    killDelayMs: c.ms / 2,
    recoveryMs: recovery,
    phases: {
      detection: 950,
      rebalance: 20,
      fence: c.guarantee === 'at_least_once' ? 0 : 5,
      restore: 10,
      catchUp: recovery - 980 - (c.guarantee === 'at_least_once' ? 0 : 5),
    },
    redone: dup,
    duplicates: dup,
    lost: 0,
    load: { before: 1.5, after: 1.7, cpus: 2 },
  }
}

export function fixtureCells(specs: readonly CellSpec[]): CellResult[] {
  return specs.map((c) =>
    cellOf(
      c.guarantee,
      c.ms,
      Array.from({ length: c.runs ?? 6 }, (_, i) => run(c, i)),
    ),
  )
}

export function fixtureRecord(
  id: string,
  label: string,
  startedAt: string,
  specs: readonly CellSpec[],
): ExperimentRecord {
  const cells = fixtureCells(specs)
  const intervals = [...new Set(specs.map((c) => c.ms))].sort((a, b) => a - b)
  const guarantees = [...new Set(specs.map((c) => c.guarantee))]
  return {
    id,
    label,
    status: 'done',
    error: null,
    startedAt,
    finishedAt: startedAt,
    request: { intervals, guarantees, repeat: 6, maxRuns: 9, backend: 'embedded', label },
    settings: FIXTURE_SETTINGS,
    machine: { cpus: 2, node: 'v24', clock: 'system' },
    progress: { done: cells.length * 6, total: cells.length * 6, current: null },
    cells,
  }
}

/** at_least_once clearly faster than exactly_once at every interval; recovery grows with the interval. */
export const ORDERED: CellSpec[] = [
  { guarantee: 'at_least_once', ms: 10, throughput: 100_000, recovery: 1_000, spread: 0.05 },
  { guarantee: 'exactly_once', ms: 10, throughput: 40_000, recovery: 1_050, spread: 0.05 },
  { guarantee: 'at_least_once', ms: 1000, throughput: 110_000, recovery: 1_600, spread: 0.05 },
  { guarantee: 'exactly_once', ms: 1000, throughput: 80_000, recovery: 1_650, spread: 0.05 },
]

/** The same with the guarantees' throughputs swapped: exactly_once clearly faster. */
export const FLIPPED: CellSpec[] = ORDERED.map((c) => {
  const other = ORDERED.find((o) => o.ms === c.ms && o.guarantee !== c.guarantee)!
  return { ...c, throughput: other.throughput }
})

/** Wide runs: the guarantees' throughput intervals overlap at 10 ms. */
export const NOISY: CellSpec[] = [
  { guarantee: 'at_least_once', ms: 10, throughput: 60_000, recovery: 1_000, spread: 0.3 },
  { guarantee: 'exactly_once', ms: 10, throughput: 50_000, recovery: 1_050, spread: 0.3 },
  { guarantee: 'at_least_once', ms: 1000, throughput: 62_000, recovery: 1_600, spread: 0.3 },
  { guarantee: 'exactly_once', ms: 1000, throughput: 70_000, recovery: 1_650, spread: 0.3 },
]
