// The validator fed logs with known losses, as at_most_once leaves them: offsets committed for
// records never produced. It counts each lost record once, never as a duplicate, and the
// expectations judge them as each guarantee promises.

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RunBuilder } from './fixtures/run-builder.ts'
import { validateRun, violations } from './validator.ts'

const KEYS = ['a', 'b', 'c', 'd']

function keyedInput(run: RunBuilder, records: number): void {
  run.appendKeyed(Array.from({ length: records }, (_, i) => ({ key: KEYS[i % KEYS.length]!, value: String(i) })))
}

describe('the validator on a log with records lost by at_most_once', () => {
  it('counts the committed, never produced records as lost, none as duplicates', async () => {
    const run = new RunBuilder(1)
    run.appendInput(
      0,
      Array.from({ length: 12 }, (_, i) => ({ key: KEYS[i % 2]!, value: String(i + 1) })),
    )
    run.step(0, 4, 'commit')
    const cut = run.commitUnprocessed(0, 3)
    run.drain(2)
    const report = await validateRun(run.inspector(), run.options())
    expect(cut).toEqual([4, 5, 6])
    expect(report).toMatchObject({ inputRecords: 12, outputRecords: 9, lost: 3, duplicates: 0, abortedReads: 0 })
    expect(report.examples.lost).toEqual(cut.map((offset) => ({ partition: 0, offset })))
    // The keys of the lost records carry a state short of the replay's: their later outputs differ.
    expect(report.stateMismatches).toBe(2)
    expect(violations(report, 'at_most_once')).toEqual([])
    expect(violations(report, 'at-most-once')).toEqual([])
    expect(violations(report, 'at-least-once')).toEqual([{ row: 'lost', value: 3 }])
    expect(violations(report, 'exactly-once').map((v) => v.row)).toEqual(['lost', 'stateMismatches'])
  })

  it('fails at-most-once on a record written twice', async () => {
    const run = new RunBuilder(1)
    keyedInput(run, 6)
    run.drain(3)
    run.duplicateOutput(0, run.committedOutputOffsets(0)[1]!)
    const report = await validateRun(run.inspector(), run.options())
    expect(violations(report, 'at_most_once')).toEqual([{ row: 'duplicates', value: 1 }])
  })

  it('counts exactly the records of every cut, wherever the cuts fall (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.tuple(fc.nat(2), fc.integer({ min: 1, max: 4 }), fc.boolean()), { minLength: 1, maxLength: 12 }),
        async (partitions, plan) => {
          const run = new RunBuilder(partitions)
          keyedInput(run, 40)
          const lost = new Set<string>()
          for (const [p, n, cut] of plan) {
            const partition = p % partitions
            if (run.remaining(partition) === 0) continue
            if (cut) for (const offset of run.commitUnprocessed(partition, n)) lost.add(`${partition}@${offset}`)
            else run.step(partition, n, 'commit')
          }
          run.drain(4)
          const report = await validateRun(run.inspector(), run.options())
          expect(report.lost).toBe(lost.size)
          expect(report.duplicates).toBe(0)
          expect(report.inputRecords - report.outputRecords).toBe(lost.size)
          expect(violations(report, 'at_most_once')).toEqual([])
        },
      ),
      { numRuns: 40, seed: 35 },
    )
  })
})
