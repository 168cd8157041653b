// How bench:kafka measures one run, whichever engine runs it: the committed input offsets of its
// consumer group sampled every 50 ms, the window from the first sample at or past 10% of the
// records (the group settled: every partition owned, no start-up rebalance inside it) to the first
// at or past 90%. A run that does not catch up within the bound fails with the reason; it is never
// recorded as a throughput of 0. The CPU time of the engine's processes and of the local broker is
// read at both ends of the window too: CPU per record, the work each record cost whatever the load.

import { loadavg } from 'node:os'
import type { ProcessingGuarantee } from '../lib/streams-config.ts'

export const SAMPLE_MS = 50
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** What the window reads of a running engine. */
export interface Progress {
  /** The group's committed input offsets, summed over the partitions. */
  committedTotal(): number
  /** All the input committed. */
  caughtUp(): boolean
  /** Every input partition owned by a running member: no rebalance ahead. */
  groupSettled(): boolean
  /** Why the engine can make no more progress (its process exited, say); null while it can. */
  failure(): string | null
  /** CPU seconds the engine's own processes have used so far (bench/process-cpu.ts); null: unknown. */
  engineCpuSeconds(): number | null
  /** CPU seconds the broker has used so far, when it runs on this machine; null: unknown. */
  brokerCpuSeconds(): number | null
}

/** CPU per record over the window: microseconds of CPU time per record committed in it. */
export interface CpuPerRecord {
  engine: number | null
  broker: number | null
}

export interface Window {
  throughputPerSec: number
  windowMs: number
  cpuPerRecordUs: CpuPerRecord
}

interface Mark {
  at: number
  committed: number
  engineCpu: number | null
  brokerCpu: number | null
}

const perRecordUs = (from: number | null, to: number | null, records: number): number | null =>
  from === null || to === null || records <= 0 ? null : Number((((to - from) * 1e6) / records).toFixed(2))

/** Samples the progress until caught up; throws with the reason when the run cannot be measured. */
export async function measureWindow(
  name: string,
  records: number,
  progress: Progress,
  boundMs: number,
): Promise<Window> {
  const mark = (committed: number): Mark => ({
    at: performance.now(),
    committed,
    engineCpu: progress.engineCpuSeconds(),
    brokerCpu: progress.brokerCpuSeconds(),
  })
  let m10: Mark | null = null
  let m90: Mark | null = null
  const deadline = Date.now() + boundMs
  while (!progress.caughtUp()) {
    const failure = progress.failure()
    if (failure !== null) throw new Error(`${name}: ${failure} (committed ${progress.committedTotal()} of ${records})`)
    if (Date.now() > deadline)
      throw new Error(
        `${name}: not caught up after ${Math.round(boundMs / 1000)} s (committed ${progress.committedTotal()} ` +
          `of ${records})`,
      )
    const c = progress.committedTotal()
    if (m10 === null && c >= records * 0.1 && progress.groupSettled()) m10 = mark(c)
    if (m10 !== null && m90 === null && c >= records * 0.9) m90 = mark(c)
    await sleep(SAMPLE_MS)
  }
  if (m10 === null)
    throw new Error(
      `${name}: the group settled only after 90% of the input was committed: no window to measure (use more --records)`,
    )
  m90 ??= mark(progress.committedTotal())
  const windowMs = m90.at - m10.at
  if (windowMs <= 0) throw new Error(`${name}: the window from 10% to 90% was empty (use more --records)`)
  const committed = m90.committed - m10.committed
  return {
    throughputPerSec: Math.round((committed / windowMs) * 1000),
    windowMs: Math.round(windowMs),
    cpuPerRecordUs: {
      engine: perRecordUs(m10.engineCpu, m90.engineCpu, committed),
      broker: perRecordUs(m10.brokerCpu, m90.brokerCpu, committed),
    },
  }
}

/** What one measured run leaves, success or not. */
export interface RunResult extends Window {
  /**
   * Transactions the engine ended (0 under at_least_once; null: not reported);
   * the notes say how each engine counts them.
   */
  transactions: number | null
  /** What the validator found in the run's topics afterwards. */
  validated: Validated
}

export interface Validated {
  inputRecords: number
  outputRecords: number
  lost: number | null
  duplicates: number | null
  stateMismatches: number | null
}

type Report = Validated & { changelogTopic: string; stateMismatchesBy: { changelog: number | null } }

/** The validator's figures of a run; throws when the run broke its guarantee or left its changelog unchecked. */
export function checkedRun(name: string, guarantee: ProcessingGuarantee, report: Report): Validated {
  const violation = guaranteeViolation(guarantee, report)
  if (violation !== null) throw new Error(`${name}: ${violation}`)
  if (report.stateMismatchesBy.changelog === null)
    throw new Error(`${name}: no changelog topic ${report.changelogTopic} to check`)
  const { inputRecords, outputRecords, lost, duplicates, stateMismatches } = report
  return { inputRecords, outputRecords, lost, duplicates, stateMismatches }
}

export interface RunRecord {
  outcome: RunResult | { failure: string }
  /** os.loadavg() (1, 5 and 15 minutes) just before the run starts and just after it ends. */
  loadBefore: number[]
  loadAfter: number[]
}

const load = () => loadavg().map((l) => Number(l.toFixed(2)))

/** Runs one measurement; an error becomes the run's failure, with its reason. */
export async function recorded(run: () => Promise<RunResult>): Promise<RunRecord> {
  const loadBefore = load()
  try {
    const outcome = await run()
    return { outcome, loadBefore, loadAfter: load() }
  } catch (e) {
    return { outcome: { failure: e instanceof Error ? e.message : String(e) }, loadBefore, loadAfter: load() }
  }
}

/** The guarantee checks both engines pass through the same validator. */
function guaranteeViolation(
  guarantee: ProcessingGuarantee,
  report: { lost: number | null; duplicates: number | null; stateMismatches: number | null },
): string | null {
  const bad =
    report.lost !== 0 || (guarantee !== 'at_least_once' && (report.duplicates !== 0 || report.stateMismatches !== 0))
  return bad
    ? `the run violated its guarantee: lost ${report.lost}, duplicates ${report.duplicates}, state mismatches ` +
        `${report.stateMismatches}`
    : null
}
