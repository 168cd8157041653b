// What each sweep chart shows (its definition), and what the shown experiment's figures say: every
// sentence that compares two things (which guarantee is faster, by how much, whether recovery
// grows) is generated here from the medians and their 95% intervals, and says "not
// distinguishable" when the intervals overlap. Measured figures without an interval (fewer than 6
// runs) are not compared; model figures are exact and compared by their values. Pure.

import type { CellResult, Stat, SweepSettings } from '../../lib/experiment-protocol.ts'
import { overlap } from '../../lib/experiment-uncertainty.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { fmtCompact, fmtMs } from '../format.ts'

export type GuideId = 'throughput' | 'recovery' | 'latency' | 'tradeoff' | 'duplicates'

export const CHART_DEFINITIONS: Record<GuideId, { title: string; definition: string }> = {
  throughput: {
    title: 'Processed throughput',
    definition:
      'records/s by which committed input offsets advance, saturated input; the median of the runs; bars: its 95% ' +
      'interval (measured sweeps, from 6 runs)',
  },
  recovery: {
    title: 'Recovery time by phase',
    definition:
      't1 − t0 after one kill under steady load, medians of the phases: detection, rebalance, fence/abort, restore, ' +
      'catch-up',
  },
  latency: {
    title: 'End-to-end latency',
    definition:
      'input append → output visible to a read_committed consumer, steady load; p50 solid (bars: its 95% interval, ' +
      'measured sweeps), p99 dotted',
  },
  tradeoff: {
    title: 'Trade-off',
    definition:
      'median throughput (y) against median recovery time (x), bars: their 95% intervals (measured sweeps); each ' +
      'point is one commit.interval.ms',
  },
  duplicates: {
    title: 'Duplicates per kill',
    definition:
      'at_least_once: committed output records whose input appears more than once, after one kill (validator); ' +
      'dotted: the expected redone records, input rate × interval / 2',
  },
}

/** Measured figures are compared through their intervals; model figures are exact. */
export type Figures = 'measured' | 'model'

export interface GuideSection {
  id: GuideId
  title: string
  sentences: string[]
}

type Order =
  | { kind: 'higher' | 'lower' | 'same'; ratio: number }
  | { kind: 'not distinguishable' }
  | { kind: 'unknown' }

/** How a compares with b: by their intervals (measured) or their values (model). */
export function compare(a: Stat, b: Stat, figures: Figures): Order {
  if (a.median === null || b.median === null) return { kind: 'unknown' }
  const ratio = b.median === 0 ? Number.POSITIVE_INFINITY : a.median / b.median
  if (figures === 'measured') {
    const o = overlap(a, b)
    if (o === null) return { kind: 'unknown' }
    if (o) return { kind: 'not distinguishable' }
  }
  // A model's figures are exact, but a model is not the machine: two of them within MODEL_SAME of
  // each other say nothing about which is faster.
  if (a.median === b.median || (figures === 'model' && Math.abs(ratio - 1) < MODEL_SAME)) return { kind: 'same', ratio }
  return { kind: a.median > b.median ? 'higher' : 'lower', ratio }
}

/** "287/s": one figure when both are one; "287/s and 288/s (within 2%)" when they are close, not equal. */
function sameFigures(a: Stat, b: Stat, fmt: (v: number) => string): string {
  const [x, y] = [fmt(a.median!), fmt(b.median!)]
  return x === y ? x : `${x} and ${y} (within ${MODEL_SAME * 100}%)`
}

/** Model figures closer than this (2%) read as the same. */
export const MODEL_SAME = 0.02

/** ×1.30, ×12; ×1.003 where two decimals would read ×1.00. */
const times = (r: number) =>
  Number.isFinite(r)
    ? `×${r >= 10 ? r.toFixed(0) : Math.abs(r - 1) < 0.005 ? r.toFixed(3) : r.toFixed(2)}`
    : 'from zero'
const byInterval = (a: CellResult, b: CellResult) => a.commitIntervalMs - b.commitIntervalMs
const lineOf = (cells: readonly CellResult[], g: ProcessingGuarantee) =>
  cells.filter((c) => c.guarantee === g).sort(byInterval)
const guaranteesIn = (cells: readonly CellResult[]) => [...new Set(cells.map((c) => c.guarantee))]
const intervalsIn = (cells: readonly CellResult[]) =>
  [...new Set(cells.map((c) => c.commitIntervalMs))].sort((a, b) => a - b)

function withInterval(s: Stat, fmt: (v: number) => string): string {
  const m = fmt(s.median!)
  return s.low == null || s.high == null ? m : `${m} (95%: ${fmt(s.low)}–${fmt(s.high)})`
}

const TOO_FEW = 'too few runs for a 95% interval (at least 6), so their order is not known'

/** "At 10 ms, at_least_once is higher than exactly_once: …" for each interval with two guarantees. */
function acrossGuarantees(
  cells: readonly CellResult[],
  figures: Figures,
  pick: (c: CellResult) => Stat,
  what: { noun: string; higher: string; fmt: (v: number) => string },
): string[] {
  const out: string[] = []
  const gs = guaranteesIn(cells)
  for (const ms of intervalsIn(cells)) {
    for (let i = 0; i < gs.length; i++) {
      for (let j = i + 1; j < gs.length; j++) {
        const a = cells.find((c) => c.guarantee === gs[i] && c.commitIntervalMs === ms)
        const b = cells.find((c) => c.guarantee === gs[j] && c.commitIntervalMs === ms)
        if (!a || !b) continue
        const o = compare(pick(a), pick(b), figures)
        const both = `${gs[i]} ${withInterval(pick(a), what.fmt)} and ${gs[j]} ${withInterval(pick(b), what.fmt)}`
        if (o.kind === 'unknown') out.push(`At ${ms} ms, ${what.noun}: ${both}; ${TOO_FEW}.`)
        else if (o.kind === 'not distinguishable')
          out.push(
            `At ${ms} ms, ${what.noun} of ${gs[i]} and ${gs[j]} is not distinguishable: ${both} (the 95% intervals ` +
              'overlap).',
          )
        else if (o.kind === 'same')
          out.push(
            `At ${ms} ms, ${what.noun} is the same under ${gs[i]} and ${gs[j]}: ` +
              `${sameFigures(pick(a), pick(b), what.fmt)}.`,
          )
        else {
          const [hi, lo] = o.kind === 'higher' ? [a, b] : [b, a]
          const r = o.kind === 'higher' ? o.ratio : 1 / o.ratio
          out.push(
            `At ${ms} ms, ${hi.guarantee} ${what.higher} ${lo.guarantee} (${what.noun}): ` +
              `${withInterval(pick(hi), what.fmt)} against ${withInterval(pick(lo), what.fmt)}, ${times(r)}.`,
          )
        }
      }
    }
  }
  return out
}

/**
 * "exactly_once: throughput rises from … at 10 ms to … at 1000 ms" for each guarantee, shortest against longest
 * interval.
 */
function alongInterval(
  cells: readonly CellResult[],
  figures: Figures,
  pick: (c: CellResult) => Stat,
  what: { noun: string; fmt: (v: number) => string },
): string[] {
  const out: string[] = []
  for (const g of guaranteesIn(cells)) {
    const line = lineOf(cells, g)
    if (line.length < 2) continue
    const first = line[0]!
    const last = line[line.length - 1]!
    const o = compare(pick(last), pick(first), figures)
    const from = `${withInterval(pick(first), what.fmt)} at ${first.commitIntervalMs} ms`
    const to = `${withInterval(pick(last), what.fmt)} at ${last.commitIntervalMs} ms`
    if (o.kind === 'unknown') out.push(`${g}: ${what.noun} ${from}, ${to}; ${TOO_FEW}.`)
    else if (o.kind === 'not distinguishable')
      out.push(
        `${g}: ${what.noun} at ${first.commitIntervalMs} ms and at ${last.commitIntervalMs} ms is not ` +
          `distinguishable: ${from}, ${to} (the 95% intervals overlap).`,
      )
    else if (o.kind === 'same')
      out.push(
        `${g}: ${what.noun} is the same at ${first.commitIntervalMs} ms and at ${last.commitIntervalMs} ms: ` +
          `${sameFigures(pick(first), pick(last), what.fmt)}.`,
      )
    else
      out.push(
        `${g}: ${what.noun} ${o.kind === 'higher' ? 'grows' : 'falls'} from ${from} to ${to}, ${times(o.ratio)}.`,
      )
  }
  return out
}

const rate = (v: number) => `${fmtCompact(v)}/s`

function duplicatesSentences(
  cells: readonly CellResult[],
  figures: Figures,
  s: Pick<SweepSettings, 'steadyRatePerSec' | 'workers'>,
): string[] {
  const out = alongInterval(
    cells.filter((c) => c.guarantee === 'at_least_once'),
    figures,
    (c) => c.duplicatesPerKill,
    { noun: 'duplicates per kill', fmt: fmtCompact },
  )
  for (const c of lineOf(cells, 'at_least_once')) {
    if (c.duplicatesPerKill.median === null) continue
    const expected = ((s.steadyRatePerSec / s.workers) * c.commitIntervalMs) / 2 / 1000
    out.push(
      `At ${c.commitIntervalMs} ms, at_least_once: ${fmtCompact(c.duplicatesPerKill.median)} duplicates per kill ` +
        `(median of ${c.duplicatesPerKill.n}); a kill at a uniformly random moment of the commit cycle redoes about ` +
        `${fmtCompact(expected)} on average (the killed worker's input rate × interval / 2).`,
    )
  }
  for (const g of guaranteesIn(cells).filter((x) => x !== 'at_least_once')) {
    const most = Math.max(...lineOf(cells, g).map((c) => c.duplicatesPerKill.max ?? 0))
    out.push(
      most === 0
        ? `${g}: no duplicates in any run.`
        : `${g}: up to ${fmtCompact(most)} duplicates in a run, which exactly-once must not produce.`,
    )
  }
  return out
}

const NO_GAIN: Record<Exclude<Order['kind'], 'higher'>, string> = {
  lower: 'it falls',
  same: 'it stays the same',
  'not distinguishable': 'the 95% intervals overlap',
  unknown: TOO_FEW,
}

/** What recovery time does while throughput grows. */
function recoveryWhile(kind: Order['kind']): string {
  if (kind === 'lower') return 'falls'
  if (kind === 'not distinguishable') return 'is not distinguishable'
  if (kind === 'same') return 'stays the same'
  return 'is not known'
}

/** For each guarantee, what a longer interval buys and costs, from the throughput and recovery comparisons. */
function tradeOffSentences(cells: readonly CellResult[], figures: Figures): string[] {
  const out: string[] = []
  for (const g of guaranteesIn(cells)) {
    const line = lineOf(cells, g)
    if (line.length < 2) continue
    const first = line[0]!
    const last = line[line.length - 1]!
    const thr = compare(last.throughputPerSec, first.throughputPerSec, figures)
    const rec = compare(last.recoveryMs, first.recoveryMs, figures)
    const span = `from ${first.commitIntervalMs} to ${last.commitIntervalMs} ms`
    if (thr.kind === 'higher' && rec.kind === 'higher')
      out.push(
        `${g}: ${span}, throughput ${times(thr.ratio)} for recovery time ${times(rec.ratio)}: the longer interval ` +
          'buys throughput with recovery time.',
      )
    else if (thr.kind === 'higher')
      out.push(`${g}: ${span}, throughput ${times(thr.ratio)} while recovery time ${recoveryWhile(rec.kind)}.`)
    else
      out.push(
        `${g}: ${span}, no gain in throughput is distinguishable (${NO_GAIN[thr.kind]}); nothing is bought with the ` +
          'longer interval here.',
      )
  }
  return out
}

/** The guide of one experiment: per chart, its title and the sentences its figures support. */
export function readingGuide(
  cells: readonly CellResult[],
  settings: Pick<SweepSettings, 'steadyRatePerSec' | 'workers'>,
  figures: Figures,
): GuideSection[] {
  const section = (id: GuideId, sentences: string[]): GuideSection => ({
    id,
    title: CHART_DEFINITIONS[id].title,
    sentences,
  })
  return [
    section('throughput', [
      ...acrossGuarantees(cells, figures, (c) => c.throughputPerSec, {
        noun: 'throughput',
        higher: 'is faster than',
        fmt: rate,
      }),
      ...alongInterval(cells, figures, (c) => c.throughputPerSec, { noun: 'throughput', fmt: rate }),
    ]),
    section(
      'recovery',
      alongInterval(cells, figures, (c) => c.recoveryMs, { noun: 'recovery time', fmt: fmtMs }),
    ),
    section('latency', [
      ...acrossGuarantees(cells, figures, (c) => c.latencyP50Ms, {
        noun: 'p50 latency',
        higher: 'is slower to show output than',
        fmt: fmtMs,
      }),
      ...alongInterval(cells, figures, (c) => c.latencyP50Ms, { noun: 'p50 latency', fmt: fmtMs }),
    ]),
    section('tradeoff', tradeOffSentences(cells, figures)),
    section('duplicates', duplicatesSentences(cells, figures, settings)),
  ]
}
