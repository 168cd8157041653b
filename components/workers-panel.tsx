import { memo, useEffect, useState } from 'react'
import { STEP_NAMES, type Step, type WorkerView } from '../lib/lab-protocol.ts'
import { Panel } from './panel.tsx'
import { useCommand, type SendCommand } from './use-command.ts'

export interface WorkersPanelProps {
  workers: WorkerView[]
  send: SendCommand
  /** Why this backend cannot kill at a step, if it cannot. */
  killAtStep?: string
}

const STEPS: Step[] = [1, 2, 3, 4, 5]

/** Task ids in order: 0_2 before 0_10. */
const byTaskId = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

/** The kill menu: now, or when the worker next reaches one of the five steps. */
function KillMenu({
  worker,
  disabled,
  unavailable,
  run,
}: {
  worker: WorkerView
  disabled: boolean
  unavailable: string | undefined
  run: (step: Step | null) => void
}) {
  return (
    <select
      className="kill-menu"
      aria-label={`kill ${worker.id} at a step`}
      data-testid={`kill-step-${worker.id}`}
      value=""
      disabled={disabled || unavailable !== undefined}
      title={unavailable ?? 'the worker dies when it next reaches this step (no flush, no commit, no abort)'}
      onChange={(e) => {
        const v = e.currentTarget.value
        if (v !== '') run(v === 'now' ? null : (Number(v) as Step))
      }}
    >
      <option value="">Kill at…</option>
      <option value="now">now</option>
      {STEPS.map((s) => (
        <option key={s} value={String(s)}>
          at step {s} · {STEP_NAMES[s]}
        </option>
      ))}
    </select>
  )
}

/**
 * Under the actions: why a kill at a step is unavailable, the step an armed kill waits for, the last command's
 * error.
 */
function CardNotes({
  workerId,
  killAtStep,
  armed,
  error,
}: {
  workerId: string
  killAtStep: string | undefined
  armed: Step | null
  error: string | null
}) {
  return (
    <>
      {killAtStep ? (
        <p className="muted small unavailable" data-testid={`unavailable-kill-step-${workerId}`}>
          {killAtStep}
        </p>
      ) : null}
      {armed !== null ? (
        <p className="muted small" data-testid={`kill-armed-${workerId}`}>
          dies at step {armed} · {STEP_NAMES[armed]}
        </p>
      ) : null}
      <p className="control-error" role="status" aria-live="polite">
        {error ? `⚠ ${error}` : ''}
      </p>
    </>
  )
}

const WorkerCard = memo(function WorkerCard({
  worker,
  send,
  killAtStep,
}: {
  worker: WorkerView
  send: SendCommand
  killAtStep: string | undefined
}) {
  const [run, state] = useCommand(send)
  const [armed, setArmed] = useState<Step | null>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: worker.id: a card showing another worker starts disarmed
  useEffect(() => setArmed(null), [worker.id])
  const killAt = (step: Step | null) => {
    void run('killWorker', step === null ? { workerId: worker.id } : { workerId: worker.id, step }).then((r) =>
      setArmed(r.ok ? step : null),
    )
  }
  const gone = worker.state === 'killed' || worker.state === 'stopped'
  return (
    <article
      className={`card worker-card worker-${worker.state}`}
      data-testid={`worker-${worker.id}`}
      data-state={worker.state}
      aria-label={`${worker.id}, ${worker.state}`}
    >
      <header className="worker-head">
        <span className="mono strong">{worker.id}</span>
        {worker.remote ? (
          <span
            className="badge"
            data-testid={`remote-${worker.id}`}
            title="started on another machine against the same cluster and application.id"
          >
            remote
          </span>
        ) : null}
        <span className={`badge badge-${worker.state}`} data-testid={`worker-state-${worker.id}`}>
          {worker.stoppedBy === 'scenario' ? 'stopped by the scenario' : worker.state}
        </span>
      </header>
      <dl className="worker-facts">
        <dt>tasks</dt>
        <dd className="mono">{worker.taskIds.length ? [...worker.taskIds].sort(byTaskId).join(' ') : '—'}</dd>
        <dt>member</dt>
        <dd className="mono ellipsis" title={worker.memberId ?? undefined}>
          {worker.memberId ?? '—'}
        </dd>
        {worker.pid != null ? (
          <>
            <dt>process</dt>
            <dd
              className="mono ellipsis"
              data-testid={`pid-${worker.id}`}
              title="operating-system process: kill is SIGKILL, pause SIGSTOP"
            >
              pid {worker.pid}
              {worker.host ? ` @ ${worker.host}` : ''}
            </dd>
          </>
        ) : null}
        {worker.stop && gone ? (
          <>
            <dt>stopped by</dt>
            <dd className="mono worker-stop" data-testid={`stop-${worker.id}`} title={worker.stop.message}>
              poison {worker.stop.topic}-{worker.stop.partition}@{worker.stop.offset}
            </dd>
          </>
        ) : null}
        <dt>producer</dt>
        <dd className="mono">
          {worker.producers.length === 0
            ? '—'
            : worker.producers.map((p) => (
                <span
                  key={`${p.transactionalId}-${p.producerId}`}
                  className="producer"
                  title={p.transactionalId ?? 'idempotent producer (no transactional.id)'}
                >
                  id {p.producerId} · current epoch {p.epoch}
                </span>
              ))}
        </dd>
      </dl>
      <div className="worker-actions">
        <button
          type="button"
          className="danger"
          disabled={gone || state.pending}
          data-testid={`kill-${worker.id}`}
          onClick={() => run('killWorker', { workerId: worker.id })}
          title="abrupt: no flush, no commit, no abort, no leave-group"
        >
          Kill
        </button>
        <KillMenu worker={worker} disabled={gone || state.pending} unavailable={killAtStep} run={killAt} />
        {worker.state === 'paused' ? (
          <button
            type="button"
            disabled={state.pending}
            data-testid={`resume-${worker.id}`}
            onClick={() => run('resumeWorker', { workerId: worker.id })}
          >
            Resume
          </button>
        ) : (
          <button
            type="button"
            disabled={gone || state.pending || worker.remote === true}
            data-testid={`pause-${worker.id}`}
            onClick={() => run('pauseWorker', { workerId: worker.id })}
            title={
              worker.remote
                ? 'a worker on another machine can be killed from here, not paused'
                : 'the worker stalls and turns zombie; it is fenced when it wakes'
            }
          >
            Pause
          </button>
        )}
      </div>
      <CardNotes workerId={worker.id} killAtStep={killAtStep} armed={gone ? null : armed} error={state.error} />
    </article>
  )
})

export const WorkersPanel = memo(function WorkersPanel({ workers, send, killAtStep }: WorkersPanelProps) {
  const [run, state] = useCommand(send)
  return (
    <Panel
      title="Workers"
      hint="Kill is abrupt (no flush, no commit, no abort, no leave-group); a paused worker turns zombie"
      testId="workers"
      actions={
        <button type="button" data-testid="add-worker" disabled={state.pending} onClick={() => run('addWorker', {})}>
          + Add worker
        </button>
      }
    >
      <div className="worker-grid">
        {workers.map((w) => (
          <WorkerCard key={w.id} worker={w} send={send} killAtStep={killAtStep} />
        ))}
      </div>
      {state.error ? <p className="control-error">⚠ {state.error}</p> : null}
    </Panel>
  )
})
