import { orNone } from '../lib/kafka-none.ts'
import { memo } from 'react'
import type { ProducerTimeline } from '../lib/lab-protocol.ts'
import { fmtInt, fmtSince } from './format.ts'
import { Panel } from './panel.tsx'
import { HistoryTable } from './history-table.tsx'

export interface ProducersViewProps {
  producers: ProducerTimeline[]
  startedAtMs: number
  nowMs: number
}

export interface EpochStep {
  epoch: number
  /** Left edge and width in percent of the timeline. */
  left: number
  width: number
  /** 0 for the lowest epoch drawn, 1 for the highest. */
  level: number
}

/** The epochs of one producer as steps on a timeline from `fromMs` to `nowMs`, each until the next began. */
export function epochSteps(epochs: ProducerTimeline['epochs'], fromMs: number, nowMs: number): EpochStep[] {
  const span = Math.max(1, nowMs - fromMs)
  const pct = (ms: number) => Math.max(0, Math.min(100, ((ms - fromMs) / span) * 100))
  const sorted = [...epochs].sort((a, b) => a.atMs - b.atMs)
  const lo = Math.min(...sorted.map((e) => e.epoch))
  const hi = Math.max(...sorted.map((e) => e.epoch))
  return sorted.map((e, i) => {
    const left = pct(e.atMs)
    const right = pct(sorted[i + 1]?.atMs ?? nowMs)
    return {
      epoch: e.epoch,
      left,
      width: Math.max(0, right - left),
      level: hi === lo ? 0.5 : (e.epoch - lo) / (hi - lo),
    }
  })
}

/** "eoscope-aggregates-changelog-3" → "changelog-3": the app's changelog topic, shortened for a chip. */
export function shortPartition(name: string): string {
  return name.replace(/^.*-changelog-(\d+)$/, 'changelog-$1')
}

const PRODUCERS_HINT =
  "Each task writes its transactions through a producer with a transactional.id; a new owner's initTransactions " +
  'bumps the epoch and fences the old one, whose writes and offset commits (step 5) are then refused; under ' +
  "exactly_once_v2 a worker's one producer keeps its epoch and a zombie is fenced by its group generation instead " +
  '(its offset commit is refused, its tasks migrate). The broker keeps the last sequence per partition and drops a ' +
  'retried batch (step 3 again after a lost step 4 ack) whose sequence it already has.'
const FENCED_TITLE =
  'fencings by producer epoch (a newer initTransactions on the same transactional.id) and by group generation ' +
  '(exactly_once_v2: the offset commit of a member the group moved on from is refused)'

const LEVEL_BASE_PX = 3
const LEVEL_SPAN_PX = 16

function EpochTimeline({
  p,
  fromMs,
  nowMs,
  startedAtMs,
}: {
  p: ProducerTimeline
  fromMs: number
  nowMs: number
  startedAtMs: number
}) {
  const steps = epochSteps(p.epochs, fromMs, nowMs)
  const span = Math.max(1, nowMs - fromMs)
  const epochs = p.epochs.map((e) => `${e.epoch} from ${fmtSince(e.atMs, startedAtMs)}`).join(', ')
  const since = (epoch: number) => fmtSince(p.epochs.find((e) => e.epoch === epoch)?.atMs ?? fromMs, startedAtMs)
  return (
    <div className="epoch-track" aria-label={`epochs of ${p.transactionalId}: ${epochs}`} role="img">
      {steps.map((s, i) => {
        const prev = steps[i - 1]
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: stateless steps in time order; unique if an epoch repeats
          <span key={`${s.epoch}-${i}`}>
            {prev ? (
              <span
                className="epoch-riser"
                style={{
                  left: `${s.left}%`,
                  bottom: `${LEVEL_BASE_PX + Math.min(prev.level, s.level) * LEVEL_SPAN_PX}px`,
                  height: `${Math.abs(s.level - prev.level) * LEVEL_SPAN_PX + 2}px`,
                }}
              />
            ) : null}
            <span
              className="epoch-step"
              data-testid="epoch-step"
              style={{
                left: `${s.left}%`,
                width: `${s.width}%`,
                bottom: `${LEVEL_BASE_PX + s.level * LEVEL_SPAN_PX}px`,
              }}
              title={`epoch ${s.epoch} from ${since(s.epoch)}`}
            >
              {i === 0 ? <span className="epoch-label num">e{s.epoch}</span> : null}
              {i > 0 && i === steps.length - 1 ? (
                <span className="epoch-label epoch-label-end num">e{s.epoch}</span>
              ) : null}
            </span>
          </span>
        )
      })}
      {p.fencings.map((f, i) => (
        <span
          // biome-ignore lint/suspicious/noArrayIndexKey: stateless marks; a fencing has no id and may share its ms
          key={`${f.atMs}-${i}`}
          className="fence-mark"
          style={{ left: `${Math.max(0, Math.min(100, ((f.atMs - fromMs) / span) * 100))}%` }}
          title={`fenced at ${fmtSince(f.atMs, startedAtMs)}: ${f.reason}`}
          data-testid="fence-mark"
        />
      ))}
    </div>
  )
}

/** How many times a producer was fenced, by epoch and by group generation. */
export function fencingCounts(fencings: ProducerTimeline['fencings']): { epoch: number; generation: number } {
  const generation = fencings.filter((f) => f.by === 'generation').length
  return { epoch: fencings.length - generation, generation }
}

function FencedCell({ fencings, startedAtMs }: { fencings: ProducerTimeline['fencings']; startedAtMs: number }) {
  const n = fencingCounts(fencings)
  return (
    <td
      className={`num r fenced-cell${fencings.length ? ' bad' : ''}`}
      data-testid="fenced-count"
      data-epoch={n.epoch}
      data-generation={n.generation}
      title={fencings.map((f) => `${fmtSince(f.atMs, startedAtMs)} (by ${f.by ?? 'epoch'}): ${f.reason}`).join('\n')}
    >
      {fmtInt(n.epoch)} · {fmtInt(n.generation)}
    </td>
  )
}

/**
 * One row per transactional.id: producer id, epochs over time, fencings and the broker's last sequence per
 * partition.
 */
export const ProducersView = memo(function ProducersView({ producers, startedAtMs, nowMs }: ProducersViewProps) {
  const sorted = [...producers].sort((a, b) =>
    a.transactionalId.localeCompare(b.transactionalId, 'en', { numeric: true }),
  )
  let fromMs = nowMs
  for (const p of producers) for (const e of p.epochs) fromMs = Math.min(fromMs, e.atMs)
  fromMs = Math.max(startedAtMs, Math.min(fromMs, nowMs - 1000))
  return (
    <Panel title="Producers" hint={PRODUCERS_HINT} testId="producers">
      <HistoryTable
        className="producers-table"
        scrollClassName="producers-scroll"
        head={
          <>
            <th>transactional.id</th>
            <th className="r">producer id</th>
            <th className="epoch-col">
              epoch over time <span className="muted">({fmtSince(fromMs, startedAtMs)} → now)</span>
            </th>
            <th className="r" title={FENCED_TITLE}>
              fenced <span className="muted">epoch · gen.</span>
            </th>
            <th>last sequence per partition</th>
          </>
        }
        after={
          sorted.length === 0 ? (
            <p className="muted empty">
              No transactional producers: at_least_once and at_most_once write without transactions.
            </p>
          ) : null
        }
      >
        {sorted.map((p) => (
          <tr
            key={`${p.transactionalId}|${p.producerId}`}
            data-testid="producer-row"
            data-transactional-id={p.transactionalId}
          >
            <td className="mono ellipsis" title={p.transactionalId}>
              {p.transactionalId}
            </td>
            <td className="num r">{p.producerId}</td>
            <td className="epoch-col">
              <EpochTimeline p={p} fromMs={fromMs} nowMs={nowMs} startedAtMs={startedAtMs} />
            </td>
            <FencedCell fencings={p.fencings} startedAtMs={startedAtMs} />
            <td className="seq-cell">
              {p.lastSequence.map((s) => (
                <span
                  key={s.partition}
                  className="chip mono"
                  title={`the broker's last sequence for producer ${p.producerId} on ${s.partition}`}
                >
                  {shortPartition(s.partition)} <b className="num">{orNone(s.sequence)}</b>
                </span>
              ))}
              {p.lastSequence.length === 0 ? <span className="muted">—</span> : null}
            </td>
          </tr>
        ))}
      </HistoryTable>
    </Panel>
  )
})
