import { memo, startTransition, useEffect, useMemo, useRef, useState } from 'react'
import type { ChartPoint, TimelineMarker } from '../lib/lab-protocol.ts'
import { processedWindowMs, windowLabel, withWindowedProcessed } from '../lib/processed-rate.ts'
import { CHART_MARKERS, LATENCY_CHART, throughputChart } from './chart-config.ts'
import { Panel } from './panel.tsx'
import { TimeSeriesChart, type ChartRow } from './time-series-chart.tsx'

export interface ChartsPanelProps {
  series: ChartPoint[]
  markers: TimelineMarker[]
  startedAtMs: number
  /** The processed line is a rate over two commit intervals (at least 2 s), as the headline is. */
  commitIntervalMs?: number
  /** Redraw the charts at most this often (they are the most expensive part of a frame). */
  redrawMs?: number
  /** Each chart's height in px. */
  chartHeight?: number
}

/** The latest value, at most once every `ms` (the first one at once). */
function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value)
  const last = useRef(0)
  useEffect(() => {
    const show = () => {
      last.current = performance.now()
      startTransition(() => setShown(value))
    }
    const wait = last.current + ms - performance.now()
    if (wait <= 0) {
      show()
      return
    }
    const id = setTimeout(show, wait)
    return () => clearTimeout(id)
  }, [value, ms])
  return shown
}

/** The value `ms` after it last changed: a second view of it drawn in a task of its own. */
function useLagged<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value)
  useEffect(() => {
    const id = setTimeout(() => startTransition(() => setShown(value)), ms)
    return () => clearTimeout(id)
  }, [value, ms])
  return shown
}

type Key = Exclude<keyof ChartPoint, 't'>

/** At most this many points per line: more cannot be told apart at the charts' width. */
export const MAX_CHART_POINTS = 150

/** Chart rows in seconds since the lab started, thinned evenly to MAX_CHART_POINTS (the last point always kept). */
export function toRows(series: ChartPoint[], startedAtMs: number, maxPoints = MAX_CHART_POINTS): ChartRow<Key>[] {
  const step = Math.max(1, Math.ceil(series.length / maxPoints))
  const picked = step === 1 ? series : series.filter((_, i) => (series.length - 1 - i) % step === 0)
  return picked.map(({ t, ...rest }) => ({ x: (t - startedAtMs) / 1000, ...rest }))
}

export const ChartsPanel = memo(function ChartsPanel({
  series,
  markers,
  startedAtMs,
  commitIntervalMs,
  redrawMs = 1000,
  chartHeight,
}: ChartsPanelProps) {
  const shownSeries = useThrottled(series, redrawMs)
  const shownMarkers = useThrottled(markers, redrawMs)
  const windowMs = processedWindowMs(commitIntervalMs)
  const throughput = useMemo(() => throughputChart(windowLabel(windowMs)), [windowMs])
  // New rows only when the throttled series changes: recharts redraws whenever its data does.
  const rows = useMemo(
    () => toRows(withWindowedProcessed(shownSeries, windowMs), startedAtMs),
    [shownSeries, startedAtMs, windowMs],
  )
  const marks = useMemo(
    () =>
      shownMarkers.filter((m) => CHART_MARKERS.includes(m.kind)).map((m) => ({ ...m, x: (m.t - startedAtMs) / 1000 })),
    [shownMarkers, startedAtMs],
  )
  // The second chart redraws half a redraw later, in a task of its own: both at once held the main
  // thread for several frames (recharts draws a chart's store changes at once, not in slices).
  const laterRows = useLagged(rows, redrawMs / 2)
  const laterMarks = useLagged(marks, redrawMs / 2)
  return (
    <div className="charts">
      {[
        { config: throughput, rows, marks, drawAfterMs: 0 },
        { config: LATENCY_CHART, rows: laterRows, marks: laterMarks, drawAfterMs: redrawMs / 4 },
      ].map((c) => (
        <Panel key={c.config.id} title={c.config.title} hint={c.config.hint} testId={`panel-${c.config.id}`}>
          <TimeSeriesChart
            config={c.config}
            rows={c.rows}
            markers={c.marks}
            height={chartHeight}
            drawAfterMs={c.drawAfterMs}
          />
        </Panel>
      ))}
    </div>
  )
})
