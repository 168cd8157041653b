// The worker board folds the typed worker-status events both runtimes publish: a stop reason
// travels in the status (a worker process's last telemetry), survives a later status without it
// (its process's exit), and names the stopped tasks with their true lag.

import { describe, expect, it } from 'vitest'
import type { TaskStop } from '../../lib/task-stop.ts'
import type { LabRuntime, WorkerStatus } from './lab-runtime.ts'
import { stoppedTaskViews, WorkerBoard } from './worker-board.ts'

const STOP: TaskStop = { taskId: '0_1', topic: 'input', partition: 1, offset: 40, key: 'k0003', valueHead: 'not-a-number-1', handler: 'fail', message: 'task 0_1: input record at input-1@40 has a value that does not parse' }
const NO_SLOTS = { slots: [] } as unknown as LabRuntime

function status(s: Partial<WorkerStatus>): WorkerStatus {
  return { state: 'running', memberId: 'm-1', tasks: [], producers: [], error: null, ...s }
}

const task = (partition: number) => ({ partition, state: 'running', consumedOffset: 40, committedOffset: 30, inTransaction: false })

describe('the worker board and a stop reason', () => {
  it('keeps the record that stopped a worker when its exit status no longer carries it, and lists its tasks as stopped', () => {
    const board = new WorkerBoard()
    const event = (s: WorkerStatus, atMs: number) => board.onEvent({ type: 'worker-status', workerId: 'w-1', slotId: 'w-1', origin: 'remote', pid: 7, host: 'h', status: s, atMs })
    event(status({ tasks: [task(0), task(1)] }), 1_000)
    event(status({ state: 'failed', error: STOP.message, stop: STOP }), 1_100)
    event(status({ state: 'stopped', memberId: null, error: 'exited with code 1' }), 1_200)
    const workers = board.workerViews(NO_SLOTS, 1_300)
    expect(workers).toHaveLength(1)
    expect(workers[0]).toMatchObject({ id: 'w-1', state: 'stopped', stop: STOP })
    const stopped = stoppedTaskViews(workers, [], (id) => board.held(id), [30, 35], [90, 100])
    expect(stopped).toEqual([
      { taskId: '0_0', partition: 0, workerId: 'w-1', stop: null, committedOffset: 30, lag: 60 },
      { taskId: '0_1', partition: 1, workerId: 'w-1', stop: STOP, committedOffset: 35, lag: 65 },
    ])
  })

  it('forgets the stop once the worker runs again, and a task running elsewhere is not stopped', () => {
    const board = new WorkerBoard()
    const event = (s: WorkerStatus, atMs: number) => board.onEvent({ type: 'worker-status', workerId: 'w-1', slotId: 'w-1', origin: 'remote', pid: 7, host: 'h', status: s, atMs })
    event(status({ tasks: [task(0), task(1)] }), 1_000)
    event(status({ state: 'failed', stop: STOP }), 1_100)
    const running = [{ taskId: '0_0', partition: 0, workerId: 'w-2', state: 'running' as const, steps: { consumed: 0, processed: 0, produced: 0, acked: 0, committed: 0 }, position: 0, committedOffset: 0, lag: 0 }]
    expect(stoppedTaskViews(board.workerViews(NO_SLOTS, 1_200), running, (id) => board.held(id), [30, 35], [90, 100]).map((t) => t.partition)).toEqual([1])
    event(status({ tasks: [task(1)] }), 1_300)
    expect(board.workerViews(NO_SLOTS, 1_400)[0]!.stop).toBeNull()
  })
})
