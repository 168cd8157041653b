import { memo } from 'react'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { headlineProcessed, processedWindowMs, windowLabel } from '../lib/processed-rate.ts'
import { fmtCompact, fmtInt, fmtMs, fmtRate } from './format.ts'
import { kafkaNamesShownOn, kafkaNamesText } from '../lib/kafka-metric-names.ts'

export interface StatRowProps {
  snapshot: LabSnapshot
}

interface Stat {
  id: string
  label: string
  value: string
  hint: string
  tone?: 'bad' | 'ok' | 'warn'
}

export const StatRow = memo(function StatRow({ snapshot }: StatRowProps) {
  const last = snapshot.series.length ? snapshot.series[snapshot.series.length - 1]! : null
  const c = snapshot.correctness
  const g = snapshot.config['processing.guarantee']
  // Offsets advance once per commit: the headline is a rate over a window of two commit intervals (at least 2 s).
  const windowMs = processedWindowMs(snapshot.config['commit.interval.ms'])
  const stats: Stat[] = [
    {
      id: 'processed',
      label: `processed · ${windowLabel(windowMs)}`,
      value: fmtRate(headlineProcessed(snapshot.series, windowMs)),
      hint:
        'records/s by which committed input offsets advance, between commits at least ' +
        `${windowLabel(windowMs)} apart (0 when nothing was committed in the last ${windowLabel(windowMs)}; ` +
        'offsets only move at a commit)',
    },
    {
      id: 'visible',
      label: 'visible output',
      value: fmtRate(last?.visibleOutputPerSec),
      hint: 'committed output records/s seen by a read_committed consumer',
    },
    {
      id: 'p99',
      label: 'latency p99',
      value: fmtMs(last?.latencyP99Ms),
      hint: 'end-to-end: input append → output visible (read_committed)',
    },
    {
      id: 'committed-input',
      label: 'committed input',
      value: fmtCompact(snapshot.totals.committedInput),
      hint: 'input records below the committed offsets',
    },
    {
      id: 'duplicates',
      label: 'duplicates',
      value: fmtInt(c?.duplicates),
      hint: 'from the validator',
      tone: c && c.duplicates !== null && c.duplicates > 0 ? (g === 'at_least_once' ? 'warn' : 'bad') : 'ok',
    },
    {
      id: 'aborted',
      label: 'aborted txns',
      value: fmtInt(snapshot.txnTotals.aborted),
      hint: 'transactions aborted (fenced, crash, timeout, error)',
    },
    { id: 'kills', label: 'kills', value: fmtInt(snapshot.totals.kills), hint: 'workers killed so far' },
  ]
  return (
    <dl className="stat-row" data-testid="stats">
      {stats.map((s) => (
        <div key={s.id} className={`stat ${s.tone ? `stat-${s.tone}` : ''}`} title={withKafkaNames(s.id, s.hint)}>
          <dt>{s.label}</dt>
          <dd className="num" data-testid={`stat-${s.id}`}>
            {s.value}
          </dd>
        </div>
      ))}
      <div className="stat stat-config">
        <dt>guarantee</dt>
        <dd className="mono" data-testid="stat-guarantee">
          {g}
        </dd>
      </div>
    </dl>
  )
})

/** A tile's hint with the Kafka Streams or client metric it corresponds to, and how (lib/kafka-metric-names.ts). */
function withKafkaNames(id: string, hint: string): string {
  const names = kafkaNamesText(kafkaNamesShownOn(id))
  return names === '' ? hint : `${hint}\n${names}`
}
