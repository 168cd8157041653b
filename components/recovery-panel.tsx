import { memo } from 'react'
import type { RecoveryPhases, RecoveryView } from '../lib/lab-protocol.ts'
import { fmtInt, fmtMs, fmtSince } from './format.ts'
import { Panel } from './panel.tsx'

export interface RecoveryPanelProps {
  recoveries: RecoveryView[]
  startedAtMs: number
  nowMs: number
  /** How many of the newest recoveries to show. */
  latest?: number
}

export const PHASES: { key: keyof RecoveryPhases; label: string; hint: string }[] = [
  { key: 'detection', label: 'detection', hint: 'until the group notices the member is gone (session.timeout.ms)' },
  { key: 'rebalance', label: 'rebalance', hint: 'until the partitions are assigned to surviving workers' },
  {
    key: 'fence',
    label: 'fence / abort',
    hint: "until the dead worker's open transaction is aborted and its producer fenced (0 without transactions)",
  },
  { key: 'restore', label: 'restore', hint: "until the new owner's state store is rebuilt from the changelog" },
  { key: 'catchUp', label: 'catch-up', hint: 'until the committed offsets reach the position at kill' },
]

/** Segments of a recovery bar, in ms since t0; a phase not reached yet has no segment. */
export function recoverySegments(
  r: RecoveryView,
  nowMs: number,
): { span: number; segments: { key: keyof RecoveryPhases; start: number; ms: number }[]; pendingFrom: number | null } {
  const segments: { key: keyof RecoveryPhases; start: number; ms: number }[] = []
  let start = 0
  for (const p of PHASES) {
    const ms = r.phases[p.key]
    if (ms === null) break
    segments.push({ key: p.key, start, ms })
    start += ms
  }
  const done = r.t1 !== null
  const elapsed = done ? (r.recoveryMs ?? start) : Math.max(start, nowMs - r.t0)
  return { span: Math.max(elapsed, 1), segments, pendingFrom: done ? null : start }
}

const RecoveryRow = memo(function RecoveryRow({
  r,
  startedAtMs,
  nowMs,
}: {
  r: RecoveryView
  startedAtMs: number
  nowMs: number
}) {
  const { span, segments, pendingFrom } = recoverySegments(r, nowMs)
  const pct = (ms: number) => `${(ms / span) * 100}%`
  const phases = PHASES.map((p) => `${p.label} ${fmtMs(r.phases[p.key])}`).join(', ')
  return (
    <li className="recovery" data-testid="recovery" data-complete={r.t1 !== null}>
      <div className="recovery-head">
        <span>
          <span className="strong mono">{r.workerId}</span> killed at{' '}
          <span className="num">{fmtSince(r.t0, startedAtMs)}</span> · {r.guarantee} · partitions{' '}
          <span className="mono">{[...r.partitions].sort((a, b) => a - b).join(', ') || '—'}</span>
        </span>
        <span className="recovery-total">
          {r.t1 !== null ? (
            <>
              recovered in <span className="num strong">{fmtMs(r.recoveryMs)}</span>
            </>
          ) : (
            <span className="pending-text">recovering…</span>
          )}
        </span>
      </div>
      <div className="recovery-bar" role="img" aria-label={`recovery of ${r.workerId}: ${phases}`}>
        <span className="t0-marker" title="t0: the kill">
          t0
        </span>
        {segments.map((s) => (
          <span
            key={s.key}
            className={`phase phase-${s.key}`}
            style={{ left: pct(s.start), width: pct(s.ms) }}
            title={`${s.key}: ${fmtMs(s.ms)}`}
          />
        ))}
        {pendingFrom !== null ? (
          <span className="phase phase-pending" style={{ left: pct(pendingFrom), width: pct(span - pendingFrom) }} />
        ) : null}
      </div>
      <dl className="phase-list">
        {PHASES.map((p) => (
          <div key={p.key} className="phase-item" title={p.hint}>
            <dt>
              <span className={`swatch phase-${p.key}`} /> {p.label}
            </dt>
            <dd className="num">
              {r.phases[p.key] === null ? (r.t1 === null ? 'pending' : 'n/a') : fmtMs(r.phases[p.key])}
            </dd>
          </div>
        ))}
        <div className="phase-item">
          <dt>redone records</dt>
          <dd className="num">{fmtInt(r.redone)}</dd>
        </div>
        <div className="phase-item">
          <dt>duplicates</dt>
          <dd className={`num ${r.duplicates ? 'bad' : ''}`} data-testid="recovery-duplicates">
            {r.duplicates === null ? 'pending' : fmtInt(r.duplicates)}
          </dd>
        </div>
      </dl>
    </li>
  )
})

const RECOVERY_HINT =
  'After a kill: t0 → detection → rebalance → fence / abort → restore → catch-up (phases add up to the recovery time)'

export const RecoveryPanel = memo(function RecoveryPanel({
  recoveries,
  startedAtMs,
  nowMs,
  latest: shown = 3,
}: RecoveryPanelProps) {
  const latest = [...recoveries].sort((a, b) => b.t0 - a.t0).slice(0, shown)
  return (
    <Panel title="Recovery" hint={RECOVERY_HINT} testId="recovery-timeline">
      {latest.length === 0 ? (
        <p className="muted empty">No kills yet. Kill a worker to see its recovery here.</p>
      ) : (
        <ol className="recovery-list">
          {latest.map((r) => (
            <RecoveryRow key={r.id} r={r} startedAtMs={startedAtMs} nowMs={r.t1 === null ? nowMs : r.t1} />
          ))}
        </ol>
      )}
    </Panel>
  )
})
