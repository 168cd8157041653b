import { describe, expect, it } from 'vitest'
import { isTaskId, partitionOfTask, taskIdOf } from './task-id.ts'

describe('task ids', () => {
  it('formats and parses the same task', () => {
    for (const p of [0, 1, 11, 4096]) expect(partitionOfTask(taskIdOf(p))).toBe(p)
    expect(taskIdOf(3)).toBe('0_3')
    expect(taskIdOf(3, 2)).toBe('2_3')
  })

  it('refuses what is not a task id', () => {
    for (const bad of ['', '3', '0_', '_3', '0_3_1', 'a_3', '0-3']) {
      expect(isTaskId(bad)).toBe(false)
      expect(() => partitionOfTask(bad)).toThrow(/not a task id/)
    }
  })
})
