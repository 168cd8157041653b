import { memo, useCallback, useEffect, useMemo, useState } from 'react'
import {
  type BaseTickContentProps,
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts'
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
  /**
   * The plot is drawn this long after the chart first mounts, in a task of its own; until then its
   * place is held at its height. A page's first render with data then does not also draw every chart.
   */
  drawAfterMs?: number
}

/** False at first, true `ms` after the first mount (in a later task, even at 0). */
export function useDrawnLater(ms: number): boolean {
  const [drawn, setDrawn] = useState(false)
  useEffect(() => {
    const id = setTimeout(() => setDrawn(true), ms)
    return () => clearTimeout(id)
  }, [ms])
  return drawn
}

export const MARKER_LABEL_CHARS = 26

export function shortLabel(label: string): string {
  return label.length > MARKER_LABEL_CHARS ? `${label.slice(0, MARKER_LABEL_CHARS - 1)}…` : label
}

/** Labels in the right part of the plot run leftwards, so they stay inside it. */
export function runsLeftwards(x: number, xMin: number, xMax: number): boolean {
  return (x - xMin) / Math.max(1e-9, xMax - xMin) > 0.6
}

/** Rows of marker labels at most; a label with no room in them is abbreviated, then left to its tooltip. */
export const MAX_LABEL_ROWS = 3

/** "processing.guarantee=at_least_once …" → "processing…": a label's first word, for a crowded chart. */
export function compactLabel(label: string): string {
  const first = label.split(/[\s:=,]/)[0] ?? label
  return first.length > 10 ? `${first.slice(0, 9)}…` : first === label ? first : `${first}…`
}

export interface PlacedLabel<M> {
  marker: M
  row: number
  /**
   * The text drawn: the label (cut at MARKER_LABEL_CHARS), its first word, or nothing; the full label is the
   * tooltip.
   */
  text: string
}

/**
 * Places marker labels in rows so that none overlaps another: each label takes the first of
 * MAX_LABEL_ROWS rows with room for it, else its compact form does, else it is drawn as its line
 * alone (the line's tooltip has the full label). `unitsPerChar` is how much of the x axis one label
 * character takes.
 */
export function labelRows<M extends { x: number; label: string }>(
  markers: M[],
  unitsPerChar: number,
  xMin: number,
  xMax: number,
): PlacedLabel<M>[] {
  const rows: [number, number][][] = Array.from({ length: MAX_LABEL_ROWS }, () => [])
  const spanOf = (x: number, text: string): [number, number] => {
    const width = (text.length + 1) * unitsPerChar
    return runsLeftwards(x, xMin, xMax) ? [x - width, x] : [x, x + width]
  }
  const place = (x: number, text: string): number => {
    const span = spanOf(x, text)
    const row = rows.findIndex((taken) => taken.every(([s, e]) => span[1] <= s || span[0] >= e))
    if (row !== -1) rows[row]!.push(span)
    return row
  }
  return [...markers]
    .sort((a, b) => a.x - b.x)
    .map((marker) => {
      for (const text of [shortLabel(marker.label), compactLabel(marker.label)]) {
        const row = place(marker.x, text)
        if (row !== -1) return { marker, row, text }
      }
      return { marker, row: 0, text: '' }
    })
}

/** Axis ticks in seconds, with a decimal when the window is short. */
/** Tick steps in seconds: a time axis reads best on round seconds. */
const TIME_STEPS = [0.5, 1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600]

/**
 * The time axis's ticks: round multiples of a step that gives at most `most` of them, and the
 * window's end; a round tick closer to the end than 0.8 of a step is left out, so that no two labels
 * run into each other (the scale's own ticks put 6.7 s and 7.3 s side by side).
 */
export function timeTicks(xMin: number, xMax: number, most = 6): number[] {
  const span = xMax - xMin
  if (!(span > 0)) return [xMax]
  const step = TIME_STEPS.find((s) => Math.floor(span / s) < most) ?? Math.ceil(span / most / 3600) * 3600
  const ticks: number[] = []
  for (let k = Math.ceil(xMin / step); k * step < xMax - 0.8 * step; k++) ticks.push(Math.round(k * step * 10) / 10)
  ticks.push(xMax)
  return ticks
}

function secondsTick(span: number) {
  return (v: number) => (span < 20 ? `${v.toFixed(1)} s` : `${Math.round(v)} s`)
}

/** Plot width in px before the chart has measured itself (the charts are 380-700 px wide). */
const PLOT_WIDTH_PX = 480
/** The y axis and the side margins: the chart's width minus these is the plot's. */
const PLOT_INSET_PX = 64 + 26
/** A 10 px label character, a little generously. */
const CHAR_WIDTH_PX = 6.2

/** Where a tick's text sits on its anchor, as recharts' own text places one line. */
const TICK_DY: Record<BaseTickContentProps['verticalAnchor'], string> = { start: '0.71em', middle: '0.355em', end: '0' }

/**
 * An axis tick as one plain text element. Recharts' own tick text measures every word in the page
 * (to wrap it) and nests a tspan; a tick label never wraps, and on a live chart each second's new
 * ticks were that many more measurements and nodes.
 */
function AxisTick({ x, y, textAnchor, verticalAnchor, payload, index, tickFormatter }: BaseTickContentProps) {
  const value = payload.value
  return (
    <text x={x} y={y} dy={TICK_DY[verticalAnchor]} textAnchor={textAnchor} className="chart-tick">
      {tickFormatter ? tickFormatter(value, index) : String(value)}
    </text>
  )
}
const axisTick = (props: BaseTickContentProps) => <AxisTick {...props} />
// Props that never change, made once: recharts keeps its charts in a store, and a new object or
// function in a prop is a change it records and redraws for.
// The right margin holds half of the last tick's label, which is centred on the plot's edge.
const MARGIN = { top: 18, right: 22, bottom: 0, left: 4 }
const TOOLTIP_STYLE = {
  background: 'var(--panel)',
  border: '1px solid var(--border)',
  color: 'var(--fg)',
  fontSize: 12,
}
const tooltipLabel = (v: unknown) => `${Number(v).toFixed(1)} s`
/**
 * Every tick the scale gives is drawn (it gives about five): recharts otherwise measures each tick's
 * text in the page to pick which fit, on every redraw, and that was most of a live chart's cost.
 */
const EVERY_TICK = 0

/**
 * A marker's label, and a hover band along its line whose tooltip is the full label: a cut or
 * compact label, or a line with no label at all, still says what it marks.
 */
function MarkerLabel({
  viewBox,
  marker,
  row,
  text,
  leftwards,
}: {
  viewBox?: { x?: number; y?: number; height?: number }
  marker: TimelineMarker
  row: number
  text: string
  leftwards: boolean
}) {
  const x = viewBox?.x ?? 0
  const y = viewBox?.y ?? 0
  const color = MARKER_COLORS[marker.kind]
  return (
    <g className="marker-label" data-testid="chart-marker" data-label={marker.label}>
      <rect x={x - 4} y={y} width={8} height={viewBox?.height ?? 0} fill="transparent" pointerEvents="all">
        <title>{marker.label}</title>
      </rect>
      {text ? (
        <text
          x={x + (leftwards ? -3 : 3)}
          y={y + 9 + row * 11}
          textAnchor={leftwards ? 'end' : 'start'}
          fill={color}
          fontSize={10}
          pointerEvents="all"
        >
          <title>{marker.label}</title>
          {text}
        </text>
      ) : null}
    </g>
  )
}

/**
 * The lines' names under the chart, drawn once: recharts' own legend measures itself in the page
 * whenever the chart redraws.
 */
const ChartLegend = memo(function ChartLegend<K extends string>({ config }: { config: ChartConfig<K> }) {
  return (
    <ul className="chart-legend" aria-label={`lines of ${config.title}`}>
      {config.series.map((s) => (
        <li key={s.key}>
          <svg width="16" height="8" aria-hidden="true">
            <line
              x1="0"
              y1="4"
              x2="16"
              y2="4"
              stroke={s.color}
              strokeWidth={2}
              strokeDasharray={s.dashed ? '5 3' : undefined}
            />
          </svg>
          {s.label}
        </li>
      ))}
    </ul>
  )
})

/** The one chart wrapper: a time axis in seconds, lines from the config, markers as reference lines. */
export const TimeSeriesChart = memo(TimeSeriesChartImpl) as typeof TimeSeriesChartImpl

function TimeSeriesChartImpl<K extends string>(props: TimeSeriesChartProps<K>) {
  const drawn = useDrawnLater(props.drawAfterMs ?? 0)
  const { config, height = 210 } = props
  return (
    <div className="chart" style={{ height }} data-testid={`chart-${config.id}`}>
      <div className="chart-plot">{drawn ? <Plot {...props} /> : null}</div>
      <ChartLegend config={config} />
    </div>
  )
}

function Plot<K extends string>({ config, rows, markers, height = 210 }: TimeSeriesChartProps<K>) {
  const xMin = rows.length ? rows[0]!.x : 0
  const xMax = rows.length ? rows[rows.length - 1]!.x : 1
  const [plotWidth, setPlotWidth] = useState(PLOT_WIDTH_PX)
  const onResize = useCallback((width: number) => setPlotWidth(Math.max(100, width - PLOT_INSET_PX)), [])
  const domain = useMemo(() => [xMin, xMax], [xMin, xMax])
  const xTicks = useMemo(() => timeTicks(xMin, xMax), [xMin, xMax])
  const shortWindow = xMax - xMin < 20
  const xTick = useMemo(() => secondsTick(shortWindow ? 0 : 20), [shortWindow])
  const { formatY } = config
  const tooltipValue = useCallback((v: unknown) => (typeof v === 'number' ? formatY(v) : '—'), [formatY])
  return (
    <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 520, height }} onResize={onResize}>
      <LineChart data={rows} margin={MARGIN}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
        <XAxis
          dataKey="x"
          type="number"
          domain={domain}
          ticks={xTicks}
          tick={axisTick}
          tickFormatter={xTick}
          interval={EVERY_TICK}
          stroke="var(--border)"
          allowDataOverflow
        />
        <YAxis tick={axisTick} tickFormatter={config.formatY} interval={EVERY_TICK} width={64} stroke="var(--border)" />
        <Tooltip
          isAnimationActive={false}
          contentStyle={TOOLTIP_STYLE}
          labelFormatter={tooltipLabel}
          formatter={tooltipValue}
        />
        {labelRows(
          markers.filter((m) => m.x >= xMin && m.x <= xMax),
          ((xMax - xMin) / plotWidth) * CHAR_WIDTH_PX,
          xMin,
          xMax,
        ).map(({ marker: m, row, text }) => (
          <ReferenceLine
            key={`${m.t}-${m.kind}-${m.label}`}
            x={m.x}
            stroke={MARKER_COLORS[m.kind]}
            strokeDasharray="3 3"
            label={(props: { viewBox?: { x?: number; y?: number; height?: number } }) => (
              <MarkerLabel
                viewBox={props.viewBox}
                marker={m}
                row={row}
                text={text}
                leftwards={runsLeftwards(m.x, xMin, xMax)}
              />
            )}
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
  )
}
