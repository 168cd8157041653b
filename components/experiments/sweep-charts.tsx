'use client'
// The five sweep charts. Configuration (colours, labels) comes from sweep-series.ts; the rows are
// computed there too. Every median is drawn with its 95% interval (an error bar, and a faint band
// along a line) where the cell has one; a dashed series is the overlaid earlier run.

import {
  Area,
  Bar,
  BarChart,
  CartesianGrid,
  ComposedChart,
  ErrorBar,
  LabelList,
  Legend,
  Line,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts'
import { PHASES, type CellResult, type Stat, type SweepSettings } from '../../lib/experiment-protocol.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { fmtCompact, fmtMs } from '../format.ts'
import {
  GUARANTEE_COLORS,
  guaranteesOf,
  intervalsAcross,
  latencyRows,
  overlayDash,
  overlayPrefix,
  PHASE_COLORS,
  PHASE_LABELS,
  recoveryRows,
  statRows,
  tradeOffPoints,
  type Row,
} from './sweep-series.ts'

const axisTick = { fill: 'var(--muted)', fontSize: 11 }
const tooltipStyle = { background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--fg)', fontSize: 12 }
const HEIGHT = 240

export interface SweepChartProps {
  cells: CellResult[]
  /** Stored experiments drawn dashed over it for comparison (each its own dash). */
  overlays: readonly OverlaidRun[]
}

export interface OverlaidRun {
  name: string
  cells: CellResult[]
}

const cellsOf = (overlays: readonly OverlaidRun[]) => overlays.map((o) => o.cells)

function LogIntervalAxis({ ticks }: { ticks: number[] }) {
  return (
    <XAxis
      dataKey="x"
      type="number"
      scale="log"
      domain={['dataMin', 'dataMax']}
      ticks={ticks}
      tick={axisTick}
      tickFormatter={(v: number) => `${v}`}
      stroke="var(--border)"
      allowDataOverflow
      label={{
        value: 'commit.interval.ms (log)',
        position: 'insideBottom',
        offset: -4,
        fill: 'var(--muted)',
        fontSize: 11,
      }}
    />
  )
}

function ChartFrame({ id, children, height = HEIGHT }: { id: string; children: React.ReactElement; height?: number }) {
  return (
    <div className="chart sweep-chart" style={{ height }} data-testid={`sweep-chart-${id}`}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 520, height }}>
        {children}
      </ResponsiveContainer>
    </div>
  )
}

/**
 * Lines (median) with the 95% interval as error bars and a band, one per guarantee, plus the overlay's medians
 * dashed (with their bars).
 */
type StatChartProps = SweepChartProps & {
  id: string
  pick: (c: CellResult) => Stat
  guarantees: ProcessingGuarantee[]
  formatY: (v: number) => string
  yLabel: string
  expected?: (commitIntervalMs: number) => number
}

function StatChart({ id, cells, overlays, pick, guarantees, formatY, yLabel, expected }: StatChartProps) {
  const rows: Row[] = statRows(cells, cellsOf(overlays), pick).map((r) =>
    expected ? { ...r, expected: expected(r.x) } : r,
  )
  const ticks = intervalsAcross([cells, ...cellsOf(overlays)])
  const overlaid = overlays.flatMap((o, i) =>
    guaranteesOf(o.cells)
      .filter((g) => guarantees.includes(g))
      .map((g) => ({ g, i, name: o.name })),
  )
  return (
    <ChartFrame id={id}>
      <ComposedChart data={rows} margin={{ top: 10, right: 16, bottom: 14, left: 4 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
        <LogIntervalAxis ticks={ticks} />
        <YAxis
          tick={axisTick}
          tickFormatter={formatY}
          width={64}
          stroke="var(--border)"
          label={{ value: yLabel, angle: -90, position: 'insideLeft', fill: 'var(--muted)', fontSize: 11, dy: 40 }}
        />
        <Tooltip
          isAnimationActive={false}
          contentStyle={tooltipStyle}
          labelFormatter={(v) => `commit.interval.ms ${v}`}
          formatter={(v) =>
            Array.isArray(v) ? v.map((x) => formatY(Number(x))).join(' – ') : typeof v === 'number' ? formatY(v) : '—'
          }
        />
        <Legend wrapperStyle={{ fontSize: 12, paddingTop: 6 }} />
        {guarantees.map((g) => (
          <Area
            key={`${g}_band`}
            dataKey={`${g}_band`}
            name={`${g} 95% interval`}
            stroke="none"
            fill={GUARANTEE_COLORS[g]}
            fillOpacity={0.12}
            isAnimationActive={false}
            connectNulls
            legendType="none"
          />
        ))}
        {guarantees.map((g) => (
          <Line
            key={g}
            dataKey={g}
            name={g}
            stroke={GUARANTEE_COLORS[g]}
            strokeWidth={2}
            dot={{ r: 3 }}
            isAnimationActive={false}
            connectNulls
          >
            <ErrorBar
              dataKey={`${g}_err`}
              direction="y"
              width={5}
              stroke={GUARANTEE_COLORS[g]}
              strokeWidth={1.5}
              isAnimationActive={false}
            />
          </Line>
        ))}
        {expected ? (
          <Line
            key="expected"
            dataKey="expected"
            name="expected: rate × interval / 2"
            stroke="var(--muted)"
            strokeWidth={1.5}
            strokeDasharray="2 3"
            dot={false}
            isAnimationActive={false}
            connectNulls
          />
        ) : null}
        {overlaid.map(({ g, i, name }) => (
          <Line
            key={`cmp-${i}-${g}`}
            dataKey={`${overlayPrefix(i)}${g}`}
            name={`${g} (${name})`}
            stroke={GUARANTEE_COLORS[g]}
            strokeWidth={1.5}
            strokeDasharray={overlayDash(i)}
            strokeOpacity={0.7}
            dot={false}
            isAnimationActive={false}
            connectNulls
          >
            <ErrorBar
              dataKey={`${overlayPrefix(i)}${g}_err`}
              direction="y"
              width={3}
              stroke={GUARANTEE_COLORS[g]}
              strokeOpacity={0.6}
              isAnimationActive={false}
            />
          </Line>
        ))}
      </ComposedChart>
    </ChartFrame>
  )
}

export function ThroughputChart(p: SweepChartProps) {
  return (
    <StatChart
      {...p}
      id="throughput"
      pick={(c) => c.throughputPerSec}
      guarantees={guaranteesOf(p.cells)}
      formatY={(v) => `${fmtCompact(v)}/s`}
      yLabel="records/s"
    />
  )
}

/**
 * Duplicates per kill under at_least_once, beside the redone records expected of a kill at a uniformly random
 * moment of the commit cycle.
 */
export function DuplicatesChart(
  p: SweepChartProps & { settings: Pick<SweepSettings, 'steadyRatePerSec' | 'workers'> },
) {
  const alos = guaranteesOf(p.cells).filter((g) => g === 'at_least_once')
  if (alos.length === 0)
    return <p className="muted small sweep-empty">Duplicates are counted for at_least_once: include it in the sweep.</p>
  const expected = (ms: number) => ((p.settings.steadyRatePerSec / p.settings.workers) * ms) / 2 / 1000
  return (
    <StatChart
      {...p}
      id="duplicates"
      pick={(c) => c.duplicatesPerKill}
      guarantees={alos}
      formatY={(v) => fmtCompact(v)}
      yLabel="per kill"
      expected={expected}
    />
  )
}

export function LatencyChart({ cells, overlays }: SweepChartProps) {
  const rows = latencyRows(cells, cellsOf(overlays))
  const gs = guaranteesOf(cells)
  const og = overlays.flatMap((o, i) => guaranteesOf(o.cells).map((g) => ({ g, i, name: o.name })))
  return (
    <ChartFrame id="latency">
      <ComposedChart data={rows} margin={{ top: 10, right: 16, bottom: 14, left: 4 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
        <LogIntervalAxis ticks={intervalsAcross([cells, ...cellsOf(overlays)])} />
        <YAxis tick={axisTick} tickFormatter={(v: number) => fmtMs(v)} width={64} stroke="var(--border)" />
        <Tooltip
          isAnimationActive={false}
          contentStyle={tooltipStyle}
          labelFormatter={(v) => `commit.interval.ms ${v}`}
          formatter={(v) => (typeof v === 'number' ? fmtMs(v) : '—')}
        />
        <Legend wrapperStyle={{ fontSize: 12, paddingTop: 6 }} />
        {gs.flatMap((g) => [
          <Line
            key={`${g}_p50`}
            dataKey={`${g}_p50`}
            name={`${g} p50`}
            stroke={GUARANTEE_COLORS[g]}
            strokeWidth={2}
            dot={{ r: 3 }}
            isAnimationActive={false}
            connectNulls
          >
            <ErrorBar
              dataKey={`${g}_p50_err`}
              direction="y"
              width={5}
              stroke={GUARANTEE_COLORS[g]}
              strokeWidth={1.5}
              isAnimationActive={false}
            />
          </Line>,
          <Line
            key={`${g}_p99`}
            dataKey={`${g}_p99`}
            name={`${g} p99`}
            stroke={GUARANTEE_COLORS[g]}
            strokeWidth={1.5}
            strokeDasharray="2 2"
            dot={{ r: 2 }}
            isAnimationActive={false}
            connectNulls
          />,
        ])}
        {og.map(({ g, i, name }) => (
          <Line
            key={`cmp-${i}-${g}`}
            dataKey={`${overlayPrefix(i)}${g}_p50`}
            name={`${g} p50 (${name})`}
            stroke={GUARANTEE_COLORS[g]}
            strokeWidth={1.5}
            strokeDasharray={overlayDash(i)}
            strokeOpacity={0.7}
            dot={false}
            isAnimationActive={false}
            connectNulls
          />
        ))}
      </ComposedChart>
    </ChartFrame>
  )
}

/** Small multiples: one stacked bar chart per guarantee, a bar per interval, stacked by phase. */
export function RecoveryChart({ cells }: SweepChartProps) {
  const gs = guaranteesOf(cells)
  return (
    <div className="sweep-multiples" data-testid="sweep-chart-recovery">
      {gs.map((g) => (
        <div key={g} className="sweep-multiple">
          <h3 className="small mono" style={{ color: GUARANTEE_COLORS[g] }}>
            {g}
          </h3>
          <div className="chart" style={{ height: HEIGHT - 20 }}>
            <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 260, height: HEIGHT - 20 }}>
              <BarChart data={recoveryRows(cells, g)} margin={{ top: 8, right: 8, bottom: 14, left: 0 }}>
                <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
                <XAxis
                  dataKey="label"
                  tick={axisTick}
                  stroke="var(--border)"
                  label={{
                    value: 'commit.interval.ms',
                    position: 'insideBottom',
                    offset: -4,
                    fill: 'var(--muted)',
                    fontSize: 11,
                  }}
                />
                <YAxis tick={axisTick} tickFormatter={(v: number) => fmtMs(v)} width={56} stroke="var(--border)" />
                <Tooltip
                  isAnimationActive={false}
                  contentStyle={tooltipStyle}
                  labelFormatter={(v) => `commit.interval.ms ${v}`}
                  formatter={(v) => (typeof v === 'number' ? fmtMs(v) : '—')}
                />
                <Legend wrapperStyle={{ fontSize: 11, paddingTop: 6 }} />
                {PHASES.map((p) => (
                  <Bar
                    key={p}
                    dataKey={p}
                    name={PHASE_LABELS[p]}
                    stackId="phases"
                    fill={PHASE_COLORS[p]}
                    isAnimationActive={false}
                  />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
        </div>
      ))}
    </div>
  )
}

/**
 * A trade-off point's label offset from the point's top (px): above for even series, below for odd, staggered by
 * point.
 */
function labelOffset(series: number, point: number, height: number): number {
  const stagger = (point % 2) * 11
  return series % 2 === 0 ? -6 - stagger : height + 12 + stagger
}

export function TradeOffChart({ cells, overlays }: SweepChartProps) {
  const gs = guaranteesOf(cells)
  const og = overlays.flatMap((o, i) => guaranteesOf(o.cells).map((g) => ({ g, i, o })))
  return (
    <ChartFrame id="tradeoff" height={HEIGHT + 20}>
      <ComposedChart margin={{ top: 18, right: 24, bottom: 14, left: 4 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
        <XAxis
          dataKey="recoveryMs"
          type="number"
          domain={['auto', 'auto']}
          tick={axisTick}
          tickFormatter={(v: number) => fmtMs(v)}
          stroke="var(--border)"
          label={{
            value: 'recovery time (median)',
            position: 'insideBottom',
            offset: -4,
            fill: 'var(--muted)',
            fontSize: 11,
          }}
        />
        <YAxis
          dataKey="throughput"
          type="number"
          domain={['auto', 'auto']}
          tick={axisTick}
          tickFormatter={(v: number) => `${fmtCompact(v)}/s`}
          width={64}
          stroke="var(--border)"
        />
        <Tooltip
          isAnimationActive={false}
          contentStyle={tooltipStyle}
          formatter={(v, name) => (name === 'throughput' ? `${fmtCompact(Number(v))}/s` : fmtMs(Number(v)))}
        />
        <Legend wrapperStyle={{ fontSize: 12, paddingTop: 6 }} />
        {gs.map((g, gi) => (
          <Scatter
            key={g}
            name={g}
            data={tradeOffPoints(cells, g)}
            fill={GUARANTEE_COLORS[g]}
            line={{ stroke: GUARANTEE_COLORS[g], strokeWidth: 2 }}
            isAnimationActive={false}
          >
            <ErrorBar
              dataKey="throughputErr"
              direction="y"
              width={4}
              stroke={GUARANTEE_COLORS[g]}
              strokeWidth={1.5}
              isAnimationActive={false}
            />
            <ErrorBar
              dataKey="recoveryErr"
              direction="x"
              width={4}
              stroke={GUARANTEE_COLORS[g]}
              strokeWidth={1.5}
              isAnimationActive={false}
            />
            <LabelList
              dataKey="label"
              content={(props) => (
                // The first guarantee's labels above its points, the next one's below, and every other
                // point's one line further out: two neighbouring points close together (10 and 100 ms
                // recover alike) keep both labels readable, across series and within one.
                <text
                  x={Number(props.x ?? 0) + Number(props.width ?? 0) / 2}
                  y={Number(props.y ?? 0) + labelOffset(gi, Number(props.index ?? 0), Number(props.height ?? 0))}
                  textAnchor="middle"
                  fill="var(--fg)"
                  fontSize={10}
                >
                  {props.value}
                </text>
              )}
            />
          </Scatter>
        ))}
        {og.map(({ g, i, o }) => (
          <Scatter
            key={`cmp-${i}-${g}`}
            name={`${g} (${o.name})`}
            data={tradeOffPoints(o.cells, g)}
            fill={GUARANTEE_COLORS[g]}
            fillOpacity={0.25}
            stroke={GUARANTEE_COLORS[g]}
            line={{
              stroke: GUARANTEE_COLORS[g],
              strokeWidth: 1.5,
              strokeDasharray: overlayDash(i),
              strokeOpacity: 0.7,
            }}
            isAnimationActive={false}
          >
            <ErrorBar
              dataKey="throughputErr"
              direction="y"
              width={3}
              stroke={GUARANTEE_COLORS[g]}
              strokeOpacity={0.6}
              isAnimationActive={false}
            />
            <ErrorBar
              dataKey="recoveryErr"
              direction="x"
              width={3}
              stroke={GUARANTEE_COLORS[g]}
              strokeOpacity={0.6}
              isAnimationActive={false}
            />
          </Scatter>
        ))}
      </ComposedChart>
    </ChartFrame>
  )
}
