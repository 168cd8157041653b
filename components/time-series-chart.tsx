import { memo } from 'react'
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { TimelineMarker } from '../lib/lab-protocol.ts'
import type { ChartConfig } from './chart-config.ts'
import { MARKER_COLORS } from './chart-config.ts'

export type ChartRow<K extends string> = { x: number } & Partial<Record<K, number | null>>

export interface TimeSeriesChartProps<K extends string> {
  config: ChartConfig<K>
  rows: ChartRow<K>[]
  /** Markers with x in the rows' unit (seconds since the lab started). */
  markers: (TimelineMarker & { x: number })[]
  height?: number
}

export const MARKER_LABEL_CHARS = 26

export function shortLabel(label: string): string {
  return label.length > MARKER_LABEL_CHARS ? `${label.slice(0, MARKER_LABEL_CHARS - 1)}…` : label
}

/** Labels in the right part of the plot run leftwards, so they stay inside it. */
export function runsLeftwards(x: number, xMin: number, xMax: number): boolean {
  return (x - xMin) / Math.max(1e-9, xMax - xMin) > 0.6
}

/**
 * Stacks marker labels that would overlap into rows (at most three; later ones share the last).
 * `unitsPerChar` is how much of the x axis one label character takes.
 */
export function labelRows<M extends { x: number; label: string }>(markers: M[], unitsPerChar: number, xMin: number, xMax: number): { marker: M; row: number }[] {
  const rows: [number, number][][] = []
  return [...markers]
    .sort((a, b) => a.x - b.x)
    .map((marker) => {
      const width = (shortLabel(marker.label).length + 1) * unitsPerChar
      const span: [number, number] = runsLeftwards(marker.x, xMin, xMax) ? [marker.x - width, marker.x] : [marker.x, marker.x + width]
      let row = rows.findIndex((taken) => taken.every(([s, e]) => span[1] <= s || span[0] >= e))
      if (row === -1) row = rows.length < 3 ? rows.length : 2
      ;(rows[row] ??= []).push(span)
      return { marker, row }
    })
}

/** Axis ticks in seconds, with a decimal when the window is short. */
function secondsTick(span: number) {
  return (v: number) => (span < 20 ? `${v.toFixed(1)} s` : `${Math.round(v)} s`)
}

/** Approximate plot width in px, for label stacking (the charts are 380-700 px wide). */
const PLOT_WIDTH_PX = 480
const CHAR_WIDTH_PX = 5.6

const axisTick = { fill: 'var(--muted)', fontSize: 11 }

/** The one chart wrapper: a time axis in seconds, lines from the config, markers as reference lines. */
export const TimeSeriesChart = memo(TimeSeriesChartImpl) as typeof TimeSeriesChartImpl

function TimeSeriesChartImpl<K extends string>({ config, rows, markers, height = 210 }: TimeSeriesChartProps<K>) {
  const xMin = rows.length ? rows[0]!.x : 0
  const xMax = rows.length ? rows[rows.length - 1]!.x : 1
  return (
    <div className="chart" style={{ height }} data-testid={`chart-${config.id}`}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 520, height }}>
        <LineChart data={rows} margin={{ top: 18, right: 12, bottom: 0, left: 4 }}>
          <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
          <XAxis
            dataKey="x"
            type="number"
            domain={[xMin, xMax]}
            tick={axisTick}
            tickFormatter={secondsTick(xMax - xMin)}
            stroke="var(--border)"
            allowDataOverflow
          />
          <YAxis tick={axisTick} tickFormatter={config.formatY} width={64} stroke="var(--border)" />
          <Tooltip
            isAnimationActive={false}
            contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--fg)', fontSize: 12 }}
            labelFormatter={(v) => `${Number(v).toFixed(1)} s`}
            formatter={(v) => (typeof v === 'number' ? config.formatY(v) : '—')}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} iconType="plainline" />
          {labelRows(
            markers.filter((m) => m.x >= xMin && m.x <= xMax),
            ((xMax - xMin) / PLOT_WIDTH_PX) * CHAR_WIDTH_PX,
            xMin,
            xMax,
          ).map(({ marker: m, row }) => (
            <ReferenceLine
              key={`${m.t}-${m.kind}-${m.label}`}
              x={m.x}
              stroke={MARKER_COLORS[m.kind]}
              strokeDasharray="3 3"
              label={(props: { viewBox?: { x?: number; y?: number } }) => {
                const leftwards = runsLeftwards(m.x, xMin, xMax)
                return (
                <text
                  x={(props.viewBox?.x ?? 0) + (leftwards ? -3 : 3)}
                  y={(props.viewBox?.y ?? 0) + 9 + row * 11}
                  textAnchor={leftwards ? 'end' : 'start'}
                  fill={MARKER_COLORS[m.kind]}
                  fontSize={10}
                >
                  <title>{m.label}</title>
                  {shortLabel(m.label)}
                </text>
                )
              }}
            />
          ))}
          {config.series.map((s) => (
            <Line
              key={s.key}
              dataKey={s.key}
              name={s.label}
              stroke={s.color}
              strokeWidth={s.dashed ? 1.5 : 2}
              strokeDasharray={s.dashed ? '5 3' : undefined}
              dot={false}
              isAnimationActive={false}
              connectNulls={false}
              type="linear"
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  )
}
