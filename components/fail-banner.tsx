// Why the workers stopped, when a poison record met default.deserialization.exception.handler=fail:
// which record (topic, partition, offset, the value's first bytes) stopped which task, the lag
// piling up meanwhile, and two ways on: skip it (log-and-continue, the record goes to the
// dead-letter topic, the stopped workers restart; nothing is lost) or reset the lab.

import { memo } from 'react'
import type { StoppedTaskView, TaskStopView, WorkerView } from '../lib/lab-protocol.ts'
import { fmtInt } from './format.ts'
import { useCommand, type SendCommand } from './use-command.ts'

export interface FailBannerProps {
  workers: WorkerView[]
  stoppedTasks: StoppedTaskView[]
  send: SendCommand
}

interface Stop {
  stop: TaskStopView
  workerId: string
}

/**
 * One line per record that stopped a task (a record met by several workers in turn is named once, with its last
 * one).
 */
export function stopsOf(workers: readonly WorkerView[]): Stop[] {
  const byRecord = new Map<string, Stop>()
  for (const w of workers) {
    if (!w.stop || w.state === 'running' || w.state === 'paused') continue
    byRecord.set(`${w.stop.topic}-${w.stop.partition}@${w.stop.offset}`, { stop: w.stop, workerId: w.id })
  }
  return [...byRecord.values()].sort((a, b) => a.stop.partition - b.stop.partition || a.stop.offset - b.stop.offset)
}

const SKIP_TITLE =
  'switch to log-and-continue: the record goes to the dead-letter topic and the stopped workers restart from the ' +
  'committed offsets; nothing is lost'

export const FailBanner = memo(function FailBanner({ workers, stoppedTasks, send }: FailBannerProps) {
  const [runSkip, skipState] = useCommand(send)
  const [runReset, resetState] = useCommand(send)
  const stops = stopsOf(workers)
  if (stops.length === 0) return null
  const lag = stoppedTasks.reduce((a, t) => a + t.lag, 0)
  const pending = skipState.pending || resetState.pending
  const error = skipState.error ?? resetState.error
  return (
    <section className="fail-banner" role="alert" aria-labelledby="fail-banner-title" data-testid="fail-banner">
      <div className="fail-text">
        <h2 id="fail-banner-title">
          Processing stopped: a poison record under default.deserialization.exception.handler=fail
        </h2>
        <ul className="fail-stops">
          {stops.map(({ stop, workerId }) => (
            <li key={`${stop.partition}@${stop.offset}`} data-testid={`fail-stop-${stop.taskId}`}>
              task <span className="mono strong">{stop.taskId}</span> on <span className="mono">{workerId}</span>{' '}
              stopped at{' '}
              <span className="mono strong">
                {stop.topic}-{stop.partition} @ offset {stop.offset}
              </span>
              : value <code className="mono fail-value">{JSON.stringify(stop.valueHead)}</code> does not parse
            </li>
          ))}
        </ul>
        <p className="small">
          {stoppedTasks.length} task{stoppedTasks.length === 1 ? '' : 's'} stopped, lag{' '}
          <span className="num strong" data-testid="fail-lag">
            {fmtInt(lag)}
          </span>{' '}
          records and growing. Nothing is committed past the record.
        </p>
      </div>
      <div className="fail-actions">
        <button
          type="button"
          className="primary"
          data-testid="fail-skip"
          disabled={pending}
          onClick={() => runSkip('skipPoison', {})}
          title={SKIP_TITLE}
        >
          Skip it and go on
        </button>
        <button
          type="button"
          data-testid="fail-reset"
          disabled={pending}
          onClick={() => runReset('reset', {})}
          title="a fresh lab with the same guarantee"
        >
          Reset
        </button>
        <p className="muted small fail-hint">
          Skip switches the handler to log-and-continue: the record goes to the dead-letter topic, nothing is lost.
        </p>
        {error ? <p className="control-error">⚠ {error}</p> : null}
      </div>
    </section>
  )
})
