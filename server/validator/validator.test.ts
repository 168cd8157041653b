import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { LogInspector } from '../log/types.ts'
import { type ValidationReport, validateRun, violations } from './validator.ts'
import { CHANGELOG_TOPIC, RunBuilder } from './fixtures/run-builder.ts'
import { PLAIN_BATCH } from '../log/embedded/partition-log.ts'

const ROWS_ZERO = { duplicates: 0, lost: 0, abortedReads: 0, stateMismatches: 0, openTransactions: 0 }

function rows(r: ValidationReport) {
  return {
    duplicates: r.duplicates,
    lost: r.lost,
    abortedReads: r.abortedReads,
    stateMismatches: r.stateMismatches,
    openTransactions: r.openTransactions,
  }
}

const KEYS = ['a', 'b', 'c']

/** Two partitions of keyed values, processed in steps, one of them aborted and redone. */
function cleanRun(options: { dlq?: boolean } = {}): RunBuilder {
  const run = new RunBuilder(2, options)
  run.appendKeyed(Array.from({ length: 20 }, (_, i) => ({ key: KEYS[i % 3]!, value: String(i * 3 - 7) })))
  run.step(0, 3, 'commit')
  run.step(0, 3, 'abort')
  run.step(1, 4, 'commit')
  run.drain(3)
  return run
}

/** An inspector over a log that forgets to flag aborted batches: they stay 'pending' after their ABORT marker. */
function abortFlagsLost(inner: LogInspector): LogInspector {
  return {
    topics: () => inner.topics(),
    offsets: (tp) => inner.offsets(tp),
    committedOffsets: (g) => inner.committedOffsets(g),
    readRaw: async (tp, from, to, max) =>
      (await inner.readRaw(tp, from, to, max)).map((r) =>
        r.control === null && r.txnOutcome === 'aborted' ? { ...r, txnOutcome: 'pending' } : r,
      ),
  }
}

describe('validateRun', () => {
  it('reports 0 in every row for a clean exactly-once run with an aborted and redone transaction', async () => {
    const run = cleanRun()
    const report = await validateRun(run.inspector(), run.options({ finalState: run.finalState() }))
    expect(rows(report)).toEqual(ROWS_ZERO)
    expect(report).toMatchObject({
      inputRecords: 20,
      outputRecords: 20,
      poison: 0,
      orphanOutputs: 0,
      outputsBeyondCommitted: 0,
      unavailable: [],
    })
    expect(report.stateMismatchesBy).toEqual({ output: 0, changelog: 0, finalState: 0 })
    expect(report.abortedReadsUncommitted).toBe(run.abortedRecords)
    expect(report.abortedReadsUncommitted).toBe(6)
    expect(report.committedOffsets).toEqual([
      { partition: 0, committedOffset: 7, logStartOffset: 0, highWatermark: 7 },
      { partition: 1, committedOffset: 13, logStartOffset: 0, highWatermark: 13 },
    ])
    expect(violations(report, 'exactly-once')).toEqual([])
  })

  it('(a) counts a duplicate output record once, with its key', async () => {
    const run = cleanRun()
    const target = run.committedOutputOffsets(1)[4]!
    run.duplicateOutput(1, target)
    const report = await validateRun(run.inspector(), run.options())
    expect(rows(report)).toEqual({ ...ROWS_ZERO, duplicates: 1 })
    expect(report.outputRecords).toBe(21)
    const { key, source } = run.outputAt(1, target)
    expect(report.duplicateKeys).toEqual([{ key, count: 1 }])
    expect(report.examples.duplicates).toEqual([{ ...source, key, copies: 2 }])
    expect(violations(report, 'exactly-once')).toEqual([{ row: 'duplicates', value: 1 }])
    expect(violations(report, 'at-least-once')).toEqual([])
  })

  it('(b) counts an input record below the committed offset without output as lost', async () => {
    const run = new RunBuilder(1)
    run.appendInput(
      0,
      [1, 2, 3, 4, 5].map((v) => ({ key: 'a', value: String(v) })),
    )
    run.step(0, 2, 'commit')
    run.step(0, 3, 'commit', { dropOutputAt: 1 })
    const report = await validateRun(run.inspector(), run.options({ finalState: run.finalState() }))
    expect(rows(report)).toEqual({ ...ROWS_ZERO, lost: 1 })
    expect(report.examples.lost).toEqual([{ partition: 0, offset: 3 }])
    expect(report).toMatchObject({ inputRecords: 5, outputRecords: 4 })
    expect(violations(report, 'at-least-once')).toEqual([{ row: 'lost', value: 1 }])
  })

  it('(c) counts records of aborted transactions that a broken log delivers to read_committed', async () => {
    const run = cleanRun()
    const correct = await validateRun(run.inspector(), run.options())
    expect(correct.abortedReads).toBe(0)
    const broken = await validateRun(abortFlagsLost(run.inspector()), run.options())
    expect(rows(broken)).toEqual({ ...ROWS_ZERO, abortedReads: 6 })
    expect(broken.abortedReadsUncommitted).toBe(6)
  })

  const caseD =
    '(d) shows two updates applied twice after an abort as one state mismatch (key a) holding 2 double-applied ' +
    'updates'
  it(caseD, async () => {
    const run = new RunBuilder(1)
    run.appendInput(
      0,
      [1, 2, 3, 4, 5].map((v) => ({ key: 'a', value: String(v) })),
    )
    run.step(0, 3, 'commit')
    run.step(0, 2, 'abort', { keepStateOnAbort: true })
    run.step(0, 2, 'commit')
    const report = await validateRun(run.inspector(), run.options({ finalState: run.finalState() }))
    // Key a differs in its outputs, its changelog and its store: one key, counted once.
    expect(rows(report)).toEqual({ ...ROWS_ZERO, stateMismatches: 1 })
    expect(report.stateMismatchesBy).toEqual({ output: 1, changelog: 1, finalState: 1 })
    // Offsets 3 and 4 went into the state twice: the count runs 2 ahead of the replay.
    expect(report.doubleAppliedUpdates).toBe(2)
    expect(report.examples.stateMismatches[0]).toEqual({
      key: 'a',
      source: { partition: 0, offset: 3 },
      expected: { count: 4, sum: 10, min: 1, max: 4 },
      actual: { count: 6, sum: 19, min: 1, max: 5 },
      where: 'output',
    })
    expect(report.examples.stateMismatches.filter((e) => e.where === 'output')).toHaveLength(1)
    expect(violations(report, 'exactly-once')).toEqual([{ row: 'stateMismatches', value: 1 }])
    expect(violations(report, 'at-least-once')).toEqual([])
  })

  const caseD2 =
    '(d2) later outputs of an inflated key add no state mismatch and no double-applied update; a clean key adds ' +
    'none'
  it(caseD2, async () => {
    const run = new RunBuilder(1)
    run.appendInput(
      0,
      [1, 2, 3, 4, 5].map((v) => ({ key: 'a', value: String(v) })),
    )
    run.step(0, 3, 'commit')
    run.step(0, 1, 'abort', { keepStateOnAbort: true })
    run.step(0, 2, 'commit')
    const once = await validateRun(run.inspector(), run.options())
    expect(once).toMatchObject({ stateMismatches: 1, doubleAppliedUpdates: 1, duplicates: 0 })
    // Twenty more inputs for a (every output inflated by one) and ten for b (clean), no new fault.
    run.appendInput(
      0,
      Array.from({ length: 30 }, (_, i) => ({ key: i < 20 ? 'a' : 'b', value: String(i) })),
    )
    run.step(0, 30, 'commit')
    const later = await validateRun(run.inspector(), run.options())
    expect(later).toMatchObject({ stateMismatches: 1, doubleAppliedUpdates: 1, duplicates: 0, lost: 0 })
    expect(later.stateMismatchesBy.output).toBe(1)
    // A second fault on a: one more update applied twice, still one key.
    run.appendInput(
      0,
      [6, 7].map((v) => ({ key: 'a', value: String(v) })),
    )
    run.step(0, 1, 'abort', { keepStateOnAbort: true })
    run.step(0, 2, 'commit')
    expect(await validateRun(run.inspector(), run.options())).toMatchObject({
      stateMismatches: 1,
      doubleAppliedUpdates: 2,
    })
  })

  it('(e) lists every partition a transaction left open, the offsets partition included', async () => {
    const run = new RunBuilder(1)
    run.appendInput(
      0,
      [1, 2, 3, 4].map((v) => ({ key: 'a', value: String(v) })),
    )
    run.step(0, 2, 'commit')
    run.step(0, 2, 'open')
    const report = await validateRun(run.inspector(), run.options())
    expect(rows(report)).toEqual({ ...ROWS_ZERO, openTransactions: 3 })
    expect(report.openTransactionPartitions).toEqual(['__consumer_offsets-0', `${CHANGELOG_TOPIC}-0`, 'output-0'])
    expect(report).toMatchObject({ inputRecords: 2, outputRecords: 2 })
  })

  const countsOwnTopicsOnly =
    "on a shared cluster counts only the application's own topics: another group's open transaction in " +
    "__consumer_offsets is not this run's"
  it(countsOwnTopicsOnly, async () => {
    const run = new RunBuilder(1)
    run.appendInput(
      0,
      [1, 2, 3, 4].map((v) => ({ key: 'a', value: String(v) })),
    )
    run.step(0, 2, 'commit')
    run.step(0, 2, 'open')
    const shared: LogInspector = Object.create(run.inspector(), { sharedCluster: { value: true } })
    const report = await validateRun(shared, run.options())
    expect(report.openTransactionPartitions).toEqual([`${CHANGELOG_TOPIC}-0`, 'output-0'])
  })

  it('counts poison records apart, and as lost only when the dead-letter topic lacks them', async () => {
    const poisoned = (dlq: boolean, dropOutputAt?: number) => {
      const run = new RunBuilder(1, { dlq })
      run.appendInput(0, [
        { key: 'a', value: '1' },
        { key: 'a', value: 'oops' },
        { key: null, value: '2' },
        { key: 'a', value: '3' },
      ])
      run.step(0, 4, 'commit', { dropOutputAt })
      return run
    }
    const withoutDlq = poisoned(false)
    expect(await validateRun(withoutDlq.inspector(), withoutDlq.options())).toMatchObject({
      ...ROWS_ZERO,
      poison: 2,
      inputRecords: 4,
      outputRecords: 2,
      dlqTopic: null,
    })
    const routed = poisoned(true)
    expect(await validateRun(routed.inspector(), routed.options())).toMatchObject({
      ...ROWS_ZERO,
      poison: 2,
      dlqRecords: 2,
      dlqTopic: 'input-dlq',
    })
    const dropped = poisoned(true, 1)
    expect(await validateRun(dropped.inspector(), dropped.options())).toMatchObject({
      ...ROWS_ZERO,
      lost: 1,
      poison: 2,
      dlqRecords: 1,
    })
  })

  it('reports an output value that does not decode as malformed', async () => {
    const run = cleanRun()
    run.cluster
      .partitionLog({ topic: 'output', partition: 0 })
      .append(PLAIN_BATCH, [{ key: 'a', value: 'not json' }], 0)
    const report = await validateRun(run.inspector(), run.options())
    expect(report.malformed).toEqual({ output: 1, changelog: 0, dlq: 0 })
    expect(rows(report)).toEqual(ROWS_ZERO)
  })

  it('reads in pages: the report does not depend on the page size', async () => {
    const run = cleanRun({ dlq: true })
    run.duplicateOutput(0, run.committedOutputOffsets(0)[0]!)
    const big = await validateRun(run.inspector(), run.options())
    const small = await validateRun(run.inspector(), run.options({ pageSize: 1 }))
    expect(small).toEqual(big)
  })

  it('shows rows as unavailable when retention dropped the records they need', async () => {
    const run = cleanRun()
    run.cluster.applyRetention({ maxRecords: 5 })
    const report = await validateRun(run.inspector(), run.options())
    expect(report.lost).toBeNull()
    expect(report.stateMismatches).toBeNull()
    expect(report.unavailable.map((u) => u.row).sort()).toEqual(['duplicates', 'lost', 'stateMismatches'])
    expect(violations(report, 'at-least-once')).toEqual([{ row: 'lost', value: null }])
  })
})

// ---- properties over random runs --------------------------------------------------------------

interface RandomRun {
  partitions: number
  dlq: boolean
  inputs: { key: string; value: string }[]
  steps: { partition: number; n: number; end: 'commit' | 'abort' }[]
  drain: boolean
}

const randomRun: fc.Arbitrary<RandomRun> = fc.record({
  partitions: fc.integer({ min: 1, max: 3 }),
  dlq: fc.boolean(),
  inputs: fc.array(
    fc.record({
      key: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      value: fc.oneof(
        { arbitrary: fc.integer({ min: -1_000, max: 1_000 }).map(String), weight: 9 },
        { arbitrary: fc.constantFrom('x', '1.5', ''), weight: 1 },
      ),
    }),
    { maxLength: 40 },
  ),
  steps: fc.array(
    fc.record({
      partition: fc.nat(2),
      n: fc.integer({ min: 1, max: 6 }),
      end: fc.constantFrom('commit' as const, 'abort' as const),
    }),
    { maxLength: 15 },
  ),
  drain: fc.boolean(),
})

function build(spec: RandomRun): RunBuilder {
  const run = new RunBuilder(spec.partitions, { dlq: spec.dlq })
  run.appendKeyed(spec.inputs)
  for (const s of spec.steps) run.step(s.partition % spec.partitions, s.n, s.end)
  if (spec.drain) run.drain()
  return run
}

describe('validateRun on random runs', () => {
  it('reports 0 in every row for any clean run of committed and aborted transactions', async () => {
    await fc.assert(
      fc.asyncProperty(randomRun, async (spec) => {
        const run = build(spec)
        const report = await validateRun(run.inspector(), run.options({ finalState: run.finalState() }))
        expect(rows(report)).toEqual(ROWS_ZERO)
        expect(report.abortedReadsUncommitted).toBe(run.abortedRecords)
        expect(report.orphanOutputs + report.malformed.output).toBe(0)
      }),
      { numRuns: 150 },
    )
  })

  it('always detects one injected duplicate, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(randomRun, fc.nat(), fc.nat(), async (spec, pickPartition, pickRecord) => {
        const run = build(spec)
        const partition = pickPartition % spec.partitions
        const outputs = run.committedOutputOffsets(partition)
        fc.pre(outputs.length > 0)
        run.duplicateOutput(partition, outputs[pickRecord % outputs.length]!)
        const report = await validateRun(run.inspector(), run.options({ finalState: run.finalState() }))
        expect(rows(report)).toEqual({ ...ROWS_ZERO, duplicates: 1 })
        expect(report.duplicateKeys.map((k) => k.count)).toEqual([1])
      }),
      { numRuns: 150 },
    )
  })

  it('always detects one injected loss, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(randomRun, fc.nat(), fc.nat(), async (spec, pickPartition, pickRecord) => {
        const run = build({ ...spec, dlq: true })
        const partition = pickPartition % spec.partitions
        run.appendInput(partition, [{ key: `z${partition}`, value: '1' }])
        const remaining = run.remaining(partition)
        run.step(partition, remaining, 'commit', { dropOutputAt: pickRecord % remaining })
        const report = await validateRun(run.inspector(), run.options({ finalState: run.finalState() }))
        expect(rows(report)).toEqual({ ...ROWS_ZERO, lost: 1 })
      }),
      { numRuns: 150 },
    )
  })
})
