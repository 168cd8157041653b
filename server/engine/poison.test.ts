// Poison input records under Kafka Streams' two deserialization exception handler policies:
// log-and-continue sends them to the dead-letter topic with their provenance; fail stops the
// worker with a clear error. Neither loses or hides a record. Virtual clock, seeded.

import { describe, expect, it } from 'vitest'
import { DLQ_HEADERS } from '../../lib/records.ts'
import type { DeserializationPolicy } from './stream-task.ts'
import { validateRun } from '../validator/validator.ts'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { smallLab } from './__fixtures__/small-lab.ts'

function newLab(guarantee: ProcessingGuarantee, policy: DeserializationPolicy) {
  return smallLab(guarantee, {
    partitions: 2,
    ratePerSec: 500,
    maxRecords: 600,
    keys: 10,
    seed: 5,
    deserializationPolicy: policy,
  })
}

describe('poison records', () => {
  it.each(['at_least_once', 'exactly_once', 'exactly_once_v2'] as const)(
    'under %s, log-and-continue routes each to the dead-letter topic with its provenance and loses nothing',
    async (guarantee) => {
      const { lab, time } = newLab(guarantee, 'log-and-continue')
      await lab.start()
      await time.runFor(300)
      await time.runUntilSettled(lab.injectPoison(4))
      await time.runUntil(() => lab.caughtUp(), 60_000, 20)
      await time.runUntilSettled(lab.stop())
      expect(lab.deadLetters()).toBe(4)
      const dlq = []
      for (let p = 0; p < 2; p++)
        dlq.push(
          ...lab.cluster.partitionLog({ topic: lab.topics.deadLetter, partition: p }).read(0, 100, 'read_committed')
            .records,
        )
      for (const r of dlq) {
        expect(r.headers?.[DLQ_HEADERS.topic]).toBe('input')
        const source = lab.cluster
          .partitionLog({ topic: 'input', partition: Number(r.headers![DLQ_HEADERS.partition]) })
          .entryAt(Number(r.headers![DLQ_HEADERS.offset]))!
        expect(source.value).toBe(r.value)
      }
      const report = await validateRun(lab.connection.inspector(), {
        groupId: lab.groupId,
        inputTopic: 'input',
        outputTopic: 'output',
        changelogTopic: lab.topics.changelog,
        dlqTopic: lab.topics.deadLetter,
      })
      expect(report.poison).toBe(4)
      expect(report.dlqRecords).toBe(4)
      expect(report.lost).toBe(0)
    },
  )

  it('fail stops the worker that meets one, with an error naming the record, and commits nothing past it', async () => {
    const { lab, time } = newLab('exactly_once', 'fail')
    await lab.start()
    await time.runFor(300)
    await time.runUntilSettled(lab.injectPoison(1))
    await time.runUntil(() => lab.slots.some((s) => s.worker?.state === 'failed'), 30_000, 20)
    const failed = lab.slots.find((s) => s.worker?.state === 'failed')!.worker!
    expect(failed.error).toMatch(/does not parse .*default\.deserialization\.exception\.handler=fail/)
    const [, partition, offset] = /input-(\d+)@(\d+)/.exec(failed.error!)!
    // The poison record's offset is never committed: whoever meets it next fails too.
    await time.runFor(3_000)
    const committed = lab.committedOffsets()[Number(partition)] ?? 0
    expect(committed).toBeLessThanOrEqual(Number(offset))
    expect(lab.deadLetters()).toBe(0)
    await time.runUntilSettled(lab.destroy())
  })
})
