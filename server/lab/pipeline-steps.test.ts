// The pipeline's step 5 beside its committed column (issue 34: "⑤ commit offset" 1,417 beside
// "committed" 1,428, later 2,902 vs 3,075): one fact, the records of the task's input partition
// whose offsets the group has committed, shown as one figure.

import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import { Lab } from './lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'

describe("the pipeline's commit step", () => {
  it('counts the records below the group’s committed offset, through a kill and its recovery', async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 2, partitions: 3, seed: 11 }), {
      ratePerSec: 600,
      snapshotIntervalMs: 100,
      validateIntervalMs: 1_000,
    })
    await time.runUntilSettled(lab.start())
    const check = (when: string) => {
      const s = lab.snapshot()
      expect(s.tasks.length, when).toBeGreaterThan(0)
      for (const t of s.tasks) expect(t.steps.committed, `${when}: ${t.taskId}`).toBe(t.committedOffset ?? 0)
      if (s.tasks.length === 3)
        expect(
          s.tasks.reduce((n, t) => n + t.steps.committed, 0),
          when,
        ).toBe(s.totals.committedInput)
    }
    for (let i = 0; i < 10; i++) {
      await time.runFor(370)
      check(`running, read ${i}`)
    }
    const victim = lab.snapshot().workers.find((w) => w.taskIds.length > 0)!.id
    expect(await time.runUntilSettled(lab.execute('killWorker', { workerId: victim, step: 4 }))).toEqual({ ok: true })
    await time.runFor(8_000)
    for (let i = 0; i < 10; i++) {
      await time.runFor(370)
      check(`after the kill, read ${i}`)
    }
    await time.runUntilSettled(lab.close())
  })
})
