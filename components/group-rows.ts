// What the Group view draws, computed from the snapshot's group part: the lag chart's config and
// rows, a generation's end in words, a member's partitions.

import type { GenerationEnd, GroupView, PartitionLagSeries } from '../lib/group-view.ts'
import type { ChartConfig } from './chart-config.ts'
import { fmtCompact } from './format.ts'
import type { ChartRow } from './time-series-chart.tsx'

const COLORS = ['var(--chart-1)', 'var(--chart-2)', 'var(--chart-3)', 'var(--chart-4)']

export const LAG_HINT =
  'LAG = high watermark − the group’s committed offset, per input partition, as kafka-consumer-groups.sh shows it. ' +
  'The consumer metrics records-lag and records-lag-max count from the consumer’s position instead, which runs ahead ' +
  'of the committed offset by the records not yet committed.'

export function lagChart(series: readonly PartitionLagSeries[], topic: string): ChartConfig<string> {
  return {
    id: 'group-lag',
    title: `Lag per partition of ${topic}`,
    hint: LAG_HINT,
    series: series.map((s, i) => ({
      key: `p${s.partition}`,
      label: `p${s.partition}`,
      color: COLORS[i % COLORS.length]!,
      dashed: i >= COLORS.length,
    })),
    formatY: (v) => fmtCompact(v),
  }
}

/** One row per sample time (every partition is sampled at once), x in seconds since the lab started. */
export function lagRows(series: readonly PartitionLagSeries[], startedAtMs: number): ChartRow<string>[] {
  const rows = new Map<number, ChartRow<string>>()
  for (const s of series) {
    for (const p of s.points) {
      const row = rows.get(p.atMs) ?? { x: (p.atMs - startedAtMs) / 1000 }
      ;(row as Record<string, number | null>)[`p${s.partition}`] = p.lag
      rows.set(p.atMs, row)
    }
  }
  return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r)
}

/** The latest point of each partition: committed, end, lag. */
export function latestLag(series: readonly PartitionLagSeries[]) {
  return series.map((s) => ({
    partition: s.partition,
    ...(s.points[s.points.length - 1] ?? { atMs: 0, committed: null, end: 0, lag: null }),
  }))
}

export function fmtPartitions(ps: readonly number[]): string {
  return ps.length === 0 ? '—' : ps.map((p) => `p${p}`).join(', ')
}

const who = (m: { memberId: string; workerId: string | null }) => m.workerId ?? m.memberId

/** "w2 killed; w4 joined; p2 w2→w1, p3 w2→w3". */
export function fmtEnd(e: GenerationEnd, workerOf: (memberId: string | null) => string | null): string {
  const parts = [
    ...e.gone.map((g) => `${who(g)} ${g.how === 'gone' ? 'gone' : g.how}`),
    ...e.joined.map((j) => `${who(j)} joined`),
  ]
  const moves = e.moved.map(
    (m) => `p${m.partition} ${workerOf(m.from) ?? m.from ?? '—'}→${workerOf(m.to) ?? m.to ?? '—'}`,
  )
  if (moves.length > 0) parts.push(moves.join(', '))
  return parts.length > 0 ? parts.join('; ') : 'rebalance, same members and assignment'
}

/** Member id → worker id, over every generation kept (a dead member's worker too). */
export function workerIndex(g: GroupView): (memberId: string | null) => string | null {
  const map = new Map<string, string>()
  for (const gen of g.generations) for (const m of gen.members) if (m.workerId) map.set(m.memberId, m.workerId)
  for (const m of g.members) if (m.workerId) map.set(m.memberId, m.workerId)
  return (memberId) => (memberId === null ? null : (map.get(memberId) ?? null))
}
