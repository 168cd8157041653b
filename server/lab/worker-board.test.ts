// The worker board folds the typed worker-status events both runtimes publish: a stop reason
// travels in the status (a worker process's last telemetry), survives a later status without it
// (its process's exit), and names the stopped tasks with their true lag.

import { describe, expect, it } from 'vitest'
import { defaultStreamsConfig } from '../../lib/streams-config.ts'
import type { TaskStop } from '../../lib/task-stop.ts'
import { MockTime } from '../log/time.ts'
import { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import type { LabRuntime, WorkerStatus } from '../runtime/lab-runtime.ts'
import { stoppedTaskViews, TaskStepTotals, WorkerBoard } from './worker-board.ts'

const STOP: TaskStop = {
  taskId: '0_1',
  topic: 'input',
  partition: 1,
  offset: 40,
  key: 'k0003',
  valueHead: 'not-a-number-1',
  handler: 'fail',
  message: 'task 0_1: input record at input-1@40 has a value that does not parse',
}
const NO_SLOTS = { slots: [] } as unknown as LabRuntime

function status(s: Partial<WorkerStatus>): WorkerStatus {
  return { state: 'running', memberId: 'm-1', tasks: [], producers: [], error: null, ...s }
}

const task = (partition: number) => ({
  partition,
  state: 'running',
  consumedOffset: 40,
  committedOffset: 30,
  inTransaction: false,
})

describe('the worker board and a stop reason', () => {
  const keepsStoppingRecord =
    'keeps the record that stopped a worker when its exit status no longer carries it, and lists its tasks as ' +
    'stopped'
  it(keepsStoppingRecord, () => {
    const board = new WorkerBoard()
    const event = (s: WorkerStatus, atMs: number) =>
      board.onEvent({
        type: 'worker-status',
        workerId: 'w-1',
        slotId: 'w-1',
        origin: 'remote',
        pid: 7,
        host: 'h',
        status: s,
        atMs,
      })
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
    const event = (s: WorkerStatus, atMs: number) =>
      board.onEvent({
        type: 'worker-status',
        workerId: 'w-1',
        slotId: 'w-1',
        origin: 'remote',
        pid: 7,
        host: 'h',
        status: s,
        atMs,
      })
    event(status({ tasks: [task(0), task(1)] }), 1_000)
    event(status({ state: 'failed', stop: STOP }), 1_100)
    const running = [
      {
        taskId: '0_0',
        partition: 0,
        workerId: 'w-2',
        state: 'running' as const,
        steps: { consumed: 0, processed: 0, produced: 0, acked: 0, committed: 0 },
        position: 0,
        committedOffset: 0,
        lag: 0,
      },
    ]
    expect(
      stoppedTaskViews(board.workerViews(NO_SLOTS, 1_200), running, (id) => board.held(id), [30, 35], [90, 100]).map(
        (t) => t.partition,
      ),
    ).toEqual([1])
    event(status({ tasks: [task(1)] }), 1_300)
    expect(board.workerViews(NO_SLOTS, 1_400)[0]!.stop).toBeNull()
  })
})

describe('step counters per task, across owners', () => {
  const SLOTS = { slots: [] } as unknown as LabRuntime
  const steps = (n: number) => ({ consumed: n, processed: n, produced: n, acked: n, committed: n })
  const running = (partition: number, n: number) => ({ ...task(partition), steps: steps(n) })

  it('keep counting when a task moves to another worker, and when the first owner takes it back', () => {
    const board = new WorkerBoard()
    const report = (workerId: string, tasks: ReturnType<typeof running>[], atMs: number) =>
      board.onEvent({
        type: 'worker-status',
        workerId,
        slotId: workerId,
        origin: 'remote',
        pid: 1,
        host: 'h',
        status: status({ memberId: `m-${workerId}`, tasks }),
        atMs,
      })
    const counted = (now: number) =>
      board.taskViews(SLOTS, [null, null], [0, 0], now).map((t) => [t.workerId, t.steps.consumed])
    report('w-1', [running(0, 100), running(1, 50)], 1_000)
    expect(counted(1_000)).toEqual([
      ['w-1', 100],
      ['w-1', 50],
    ])
    // w-1 is killed: its last status goes silent; w-2 takes task 0_0 and counts from 0.
    board.onEvent({ type: 'worker-killed', workerId: 'w-1', atMs: 1_100 } as never)
    report('w-2', [running(0, 10), running(1, 5)], 1_500)
    expect(counted(1_500)).toEqual([
      ['w-2', 110],
      ['w-2', 55],
    ])
    report('w-2', [running(0, 40), running(1, 25)], 2_000)
    expect(counted(2_000)).toEqual([
      ['w-2', 140],
      ['w-2', 75],
    ])
    // A worker starting the task over (its counters go down) keeps what it had counted.
    report('w-2', [running(0, 3), running(1, 30)], 2_500)
    expect(counted(2_500)).toEqual([
      ['w-2', 143],
      ['w-2', 80],
    ])
  })

  it('counts each owner once when the old and the new owner claim a task in turn during a rebalance', () => {
    const totals = new TaskStepTotals()
    totals.note(0, 'w-1', steps(100))
    totals.note(0, 'w-2', steps(5))
    totals.note(0, 'w-1', steps(100))
    expect(totals.note(0, 'w-2', steps(8)).committed).toBe(108)
  })
})

describe('fencings by group generation (exactly_once_v2)', () => {
  it('adds a zombie worker whose tasks migrated to its producer’s fencings, by generation', () => {
    const board = new WorkerBoard()
    const producers = [{ transactionalId: 'app-worker-2', producerId: 7, epoch: 0 }]
    board.onEvent({
      type: 'worker-status',
      workerId: 'worker-2',
      slotId: 'worker-2',
      origin: 'own',
      status: status({ tasks: [task(1)], producers }),
      atMs: 1_000,
    } as never)
    board.onEvent({
      type: 'task-migrated',
      workerId: 'worker-2',
      taskIds: ['0_1'],
      reason: 'CommitFailed: the group has moved on to generation 3',
      atMs: 2_000,
    } as never)
    board.onEvent({
      type: 'task-migrated',
      workerId: 'worker-2',
      taskIds: ['0_1'],
      reason: 'task corrupted: changelog gap',
      atMs: 2_500,
    } as never)
    const timelines = [
      {
        transactionalId: 'app-worker-2',
        producerId: 7,
        epochs: [{ epoch: 0, atMs: 900 }],
        fencings: [{ atMs: 1_500, reason: 'older epoch fenced' }],
        lastSequence: [],
      },
    ]
    const v2 = board.withGenerationFencings(timelines, 'exactly_once_v2')
    expect(v2[0]!.fencings.map((f) => [f.atMs, f.by ?? 'epoch'])).toEqual([
      [1_500, 'epoch'],
      [2_000, 'generation'],
    ])
    expect(v2[0]!.fencings[1]!.reason).toContain('worker-2 fenced by the group generation')
    // Under exactly_once a migrated task's producer was fenced by its epoch: nothing is added.
    expect(board.withGenerationFencings(timelines, 'exactly_once')[0]!.fencings).toHaveLength(1)
  })
})

describe('a zombie under exactly_once_v2, on the embedded engine', () => {
  it('shows as a fencing by generation on its worker’s producer', async () => {
    const time = new MockTime()
    const config = defaultStreamsConfig('exactly_once_v2')
    const rt = new InProcessRuntime(time, {
      config,
      workers: 2,
      partitions: 2,
      ratePerSec: 200,
      maxRecords: 300,
      keys: 10,
      seed: 42,
      latency: 'default',
      restartAfterMs: null,
      deserializationPolicy: 'log-and-continue',
      traceIntervalMs: 1_000,
    })
    const board = new WorkerBoard()
    let expired = false
    rt.onEvent((e) => {
      board.onEvent(e)
      if ('source' in e && e.type === 'group' && e.event.type === 'member-expired') expired = true
    })
    await rt.start()
    await time.runUntil(() => rt.generator.sent > 40 && (rt.slotOf('worker-1')?.worker?.tasks.size ?? 0) > 0, 10_000, 1)
    const zombie = rt.slotOf('worker-1')!.worker!
    const transactionalId = zombie.producers().find((p) => p.transactionalId !== null)!.transactionalId!
    expect(rt.pause('worker-1')).toBe(true)
    await time.runUntil(() => expired, config['session.timeout.ms'] * 5)
    await time.runFor(config['session.timeout.ms'])
    expect(rt.resume('worker-1')).toBe(true)
    await time.runUntil(() => board.withGenerationFencings([], 'exactly_once_v2').length > 0, 10_000)
    const fenced = board.withGenerationFencings([], 'exactly_once_v2')
    expect(fenced.map((tl) => tl.transactionalId)).toEqual([transactionalId])
    expect(fenced[0]!.fencings.every((f) => f.by === 'generation')).toBe(true)
    await time.runUntilSettled(rt.stop(), 60_000)
  })
})
