'use client'
// The five sweep charts. Configuration (colours, labels) comes from sweep-series.ts; the rows are
// computed there too. A dashed series is the overlaid earlier run.

import { Area, Bar, BarChart, CartesianGrid, ComposedChart, LabelList, Legend, Line, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from 'recharts'
import { PHASES, type CellResult, type Stat } from '../../lib/experiment-protocol.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { fmtCompact, fmtMs } from '../format.ts'
import { COMPARE_PREFIX, GUARANTEE_COLORS, guaranteesOf, intervalsOf, latencyRows, PHASE_COLORS, PHASE_LABELS, recoveryRows, statRows, tradeOffPoints, type Row } from './sweep-series.ts'

const axisTick = { fill: 'var(--muted)', fontSize: 11 }
const tooltipStyle = { background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--fg)', fontSize: 12 }
const HEIGHT = 240

export interface SweepChartProps {
  cells: CellResult[]
  /** An earlier run drawn dashed for comparison. */
  overlay: CellResult[] | null
  overlayName?: string
}

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
      label={{ value: 'commit.interval.ms (log)', position: 'insideBottom', offset: -4, fill: 'var(--muted)', fontSize: 11 }}
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

/** Lines (median) with a min–max band, one per guarantee, plus the overlay's medians dashed. */
function StatChart({ id, cells, overlay, overlayName, pick, guarantees, formatY, yLabel }: SweepChartProps & { id: string; pick: (c: CellResult) => Stat; guarantees: ProcessingGuarantee[]; formatY: (v: number) => string; yLabel: string }) {
  const rows: Row[] = statRows(cells, overlay, pick)
  const ticks = intervalsOf(cells, overlay)
  const overlayGuarantees = overlay ? guaranteesOf(overlay).filter((g) => guarantees.includes(g)) : []
  return (
    <ChartFrame id={id}>
      <ComposedChart data={rows} margin={{ top: 10, right: 16, bottom: 14, left: 4 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
        <LogIntervalAxis ticks={ticks} />
        <YAxis tick={axisTick} tickFormatter={formatY} width={64} stroke="var(--border)" label={{ value: yLabel, angle: -90, position: 'insideLeft', fill: 'var(--muted)', fontSize: 11, dy: 40 }} />
        <Tooltip isAnimationActive={false} contentStyle={tooltipStyle} labelFormatter={(v) => `commit.interval.ms ${v}`} formatter={(v) => (Array.isArray(v) ? v.map((x) => formatY(Number(x))).join(' – ') : typeof v === 'number' ? formatY(v) : '—')} />
        <Legend wrapperStyle={{ fontSize: 12, paddingTop: 6 }} />
        {guarantees.map((g) => (
          <Area key={`${g}_band`} dataKey={`${g}_band`} name={`${g} min–max`} stroke="none" fill={GUARANTEE_COLORS[g]} fillOpacity={0.15} isAnimationActive={false} connectNulls legendType="none" />
        ))}
        {guarantees.map((g) => (
          <Line key={g} dataKey={g} name={g} stroke={GUARANTEE_COLORS[g]} strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} connectNulls />
        ))}
        {overlayGuarantees.map((g) => (
          <Line key={`cmp-${g}`} dataKey={`${COMPARE_PREFIX}${g}`} name={`${g} (${overlayName ?? 'earlier'})`} stroke={GUARANTEE_COLORS[g]} strokeWidth={1.5} strokeDasharray="5 3" strokeOpacity={0.7} dot={false} isAnimationActive={false} connectNulls />
        ))}
      </ComposedChart>
    </ChartFrame>
  )
}

export function ThroughputChart(p: SweepChartProps) {
  return <StatChart {...p} id="throughput" pick={(c) => c.throughputPerSec} guarantees={guaranteesOf(p.cells)} formatY={(v) => `${fmtCompact(v)}/s`} yLabel="records/s" />
}

export function DuplicatesChart(p: SweepChartProps) {
  const alos = guaranteesOf(p.cells).filter((g) => g === 'at_least_once')
  if (alos.length === 0) return <p className="muted small sweep-empty">Duplicates are counted for at_least_once: include it in the sweep.</p>
  return <StatChart {...p} id="duplicates" pick={(c) => c.duplicatesPerKill} guarantees={alos} formatY={(v) => fmtCompact(v)} yLabel="per kill" />
}

export function LatencyChart({ cells, overlay, overlayName }: SweepChartProps) {
  const rows = latencyRows(cells, overlay)
  const gs = guaranteesOf(cells)
  const og = overlay ? guaranteesOf(overlay) : []
  return (
    <ChartFrame id="latency">
      <ComposedChart data={rows} margin={{ top: 10, right: 16, bottom: 14, left: 4 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
        <LogIntervalAxis ticks={intervalsOf(cells, overlay)} />
        <YAxis tick={axisTick} tickFormatter={(v: number) => fmtMs(v)} width={64} stroke="var(--border)" />
        <Tooltip isAnimationActive={false} contentStyle={tooltipStyle} labelFormatter={(v) => `commit.interval.ms ${v}`} formatter={(v) => (typeof v === 'number' ? fmtMs(v) : '—')} />
        <Legend wrapperStyle={{ fontSize: 12, paddingTop: 6 }} />
        {gs.flatMap((g) => [
          <Line key={`${g}_p50`} dataKey={`${g}_p50`} name={`${g} p50`} stroke={GUARANTEE_COLORS[g]} strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} connectNulls />,
          <Line key={`${g}_p99`} dataKey={`${g}_p99`} name={`${g} p99`} stroke={GUARANTEE_COLORS[g]} strokeWidth={1.5} strokeDasharray="2 2" dot={{ r: 2 }} isAnimationActive={false} connectNulls />,
        ])}
        {og.map((g) => (
          <Line key={`cmp-${g}`} dataKey={`${COMPARE_PREFIX}${g}_p50`} name={`${g} p50 (${overlayName ?? 'earlier'})`} stroke={GUARANTEE_COLORS[g]} strokeWidth={1.5} strokeDasharray="5 3" strokeOpacity={0.7} dot={false} isAnimationActive={false} connectNulls />
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
                <XAxis dataKey="label" tick={axisTick} stroke="var(--border)" label={{ value: 'commit.interval.ms', position: 'insideBottom', offset: -4, fill: 'var(--muted)', fontSize: 11 }} />
                <YAxis tick={axisTick} tickFormatter={(v: number) => fmtMs(v)} width={56} stroke="var(--border)" />
                <Tooltip isAnimationActive={false} contentStyle={tooltipStyle} labelFormatter={(v) => `commit.interval.ms ${v}`} formatter={(v) => (typeof v === 'number' ? fmtMs(v) : '—')} />
                <Legend wrapperStyle={{ fontSize: 11, paddingTop: 6 }} />
                {PHASES.map((p) => (
                  <Bar key={p} dataKey={p} name={PHASE_LABELS[p]} stackId="phases" fill={PHASE_COLORS[p]} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
        </div>
      ))}
    </div>
  )
}

export function TradeOffChart({ cells, overlay, overlayName }: SweepChartProps) {
  const gs = guaranteesOf(cells)
  const og = overlay ? guaranteesOf(overlay) : []
  return (
    <ChartFrame id="tradeoff" height={HEIGHT + 20}>
      <ComposedChart margin={{ top: 18, right: 24, bottom: 14, left: 4 }}>
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
        <XAxis dataKey="recoveryMs" type="number" domain={['auto', 'auto']} tick={axisTick} tickFormatter={(v: number) => fmtMs(v)} stroke="var(--border)" label={{ value: 'recovery time (median)', position: 'insideBottom', offset: -4, fill: 'var(--muted)', fontSize: 11 }} />
        <YAxis dataKey="throughput" type="number" domain={['auto', 'auto']} tick={axisTick} tickFormatter={(v: number) => `${fmtCompact(v)}/s`} width={64} stroke="var(--border)" />
        <Tooltip isAnimationActive={false} contentStyle={tooltipStyle} formatter={(v, name) => (name === 'throughput' ? `${fmtCompact(Number(v))}/s` : fmtMs(Number(v)))} />
        <Legend wrapperStyle={{ fontSize: 12, paddingTop: 6 }} />
        {gs.map((g) => (
          <Scatter key={g} name={g} data={tradeOffPoints(cells, g)} fill={GUARANTEE_COLORS[g]} line={{ stroke: GUARANTEE_COLORS[g], strokeWidth: 2 }} isAnimationActive={false}>
            <LabelList
              dataKey="label"
              content={(props) => (
                <text x={Number(props.x ?? 0) + Number(props.width ?? 0) / 2} y={Number(props.y ?? 0) - 6} textAnchor="middle" fill="var(--fg)" fontSize={10}>
                  {props.value}
                </text>
              )}
            />
          </Scatter>
        ))}
        {og.map((g) => (
          <Scatter key={`cmp-${g}`} name={`${g} (${overlayName ?? 'earlier'})`} data={tradeOffPoints(overlay!, g)} fill={GUARANTEE_COLORS[g]} fillOpacity={0.25} stroke={GUARANTEE_COLORS[g]} line={{ stroke: GUARANTEE_COLORS[g], strokeWidth: 1.5, strokeDasharray: '5 3', strokeOpacity: 0.7 }} isAnimationActive={false} />
        ))}
      </ComposedChart>
    </ChartFrame>
  )
}
