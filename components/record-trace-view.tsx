import { memo, useRef } from 'react'
import { STEP_NAMES, type RecordTrace, type Step } from '../lib/lab-protocol.ts'
import { fmtSince } from './format.ts'
import { Panel } from './panel.tsx'
import { HistoryTable } from './history-table.tsx'
import { MessagesLink } from './message-browser-link.tsx'

export interface RecordTraceViewProps {
  traces: RecordTrace[]
  startedAtMs: number
  /** Rows drawn, always (empty rows pad), so the table does not jump as traces come and go. */
  rows?: number
}

const STEPS: Step[] = [1, 2, 3, 4, 5]

/** How many crashed traces the view keeps after the lab's snapshot has dropped them. */
export const REMEMBERED_CRASHES = 2

function lastAt(t: RecordTrace): number {
  return t.steps[t.steps.length - 1]?.atMs ?? 0
}

/** The rows: remembered crashes first (newest first), then the latest traces. */
export function traceRows(traces: RecordTrace[], crashed: RecordTrace[], rows: number): RecordTrace[] {
  const pinned = [...crashed].sort((a, b) => lastAt(b) - lastAt(a)).slice(0, REMEMBERED_CRASHES)
  const ids = new Set(pinned.map((t) => t.id))
  const rest = traces.filter((t) => !ids.has(t.id)).sort((a, b) => lastAt(b) - lastAt(a))
  return [...pinned, ...rest].slice(0, rows)
}

/** Crashed traces seen since the lab (re)started: a crash is rare and the lab's trace window is short. */
function useRememberedCrashes(traces: RecordTrace[], startedAtMs: number): RecordTrace[] {
  const memory = useRef<{ startedAtMs: number; crashed: Map<string, RecordTrace> }>({ startedAtMs, crashed: new Map() })
  if (memory.current.startedAtMs !== startedAtMs) memory.current = { startedAtMs, crashed: new Map() }
  const crashed = memory.current.crashed
  for (const t of traces) if (t.crashedAtStep !== null) crashed.set(t.id, t)
  while (crashed.size > REMEMBERED_CRASHES) crashed.delete(crashed.keys().next().value!)
  return [...crashed.values()]
}

function StepCell({ trace, step, startedAtMs }: { trace: RecordTrace; step: Step; startedAtMs: number }) {
  const at = trace.steps.find((s) => s.step === step)
  const first = trace.steps[0]?.atMs ?? 0
  const crashed = trace.crashedAtStep === step
  const state = crashed ? 'crashed' : at ? 'reached' : 'not-reached'
  return (
    <td className={`trace-step trace-step-${state}`} data-testid="trace-step" data-step={step} data-state={state}>
      {at ? (
        <span className="num" title={`${STEP_NAMES[step]} at ${fmtSince(at.atMs, startedAtMs)}`}>
          {at === trace.steps[0] ? fmtSince(at.atMs, startedAtMs) : `+${Math.round(at.atMs - first)} ms`}
        </span>
      ) : crashed ? null : (
        <span className="muted">·</span>
      )}
      {crashed ? <span className="crash-tag">✕ worker died</span> : null}
    </td>
  )
}

const TRACES_HINT =
  'Every record goes through five steps: consume, process + update state, produce, broker ack, commit offset. Each ' +
  'cell shows when a sampled record reached the step (its consume since the lab started, then milliseconds after ' +
  'it); ✕ marks the step at which its worker died, which decides whether the record is redone, and under ' +
  'exactly_once whether its transaction is aborted.'

/** The five steps of a few sampled records, each with its time, and the step a crash hit. */
export const RecordTraceView = memo(function RecordTraceView({ traces, startedAtMs, rows = 6 }: RecordTraceViewProps) {
  const crashed = useRememberedCrashes(traces, startedAtMs)
  const shown = traceRows(traces, crashed, rows)
  return (
    <Panel title="Traced records" hint={TRACES_HINT} testId="record-traces">
      <HistoryTable
        className="trace-table"
        head={
          <>
            <th>record</th>
            {STEPS.map((s) => (
              <th key={s} className="trace-step-head">
                <span className="step-no">{s}</span> {STEP_NAMES[s]}
              </th>
            ))}
            <th>outcome</th>
          </>
        }
      >
        {Array.from({ length: rows }, (_, i) => {
          const t = shown[i]
          if (!t)
            return (
              /* biome-ignore lint/suspicious/noArrayIndexKey lint/a11y/noAriaHiddenOnFocusable: a blank row filling
                 slot i of the table, which is its identity; a tr is not focusable */
              <tr key={`empty-${i}`} className="trace-empty" aria-hidden="true">
                <td colSpan={7}>&nbsp;</td>
              </tr>
            )
          return (
            <tr key={t.id} data-testid="trace-row" data-crashed={t.crashedAtStep !== null} data-outcome={t.outcome}>
              <td
                className="mono trace-record"
                title={
                  `key ${t.key}, input-${t.partition} offset ${t.offset}, ${t.workerId}, ` +
                  `consumed at ${fmtSince(t.steps[0]?.atMs ?? startedAtMs, startedAtMs)}`
                }
              >
                {t.key}{' '}
                <MessagesLink
                  query={{ topic: 'input', partition: t.partition, from: t.offset, to: t.offset + 1 }}
                  testId="trace-messages"
                  title="open this input record in the message browser"
                >
                  p{t.partition}@{t.offset}
                </MessagesLink>
                <span className="muted small trace-worker">{t.workerId}</span>
              </td>
              {STEPS.map((s) => (
                <StepCell key={s} trace={t} step={s} startedAtMs={startedAtMs} />
              ))}
              <td>
                <span className={`trace-dot trace-${t.outcome}`}>{t.outcome}</span>
              </td>
            </tr>
          )
        })}
      </HistoryTable>
    </Panel>
  )
})
