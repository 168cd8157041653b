// A task's producer fenced in the middle of a batch must not take the other tasks of that batch
// down with it: their records are still sent, and no commit ever passes the records the broker
// acknowledged. (Found by the Kafka chaos soak as lost records.)

import { describe, expect, it } from 'vitest'
import { validateRun } from '../validator/validator.ts'
import { smallLab } from './__fixtures__/small-lab.ts'

describe('a fencing in the middle of a batch', () => {
  it('loses nothing and duplicates nothing when one task of a worker is fenced again and again', async () => {
    const { lab, time } = smallLab('exactly_once', { workers: 1, maxRecords: 8_000, seed: 3 })
    const migrated: string[] = []
    lab.onEvent((e) => {
      if (e.type === 'task-migrated') migrated.push(...e.taskIds)
    })
    await lab.start()
    await time.runFor(500)
    // Something else takes task 0_1's transactional.id (as a stale owner would): the worker's
    // producer for 0_1 is fenced at its next send, while the other three tasks carry on.
    for (let i = 0; i < 5; i++) {
      lab.cluster.initProducerId(`${lab.groupId}-0_1`, 10_000)
      await time.runFor(400)
    }
    await time.runUntil(() => lab.caughtUp(), 60_000, 20)
    await time.runUntilSettled(lab.stop())
    expect(migrated).toContain('0_1')
    const report = await validateRun(lab.connection.inspector(), {
      groupId: lab.groupId,
      inputTopic: 'input',
      outputTopic: 'output',
      changelogTopic: lab.topics.changelog,
      dlqTopic: lab.topics.deadLetter,
    })
    expect(report.inputRecords).toBe(8_000)
    expect(report.lost).toBe(0)
    expect(report.duplicates).toBe(0)
    expect(report.stateMismatches).toBe(0)
    expect(report.openTransactions).toBe(0)
  })
})
