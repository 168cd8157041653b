'use client'
// The shown experiment: the five charts (each point with its 95% interval), the noise warning when
// two points cannot be ordered, the reading guide computed from the figures, and the table.

import type { CellResult, ExperimentRecord, Stat } from '../../lib/experiment-protocol.ts'
import { cellsWithoutInterval, noiseWarnings } from '../../lib/experiment-uncertainty.ts'
import { HistoryTable } from '../history-table.tsx'
import { Panel } from '../panel.tsx'
import { fmtCompact, fmtMs } from '../format.ts'
import { CHART_DEFINITIONS, readingGuide, type Figures } from './reading-guide.ts'
import {
  DuplicatesChart,
  LatencyChart,
  RecoveryChart,
  ThroughputChart,
  TradeOffChart,
  type OverlaidRun,
} from './sweep-charts.tsx'

/** A model sweep runs in virtual time: its figures are the model's, exact. */
export const figuresOf = (r: ExperimentRecord): Figures => (r.machine.clock === 'virtual' ? 'model' : 'measured')

export interface SweepResultsProps {
  record: ExperimentRecord
  overlays: readonly OverlaidRun[]
}

/** The five charts, the noise warning, the reading guide and the table of the shown experiment. */
export function SweepResults({ record, overlays }: SweepResultsProps) {
  const cells = record.cells
  const figures = figuresOf(record)
  const title = (t: string) => (figures === 'model' ? `${t} (model)` : t)
  const def = CHART_DEFINITIONS
  return (
    <>
      {figures === 'measured' ? <NoiseWarning cells={cells} /> : null}
      <div className="sweep-grid">
        <Panel title={title(def.throughput.title)} hint={def.throughput.definition} testId="panel-throughput">
          <ThroughputChart cells={cells} overlays={overlays} />
        </Panel>
        <Panel title={title(def.recovery.title)} hint={def.recovery.definition} testId="panel-recovery">
          <RecoveryChart cells={cells} overlays={overlays} />
        </Panel>
        <Panel title={title(def.latency.title)} hint={def.latency.definition} testId="panel-latency">
          <LatencyChart cells={cells} overlays={overlays} />
        </Panel>
        <Panel
          title={title(`${def.tradeoff.title}: throughput against recovery`)}
          hint={def.tradeoff.definition}
          testId="panel-tradeoff"
        >
          <TradeOffChart cells={cells} overlays={overlays} />
        </Panel>
        <Panel
          title={title(`${def.duplicates.title} (at_least_once)`)}
          hint={def.duplicates.definition}
          testId="panel-duplicates"
        >
          <DuplicatesChart cells={cells} overlays={overlays} settings={record.settings} />
        </Panel>
        <Panel
          title="What these figures say"
          hint={
            figures === 'model'
              ? 'model figures are exact: compared by their values'
              : 'compared through their 95% intervals'
          }
          testId="panel-guide"
        >
          <Guide record={record} figures={figures} />
        </Panel>
      </div>
      <Panel
        title={title('Table')}
        hint="medians over the runs, with their 95% intervals where a cell has 6 runs or more; — : not measured"
        testId="panel-table"
      >
        <SweepTable record={record} />
      </Panel>
    </>
  )
}

/** The pairs of points whose order is not known, and the cells with too few runs for an interval. */
function NoiseWarning({ cells }: { cells: CellResult[] }) {
  const warnings = noiseWarnings(cells)
  const bare = cellsWithoutInterval(cells)
  if (warnings.length === 0 && bare.length === 0) return null
  return (
    <div className="sweep-noise" role="note" data-testid="noise-warning">
      <strong>Noisy figures: the order of some points is not known.</strong>{' '}
      {warnings.length > 0
        ? `${warnings.length} pair${warnings.length === 1 ? '' : 's'} of points have overlapping 95% intervals: ` +
          'which of the two is higher is not known.'
        : null}
      <details open={warnings.length + bare.length <= 4}>
        <summary className="small">which points</summary>
        <ul>
          {bare.length > 0 ? (
            <li data-testid="noise-too-few">
              {bare.length} of {cells.length} cells have fewer than 6 runs: they have no 95% interval, so no order
              between them is known.
            </li>
          ) : null}
          {warnings.map((w) => (
            <li key={w.text} data-testid="noise-overlap">
              {w.text}.
            </li>
          ))}
        </ul>
      </details>
    </div>
  )
}

function Guide({ record, figures }: { record: ExperimentRecord; figures: Figures }) {
  const sections = readingGuide(record.cells, record.settings, figures).filter((s) => s.sentences.length > 0)
  return (
    <dl className="sweep-guide">
      {sections.map((s) => (
        <div key={s.id} data-testid={`guide-${s.id}`}>
          <dt>{s.title}</dt>
          {s.sentences.map((t) => (
            <dd key={t}>{t}</dd>
          ))}
        </div>
      ))}
    </dl>
  )
}

/** "52.1k/s (48.0k–55.3k)": the median and its 95% interval where known. */
function WithInterval({ s, fmt }: { s: Stat; fmt: (v: number | null) => string }) {
  return (
    <>
      {fmt(s.median)}
      {s.low != null && s.high != null ? (
        <span className="muted">
          {' '}
          ({fmt(s.low)}–{fmt(s.high)})
        </span>
      ) : null}
    </>
  )
}

const rate = (v: number | null) => `${fmtCompact(v)}/s`

function SweepTable({ record }: { record: ExperimentRecord }) {
  return (
    <HistoryTable
      className="sweep-table num"
      testId="sweep-table"
      head={
        <>
          <th>guarantee</th>
          <th className="r">commit ms</th>
          <th className="r">runs</th>
          <th className="r">throughput (95%)</th>
          <th className="r">p50</th>
          <th className="r">p99</th>
          <th className="r">recovery (95%)</th>
          <th className="r">detection</th>
          <th className="r">rebalance</th>
          <th className="r">fence</th>
          <th className="r">restore</th>
          <th className="r">catch-up</th>
          <th className="r">dups/kill</th>
          <th className="r" title="1-minute load average around the runs (lowest–highest)">
            load
          </th>
        </>
      }
    >
      {record.cells.map((c) => (
        <tr key={`${c.guarantee}-${c.commitIntervalMs}`}>
          <td className="mono">{c.guarantee}</td>
          <td className="r">{c.commitIntervalMs}</td>
          <td className="r">{c.repetitions.length}</td>
          <td className="r">
            <WithInterval s={c.throughputPerSec} fmt={rate} />
          </td>
          <td className="r">{fmtMs(c.latencyP50Ms.median)}</td>
          <td className="r">{fmtMs(c.latencyP99Ms.median)}</td>
          <td className="r">
            <WithInterval s={c.recoveryMs} fmt={fmtMs} />
          </td>
          <td className="r">{fmtMs(c.phases.detection.median)}</td>
          <td className="r">{fmtMs(c.phases.rebalance.median)}</td>
          <td className="r">{fmtMs(c.phases.fence.median)}</td>
          <td className="r">{fmtMs(c.phases.restore.median)}</td>
          <td className="r">{fmtMs(c.phases.catchUp.median)}</td>
          <td className="r">{c.duplicatesPerKill.median === null ? '—' : fmtCompact(c.duplicatesPerKill.median)}</td>
          <td className="r">{loadText(c)}</td>
        </tr>
      ))}
    </HistoryTable>
  )
}

/**
 * The lowest and highest 1-minute load average seen around the cell's runs; — without (virtual time, older
 * records).
 */
function loadText(c: CellResult): string {
  const xs = c.repetitions.flatMap((r) => (r.load ? [r.load.before, r.load.after] : []))
  if (xs.length === 0) return '—'
  const lo = Math.min(...xs)
  const hi = Math.max(...xs)
  return lo === hi ? lo.toFixed(1) : `${lo.toFixed(1)}–${hi.toFixed(1)}`
}
