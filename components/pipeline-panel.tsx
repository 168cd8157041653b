import { memo } from 'react'
import {
  STEP_NAMES,
  type RecordTrace,
  type Step,
  type StepCounters,
  type StoppedTaskView,
  type TaskView,
} from '../lib/lab-protocol.ts'
import { fmtCompact, fmtInt } from './format.ts'
import { Panel } from './panel.tsx'

export interface PipelinePanelProps {
  tasks: TaskView[]
  /** Tasks no worker runs because a worker failed: shown with their true lag. */
  stopped?: StoppedTaskView[]
  traces: RecordTrace[]
  nowMs: number
  /** Sampled records shown per task at most (the in-flight ones first). */
  tracesPerTask?: number
}

/** A finished trace stays on screen this long after its last step. */
export const TRACE_LINGER_MS = 3000
/** At most this many traces per task (the in-flight ones first). */
export const TRACES_PER_TASK = 3

/** The traces worth showing for one task: in flight, or finished within TRACE_LINGER_MS. */
export function visibleTraces(traces: RecordTrace[], nowMs: number, perTask = TRACES_PER_TASK): RecordTrace[] {
  const lastAt = (t: RecordTrace) => t.steps[t.steps.length - 1]?.atMs ?? 0
  return traces
    .filter((t) => t.outcome === 'in-flight' || nowMs - lastAt(t) <= TRACE_LINGER_MS)
    .sort((a, b) => Number(b.outcome === 'in-flight') - Number(a.outcome === 'in-flight') || lastAt(b) - lastAt(a))
    .slice(0, perTask)
}

const STEPS: Step[] = [1, 2, 3, 4, 5]
const COUNTER_OF: Record<Step, keyof StepCounters> = {
  1: 'consumed',
  2: 'processed',
  3: 'produced',
  4: 'acked',
  5: 'committed',
}

function lastStep(trace: RecordTrace): Step {
  return trace.steps.length ? trace.steps[trace.steps.length - 1]!.step : 1
}

/** The height of one row of record chips, in px (the chips' line height and a gap). */
export const CHIP_ROW_PX = 16

const TaskRow = memo(function TaskRow({ task, traces }: { task: TaskView; traces: RecordTrace[] }) {
  const placed = placeTraces(traces)
  const chipRows = Math.max(1, ...placed.map((p) => p.row + 1))
  return (
    /* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: a row of the pipeline's CSS-grid
       table (.task-row) whose record chips move across its cells; the role gives it table semantics, not a widget's */
    <div
      className={`task-row task-${task.state}`}
      role="row"
      data-testid={`task-${task.taskId}`}
      style={{ ['--chip-rows' as string]: chipRows }}
    >
      {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: the row header of the
          pipeline's CSS-grid table */}
      <div className="task-id" role="rowheader">
        <span className="mono">{task.taskId}</span>
        <span className="muted small">{task.workerId}</span>
        {task.state !== 'running' ? <span className={`badge badge-${task.state}`}>{task.state}</span> : null}
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: the CSS-grid cell the record chips move across (.trace-track) */}
      <div className="task-steps" role="cell">
        {STEPS.map((s) => (
          <div key={s} className="step-cell">
            <span className="num">{fmtCompact(task.steps[COUNTER_OF[s]])}</span>
          </div>
        ))}
        <div className="trace-track" aria-hidden="true">
          {placed.map(({ trace: t, step, row }) => (
            <span
              key={t.id}
              className="trace-slot"
              style={{ transform: `translate(${(step - 1) * 100}%, ${row * CHIP_ROW_PX}px)` }}
            >
              <span
                className={`trace-dot trace-${t.outcome}${t.crashedAtStep ? ' trace-crashed' : ''}`}
                title={traceTitle(t)}
                data-testid="trace-dot"
              >
                {t.key}
              </span>
            </span>
          ))}
        </div>
      </div>
      <TaskFigures lag={task.lag} committedOffset={task.committedOffset} />
    </div>
  )
})

/** A task row's last two cells: its lag and its committed offset. */
function TaskFigures({
  lag,
  committedOffset,
  lagTitle,
}: {
  lag: number
  committedOffset: number | null
  lagTitle?: string
}) {
  return (
    <>
      {/* biome-ignore lint/a11y/useSemanticElements: a cell of the pipeline's CSS-grid table */}
      <div className="num task-figure" role="cell" title={lagTitle}>
        {fmtInt(lag)}
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a cell of the pipeline's CSS-grid table */}
      <div className="num task-figure" role="cell">
        {fmtInt(committedOffset)}
      </div>
    </>
  )
}

const StoppedRow = memo(function StoppedRow({ task }: { task: StoppedTaskView }) {
  return (
    /* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: a row of the pipeline's CSS-grid
       table (.task-row); the role gives it table semantics, not a widget's */
    <div className="task-row task-stopped" role="row" data-testid={`stopped-task-${task.taskId}`}>
      {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: the row header of the
          pipeline's CSS-grid table */}
      <div className="task-id" role="rowheader">
        <span className="mono">{task.taskId}</span>
        <span className="muted small">{task.workerId}</span>
        <span className="badge badge-killed">stopped</span>
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a cell of the pipeline's CSS-grid table */}
      <div className="task-steps stopped-reason" role="cell">
        {task.stop ? (
          <span>
            stopped by the poison record at{' '}
            <span className="mono">
              {task.stop.topic}-{task.stop.partition}@{task.stop.offset}
            </span>
          </span>
        ) : (
          <span>stopped with its worker ({task.workerId} failed)</span>
        )}
      </div>
      <TaskFigures
        lag={task.lag}
        committedOffset={task.committedOffset}
        lagTitle="input high watermark minus the group's committed offset: it grows while the task is stopped"
      />
    </div>
  )
})

/**
 * Where each trace sits: its latest step (or the step its worker died at), stacked in rows under the
 * others there, so two chips never overlap (side by side, a column's 80 px held two keys at most).
 */
export function placeTraces(traces: RecordTrace[]): { trace: RecordTrace; step: Step; row: number }[] {
  const perStep = new Map<Step, number>()
  return [...traces]
    .sort((a, b) => a.offset - b.offset)
    .map((trace) => {
      const step = trace.crashedAtStep ?? lastStep(trace)
      const row = perStep.get(step) ?? 0
      perStep.set(step, row + 1)
      return { trace, step, row }
    })
}

function traceTitle(t: RecordTrace): string {
  const died = t.crashedAtStep ? `, worker died at step ${t.crashedAtStep}` : ''
  return `${t.key} @ p${t.partition}:${t.offset} (${t.workerId}) — ${t.outcome}${died}`
}

export const PipelinePanel = memo(function PipelinePanel({
  tasks,
  stopped = NO_STOPPED,
  traces,
  nowMs,
  tracesPerTask = TRACES_PER_TASK,
}: PipelinePanelProps) {
  const byPartition = new Map<number, RecordTrace[]>()
  for (const t of traces) {
    const list = byPartition.get(t.partition) ?? []
    list.push(t)
    byPartition.set(t.partition, list)
  }
  const sorted = [...tasks].sort((a, b) => a.partition - b.partition)
  return (
    <Panel title="Pipeline" hint={PIPELINE_HINT} testId="pipeline">
      {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/noNoninteractiveTabindex: a table laid out by CSS grid
          (.task-row) whose record chips move across cells, the roles give it table semantics; it scrolls sideways in a
          narrow window, so it is focusable for a keyboard to scroll it (axe: scrollable-region-focusable) */}
      <div className="pipeline" role="table" aria-label="steps per task" tabIndex={0}>
        {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: the head row of the
            pipeline's CSS-grid table */}
        <div className="task-row task-head" role="row">
          {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: a column header of the
              pipeline's CSS-grid table */}
          <div role="columnheader">task</div>
          {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: a column header of the
              pipeline's CSS-grid table */}
          <div className="task-steps" role="columnheader">
            {STEPS.map((s) => (
              <div key={s} className="step-cell step-name">
                <span className="step-no">{s}</span> {STEP_NAMES[s]}
              </div>
            ))}
          </div>
          {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: a column header of the
              pipeline's CSS-grid table */}
          <div role="columnheader" className="task-figure" title="input high watermark minus committed offset">
            lag
          </div>
          {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: a column header of the
              pipeline's CSS-grid table */}
          <div
            role="columnheader"
            className="task-figure"
            title={
              "the group's committed offset of the input partition: the next record a new owner reads. Step 5 " +
              'counts the records below it, each once; a stopped task shows it alone'
            }
          >
            committed offset
          </div>
        </div>
        {sorted.map((task) => (
          <TaskRow
            key={task.taskId}
            task={task}
            traces={visibleTraces(byPartition.get(task.partition) ?? NO_TRACES, nowMs, tracesPerTask)}
          />
        ))}
        {stopped.map((task) => (
          <StoppedRow key={task.taskId} task={task} />
        ))}
        {sorted.length === 0 && stopped.length === 0 ? <p className="muted">No tasks assigned (rebalancing?)</p> : null}
      </div>
      <div className="legend small muted">
        <span className="trace-dot trace-in-flight">k</span> in flight{' '}
        <span className="trace-dot trace-committed">k</span> committed{' '}
        <span className="trace-dot trace-aborted">k</span>
        {' aborted '}
        <span className="trace-dot trace-redone">k</span> redone
      </div>
    </Panel>
  )
})

const PIPELINE_HINT =
  'Per task: records through each step; sampled records move along the steps ' +
  '(set the input rate to 1/s to follow them)'
const NO_TRACES: RecordTrace[] = []
const NO_STOPPED: StoppedTaskView[] = []
