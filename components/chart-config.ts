// The charts' configuration, kept apart from their data: which fields, labels, units, colours.
// Colours are CSS variables, so the charts follow the theme.

import type { ChartPoint, MarkerKind } from '../lib/lab-protocol.ts'
import { fmtCompact, fmtMs } from './format.ts'

export interface SeriesConfig<K extends string> {
  key: K
  label: string
  color: string
  dashed?: boolean
}

export interface ChartConfig<K extends string> {
  id: string
  title: string
  /** The definition shown under the title (docs/measures.md). */
  hint: string
  series: SeriesConfig<K>[]
  formatY: (v: number) => string
}

type ChartKey = Exclude<keyof ChartPoint, 't'>

/**
 * The throughput chart. Its processed line is the lab's rate over whole commit intervals spanning at
 * least `window` (the headline's window, two commit intervals and at least 2 s; lib/processed-rate.ts):
 * per sample, or over a fixed stretch of time, it would read 0 between commits and twice the rate at one.
 */
export function throughputChart(window: string): ChartConfig<ChartKey> {
  return {
    id: 'throughput',
    title: 'Throughput',
    hint:
      `processed: records/s by which committed input offsets advance, between commits at least ${window} apart ` +
      `up to each point (0 when nothing was committed in the ${window} before it) · ` +
      'visible output: committed output records/s seen read_committed',
    series: [
      { key: 'processedPerSec', label: `processed (${window} window)`, color: 'var(--chart-1)' },
      { key: 'visibleOutputPerSec', label: 'visible output', color: 'var(--chart-2)', dashed: true },
    ],
    formatY: (v) => `${fmtCompact(v)}/s`,
  }
}

export const THROUGHPUT_CHART: ChartConfig<ChartKey> = throughputChart('2 s')

export const LATENCY_CHART: ChartConfig<ChartKey> = {
  id: 'latency',
  title: 'End-to-end latency',
  hint: 'input append → output visible to read_committed; grows with commit.interval.ms under exactly_once',
  series: [
    { key: 'latencyP50Ms', label: 'p50', color: 'var(--chart-1)' },
    { key: 'latencyP99Ms', label: 'p99', color: 'var(--chart-3)' },
    { key: 'latencyMaxMs', label: 'max', color: 'var(--chart-4)', dashed: true },
  ],
  formatY: (v) => fmtMs(v),
}

export const MARKER_COLORS: Record<MarkerKind, string> = {
  kill: 'var(--bad)',
  pause: 'var(--warn)',
  resume: 'var(--muted)',
  rebalance: 'var(--accent)',
  config: 'var(--chart-2)',
  fenced: 'var(--warn)',
  'ack-dropped': 'var(--warn)',
  'worker-added': 'var(--muted)',
  reset: 'var(--muted)',
  recovered: 'var(--ok)',
  outage: 'var(--bad)',
  stopped: 'var(--bad)',
}

/** Marker kinds drawn on the charts (the others stay in the tables). */
export const CHART_MARKERS: MarkerKind[] = [
  'kill',
  'rebalance',
  'config',
  'pause',
  'fenced',
  'ack-dropped',
  'reset',
  'recovered',
  'worker-added',
  'outage',
  'stopped',
]
