// groupFormed, the gate every scenario passes before it picks a worker to fault: the group must
// have settled, as the workers' own reports tell it, or the worker picked is named the owner of
// tasks another worker already runs.

import { describe, expect, it } from 'vitest'
import type { LabRuntime, SlotProcessState } from '../../runtime/lab-runtime.ts'
import { groupFormed, pickWorkerWithTasks } from './scenario.ts'

type Reported = { state?: SlotProcessState; tasks: number[] }

/** A lab whose workers report these tasks (the slots' views: on Kafka, each worker's last report). */
function lab(partitions: number, workers: Reported[]): LabRuntime {
  const slots = workers.map((w, i) => ({
    slotId: `worker-${i + 1}`,
    process: { state: w.state ?? 'running' },
    worker: {
      id: `worker-${i + 1}`,
      memberId: `m${i + 1}`,
      state: 'running',
      tasks: new Map(w.tasks.map((p) => [p, { partition: p, state: 'RUNNING', consumedOffset: 0 }])),
    },
    startedAtMs: 0,
  }))
  const random = { pick: <T>(xs: readonly T[]) => xs[0]! }
  return { partitions, liveSlots: () => slots, random } as unknown as LabRuntime
}

describe('groupFormed', () => {
  it('holds once every partition has one owner and every running worker owns one', () => {
    expect(groupFormed(lab(6, [{ tasks: [0, 1] }, { tasks: [2, 3] }, { tasks: [4, 5] }]))).toBe(true)
  })

  it('does not hold while a partition has no owner', () => {
    expect(groupFormed(lab(6, [{ tasks: [0, 1] }, { tasks: [2, 3] }, { tasks: [4] }]))).toBe(false)
  })

  it('does not hold while a running worker owns nothing (it has not joined yet)', () => {
    expect(groupFormed(lab(6, [{ tasks: [0, 1, 2, 3, 4, 5] }, { tasks: [] }, { tasks: [] }]))).toBe(false)
  })

  const notHeldWhileTwoClaim =
    'does not hold while two workers claim one partition: the first to join has not yet reported what it gave up'
  it(notHeldWhileTwoClaim, () => {
    // worker-1 joined alone and took all six; the rebalance moved four of them, worker-1's report still lists them.
    const reports = lab(6, [{ tasks: [0, 1, 2, 3, 4, 5] }, { tasks: [2, 3] }, { tasks: [4, 5] }])
    expect(groupFormed(reports)).toBe(false)
  })

  it("counts only running workers: a paused one's tasks are the group's to move", () => {
    expect(groupFormed(lab(6, [{ tasks: [0, 1], state: 'paused' }, { tasks: [0, 1, 2, 3] }, { tasks: [4, 5] }]))).toBe(
      true,
    )
  })

  it('with more workers than partitions, holds once every partition is owned', () => {
    expect(groupFormed(lab(2, [{ tasks: [0] }, { tasks: [1] }, { tasks: [] }]))).toBe(true)
  })
})

describe('pickWorkerWithTasks', () => {
  it('picks among running workers that own a task', () => {
    expect(pickWorkerWithTasks(lab(6, [{ tasks: [] }, { tasks: [0, 1, 2, 3, 4, 5] }]))).toBe('worker-2')
  })

  it('fails when no running worker owns a task', () => {
    expect(() => pickWorkerWithTasks(lab(6, [{ tasks: [0], state: 'paused' }, { tasks: [] }]))).toThrow(
      /no live worker owns a task yet/,
    )
  })
})
