import { describe, expect, it } from 'vitest'
import { TaskCorruptedError, TaskMigratedError } from './errors.ts'
import { taskOutcomes } from './task-outcomes.ts'

const task = (id: string) => ({ id })
const ok = { status: 'fulfilled', value: undefined } as const
const refused = (reason: unknown): PromiseRejectedResult => ({ status: 'rejected', reason })

describe('taskOutcomes', () => {
  it('keeps the tasks whose request succeeded, in order, beside the failure of the others', () => {
    const out = taskOutcomes([
      { tasks: [task('0_0')], outcome: ok },
      { tasks: [task('0_1')], outcome: refused(new TaskCorruptedError(['0_1'], 'connection lost')) },
      { tasks: [task('0_2')], outcome: ok },
    ])
    expect(out.sent.map((t) => t.id)).toEqual(['0_0', '0_2'])
    expect(out.failed).toBeInstanceOf(TaskCorruptedError)
    expect(out.failed?.taskIds).toEqual(['0_1'])
  })

  it("gathers each kind's task ids into one error, migrated before corrupted", () => {
    const out = taskOutcomes([
      { tasks: [task('0_0')], outcome: refused(new TaskCorruptedError(['0_0'], 'lost')) },
      { tasks: [task('0_1')], outcome: refused(new TaskMigratedError(['0_1'], 'fenced')) },
      { tasks: [task('0_2')], outcome: refused(new TaskMigratedError(['0_2'], 'fenced')) },
    ])
    expect(out.sent).toEqual([])
    expect(out.failed).toBeInstanceOf(TaskMigratedError)
    expect(out.failed?.taskIds).toEqual(['0_1', '0_2'])
  })

  it('throws any other failure as it is', () => {
    const killed = new Error('worker killed')
    expect(() =>
      taskOutcomes([
        { tasks: [task('0_0')], outcome: ok },
        { tasks: [task('0_1')], outcome: refused(killed) },
      ]),
    ).toThrow(killed)
  })

  it('reports no failure when every request succeeded', () => {
    expect(taskOutcomes([{ tasks: [task('0_0'), task('0_1')], outcome: ok }])).toEqual({
      sent: [task('0_0'), task('0_1')],
      failed: null,
    })
  })
})
