import { memo } from 'react'
import type { WorkerView } from '../lib/lab-protocol.ts'
import { Panel } from './panel.tsx'
import { useCommand, type SendCommand } from './use-command.ts'

export interface WorkersPanelProps {
  workers: WorkerView[]
  send: SendCommand
}

const WorkerCard = memo(function WorkerCard({ worker, send }: { worker: WorkerView; send: SendCommand }) {
  const [run, state] = useCommand(send)
  const gone = worker.state === 'killed' || worker.state === 'stopped'
  return (
    <article className={`card worker-card worker-${worker.state}`} data-testid={`worker-${worker.id}`} data-state={worker.state} aria-label={`${worker.id}, ${worker.state}`}>
      <header className="worker-head">
        <span className="mono strong">{worker.id}</span>
        {worker.remote ? (
          <span className="badge" data-testid={`remote-${worker.id}`} title="started on another machine against the same cluster and application.id">
            remote
          </span>
        ) : null}
        <span className={`badge badge-${worker.state}`}>{worker.state}</span>
      </header>
      <dl className="worker-facts">
        <dt>tasks</dt>
        <dd className="mono">{worker.taskIds.length ? worker.taskIds.join(' ') : '—'}</dd>
        <dt>member</dt>
        <dd className="mono ellipsis" title={worker.memberId ?? undefined}>
          {worker.memberId ?? '—'}
        </dd>
        {worker.pid != null ? (
          <>
            <dt>process</dt>
            <dd className="mono ellipsis" data-testid={`pid-${worker.id}`} title="operating-system process: kill is SIGKILL, pause SIGSTOP">
              pid {worker.pid}
              {worker.host ? ` @ ${worker.host}` : ''}
            </dd>
          </>
        ) : null}
        <dt>producer</dt>
        <dd className="mono">
          {worker.producers.length === 0
            ? '—'
            : worker.producers.map((p) => (
                <span key={`${p.transactionalId}-${p.producerId}`} className="producer" title={p.transactionalId ?? 'idempotent producer (no transactional.id)'}>
                  id {p.producerId} · epoch {p.epoch}
                </span>
              ))}
        </dd>
      </dl>
      <div className="worker-actions">
        <button type="button" className="danger" disabled={gone || state.pending} data-testid={`kill-${worker.id}`} onClick={() => run('killWorker', { workerId: worker.id })} title="abrupt: no flush, no commit, no abort, no leave-group">
          Kill
        </button>
        {worker.state === 'paused' ? (
          <button type="button" disabled={state.pending} data-testid={`resume-${worker.id}`} onClick={() => run('resumeWorker', { workerId: worker.id })}>
            Resume
          </button>
        ) : (
          <button type="button" disabled={gone || state.pending || worker.remote === true} data-testid={`pause-${worker.id}`} onClick={() => run('pauseWorker', { workerId: worker.id })} title={worker.remote ? 'a worker on another machine can be killed from here, not paused' : 'the worker stalls and turns zombie; it is fenced when it wakes'}>
            Pause
          </button>
        )}
      </div>
      <p className="control-error" role="status" aria-live="polite">
        {state.error ? `⚠ ${state.error}` : ''}
      </p>
    </article>
  )
})

export const WorkersPanel = memo(function WorkersPanel({ workers, send }: WorkersPanelProps) {
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
          <WorkerCard key={w.id} worker={w} send={send} />
        ))}
      </div>
      {state.error ? <p className="control-error">⚠ {state.error}</p> : null}
    </Panel>
  )
})
