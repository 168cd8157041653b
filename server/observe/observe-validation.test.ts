import { describe, expect, it } from 'vitest'
import { CHANGELOG_TOPIC, GROUP_ID, INPUT_TOPIC, OUTPUT_TOPIC, RunBuilder } from '../validator/fixtures/run-builder.ts'
import { ObserveValidation, parseRecordFormat } from './observe-validation.ts'

const TARGET = {
  format: 'eoscope',
  input: INPUT_TOPIC,
  output: OUTPUT_TOPIC,
  changelog: CHANGELOG_TOPIC,
  deadLetter: null,
} as const

function run(records = 24): RunBuilder {
  const r = new RunBuilder(2)
  r.appendKeyed(Array.from({ length: records }, (_, i) => ({ key: `k${i % 5}`, value: String(i + 1) })))
  return r
}

describe('ObserveValidation: the validator on an observed application', () => {
  const cleanRunFindsNothing =
    'finds nothing wrong in a clean exactly-once run, and judges it exactly-once because its producers are ' +
    'transactional'
  it(cleanRunFindsNothing, async () => {
    const r = run()
    r.drain()
    const v = await new ObserveValidation(r.inspector(), GROUP_ID, TARGET).check('exactly-once')
    expect(v).toMatchObject({
      judgedAs: 'exactly-once',
      inputRecords: 24,
      outputRecords: 24,
      duplicates: 0,
      lost: 0,
      abortedReads: 0,
      stateMismatches: 0,
      violations: [],
    })
    expect(v.because).toContain('transactional ids')
  })

  const catchesAppendedCopy =
    'catches a copy appended to the output: a duplicate, a violation under exactly-once, only counted under ' +
    'at-least-once'
  it(catchesAppendedCopy, async () => {
    const r = run()
    r.drain()
    r.duplicateOutput(1, r.committedOutputOffsets(1)[2]!)
    const eos = await new ObserveValidation(r.inspector(), GROUP_ID, TARGET).check('exactly-once')
    expect(eos.duplicates).toBe(1)
    expect(eos.violations).toEqual([{ row: 'duplicates', value: 1 }])
    const alo = await new ObserveValidation(r.inspector(), GROUP_ID, TARGET).check('at-least-once')
    expect(alo).toMatchObject({ judgedAs: 'at-least-once', duplicates: 1, violations: [] })
  })

  it('catches an input whose output was never written: lost, a violation under either guarantee', async () => {
    const r = run()
    r.step(0, 4, 'commit', { dropOutputAt: 1 })
    r.drain()
    for (const judged of ['exactly-once', 'at-least-once'] as const) {
      const v = await new ObserveValidation(r.inspector(), GROUP_ID, TARGET).check(judged)
      expect(v.lost).toBe(1)
      expect(v.violations).toContainEqual({ row: 'lost', value: 1 })
    }
  })

  const catchesStateAcrossAbort =
    'catches state kept across an aborted transaction: its later outputs and changelog records carry a wrong ' +
    'aggregate'
  it(catchesStateAcrossAbort, async () => {
    const r = run()
    r.step(0, 3, 'abort', { keepStateOnAbort: true })
    r.drain()
    const v = await new ObserveValidation(r.inspector(), GROUP_ID, TARGET).check('exactly-once')
    expect(v.stateMismatches).toBeGreaterThan(0)
    expect(v.violations.map((x) => x.row)).toContain('stateMismatches')
    // The aborted transaction's records are not read under read_committed.
    expect(v.abortedReads).toBe(0)
  })

  const skipsOpenTransaction =
    'does not judge a transaction still open (a running application always has one): its input is not counted yet'
  it(skipsOpenTransaction, async () => {
    const r = run()
    r.drain()
    r.appendKeyed([{ key: 'k1', value: '5' }])
    const p = r.partitionOf('k1')
    r.step(p, 1, 'open')
    const observation = new ObserveValidation(r.inspector(), GROUP_ID, TARGET)
    const open = await observation.check('exactly-once')
    expect(open).toMatchObject({ inputRecords: 24, duplicates: 0, lost: 0, violations: [] })
  })

  it('runs without a changelog when told there is none', async () => {
    const r = run()
    r.drain()
    const v = await new ObserveValidation(r.inspector(), GROUP_ID, { ...TARGET, changelog: null }).check('exactly-once')
    expect(v).toMatchObject({
      changelog: null,
      inputRecords: 24,
      duplicates: 0,
      lost: 0,
      stateMismatches: 0,
      violations: [],
    })
    expect(v.notes).toEqual(['no changelog given: state is checked on the output records only'])
  })

  it('reads only what is new at each check: a duplicate written between two checks shows at the second', async () => {
    const r = run()
    r.drain()
    const observation = new ObserveValidation(r.inspector(), GROUP_ID, TARGET)
    expect((await observation.check('exactly-once')).duplicates).toBe(0)
    r.duplicateOutput(0, r.committedOutputOffsets(0)[0]!)
    expect((await observation.check('exactly-once')).duplicates).toBe(1)
  })

  it('refuses a record format it does not know, naming the ones it does', () => {
    expect(parseRecordFormat('eoscope')).toBe('eoscope')
    expect(() => parseRecordFormat('avro')).toThrow(/"avro" is not one eoscope can validate; known: eoscope/)
  })
})
