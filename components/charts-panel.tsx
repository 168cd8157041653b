import { memo, useEffect, useRef, useState } from 'react'
import type { ChartPoint, TimelineMarker } from '../lib/lab-protocol.ts'
import { CHART_MARKERS, LATENCY_CHART, THROUGHPUT_CHART } from './chart-config.ts'
import { Panel } from './panel.tsx'
import { TimeSeriesChart, type ChartRow } from './time-series-chart.tsx'

export interface ChartsPanelProps {
  series: ChartPoint[]
  markers: TimelineMarker[]
  startedAtMs: number
  /** Redraw the charts at most this often (they are the most expensive part of a frame). */
  redrawMs?: number
}

/** The latest value, at most once every `ms` (the first one at once). */
function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value)
  const last = useRef(0)
  useEffect(() => {
    const show = () => {
      last.current = performance.now()
      setShown(value)
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

type Key = Exclude<keyof ChartPoint, 't'>

export function toRows(series: ChartPoint[], startedAtMs: number): ChartRow<Key>[] {
  return series.map(({ t, ...rest }) => ({ x: (t - startedAtMs) / 1000, ...rest }))
}

export const ChartsPanel = memo(function ChartsPanel({ series, markers, startedAtMs, redrawMs = 1000 }: ChartsPanelProps) {
  const shownSeries = useThrottled(series, redrawMs)
  const shownMarkers = useThrottled(markers, redrawMs)
  const rows = toRows(shownSeries, startedAtMs)
  const marks = shownMarkers.filter((m) => CHART_MARKERS.includes(m.kind)).map((m) => ({ ...m, x: (m.t - startedAtMs) / 1000 }))
  return (
    <div className="charts">
      {[THROUGHPUT_CHART, LATENCY_CHART].map((config) => (
        <Panel key={config.id} title={config.title} hint={config.hint} testId={`panel-${config.id}`}>
          <TimeSeriesChart config={config} rows={rows} markers={marks} />
        </Panel>
      ))}
    </div>
  )
})
