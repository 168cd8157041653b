import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { IncrementalValidator } from './incremental-validator.ts'
import { validateRun } from './validator.ts'
import { CHANGELOG_TOPIC, OUTPUT_TOPIC, RunBuilder } from './fixtures/run-builder.ts'
import { AtLeastOnceProcessor, comparable, countingInspector } from './fixtures/incremental-runs.ts'
import { PLAIN_BATCH } from '../log/embedded/partition-log.ts'

const KEYS = ['a', 'b', 'c', 'd']

function values(n: number, from = 0, poisonEvery = 0) {
  return Array.from({ length: n }, (_, i) => ({
    key: KEYS[(from + i) % KEYS.length]!,
    value:
      poisonEvery > 0 && (from + i) % poisonEvery === poisonEvery - 1 ? 'oops' : String((((from + i) * 7) % 23) - 5),
  }))
}

/** Checks incrementally and validates in full, and expects the same report. */
async function expectSame(run: RunBuilder, v: IncrementalValidator, opts = run.options()) {
  const incremental = await v.check()
  const full = await validateRun(run.inspector(), opts)
  expect(comparable(incremental)).toEqual(comparable(full))
  return incremental
}

describe('IncrementalValidator against validateRun, check after check', () => {
  it('a clean run in steps, with an aborted and redone transaction and poison records', async () => {
    const run = new RunBuilder(2, { dlq: true })
    const v = new IncrementalValidator(run.inspector(), run.options({ pageSize: 3 }))
    await expectSame(run, v)
    run.appendKeyed(values(10, 0, 4))
    await expectSame(run, v)
    run.step(0, 3, 'commit')
    await expectSame(run, v)
    run.step(0, 3, 'abort')
    run.step(1, 2, 'commit')
    await expectSame(run, v)
    run.appendKeyed(values(10, 10, 4))
    run.drain(3)
    const last = await expectSame(run, v)
    expect(last).toMatchObject({
      duplicates: 0,
      lost: 0,
      abortedReads: 0,
      stateMismatches: 0,
      openTransactions: 0,
      inputRecords: 20,
      poison: 5,
      dlqRecords: 5,
    })
    expect(last.abortedReadsUncommitted).toBe(run.abortedRecords)
  })

  it('a duplicate output, appended after its provenance was decided', async () => {
    const run = new RunBuilder(2)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendKeyed(values(12))
    run.drain(4)
    await expectSame(run, v)
    const target = run.committedOutputOffsets(1)[2]!
    run.duplicateOutput(1, target)
    const r = await expectSame(run, v)
    expect(r.duplicates).toBe(1)
    run.duplicateOutput(1, target)
    const r2 = await expectSame(run, v)
    expect(r2.duplicates).toBe(2)
    expect(r2.examples.duplicates[0]!.copies).toBe(3)
  })

  it('a duplicate output seen before its input is read', async () => {
    const run = new RunBuilder(1)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(0, values(6))
    run.step(0, 3, 'commit')
    run.duplicateOutput(0, run.committedOutputOffsets(0)[1]!)
    run.duplicateOutput(0, run.committedOutputOffsets(0)[1]!)
    await expectSame(run, v)
    run.step(0, 3, 'commit')
    expect((await expectSame(run, v)).duplicates).toBe(2)
  })

  it('a lost record, and a poison record without its dead letter', async () => {
    const run = new RunBuilder(1, { dlq: true })
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(
      0,
      [1, 2, 3, 4, 5].map((x) => ({ key: 'a', value: String(x) })),
    )
    run.step(0, 2, 'commit')
    await expectSame(run, v)
    run.step(0, 3, 'commit', { dropOutputAt: 1 })
    const r = await expectSame(run, v)
    expect(r.lost).toBe(1)
    expect(r.examples.lost).toEqual([{ partition: 0, offset: 3 }])
    run.appendInput(0, [
      { key: 'a', value: 'x' },
      { key: 'a', value: '9' },
    ])
    run.step(0, 2, 'commit', { dropOutputAt: 0 })
    expect((await expectSame(run, v)).lost).toBe(2)
  })

  it('records of an aborted transaction delivered by a broken log', async () => {
    const run = new RunBuilder(2)
    const broken = run.inspector()
    const inspector = {
      ...broken,
      topics: () => broken.topics(),
      offsets: broken.offsets.bind(broken),
      committedOffsets: broken.committedOffsets.bind(broken),
      readRaw: async (...a: Parameters<typeof broken.readRaw>) =>
        (await broken.readRaw(...a)).map((r) =>
          r.control === null && r.txnOutcome === 'aborted' ? { ...r, txnOutcome: 'pending' as const } : r,
        ),
    }
    const v = new IncrementalValidator(inspector, run.options())
    run.appendKeyed(values(12))
    run.step(0, 3, 'commit')
    await v.check()
    run.step(0, 3, 'abort')
    const r = await v.check()
    const full = await validateRun(inspector, run.options())
    expect(comparable(r)).toEqual(comparable(full))
    expect(r.abortedReads).toBeGreaterThan(0)
  })

  it('an update applied twice after an abort: output, changelog and final state', async () => {
    const run = new RunBuilder(1)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(
      0,
      [1, 2, 3, 4, 5].map((x) => ({ key: 'a', value: String(x) })),
    )
    run.step(0, 3, 'commit')
    await expectSame(run, v)
    run.step(0, 2, 'abort', { keepStateOnAbort: true })
    await expectSame(run, v)
    run.step(0, 2, 'commit')
    const r = await expectSame(run, v)
    expect(r.stateMismatchesBy).toEqual({ output: 1, changelog: 1, finalState: null })
    expect(r).toMatchObject({ stateMismatches: 1, doubleAppliedUpdates: 2 })
    // Later outputs of the inflated key, check after check, with no new fault: neither figure moves.
    for (let round = 0; round < 3; round++) {
      run.appendInput(
        0,
        [6, 7, 8].map((x) => ({ key: 'a', value: String(x) })),
      )
      run.step(0, 3, 'commit')
      expect(await expectSame(run, v)).toMatchObject({
        stateMismatches: 1,
        doubleAppliedUpdates: 2,
        stateMismatchesBy: { output: 1 },
      })
    }
    const withState = new IncrementalValidator(run.inspector(), run.options({ finalState: run.finalState() }))
    expect(comparable(await withState.check())).toEqual(
      comparable(await validateRun(run.inspector(), run.options({ finalState: run.finalState() }))),
    )
  })

  it('an open transaction: read past its last stable offset later, decisions wait for it', async () => {
    const run = new RunBuilder(1)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(
      0,
      [1, 2, 3, 4].map((x) => ({ key: 'a', value: String(x) })),
    )
    run.step(0, 2, 'commit')
    await expectSame(run, v)
    run.step(0, 2, 'open')
    const open = await expectSame(run, v)
    expect(open.openTransactionPartitions).toEqual(['__consumer_offsets-0', `${CHANGELOG_TOPIC}-0`, 'output-0'])
    // Close it as its producer would.
    const producer = (run as unknown as { producer: { producerId: number; epoch: number } }).producer
    run.cluster.endTxn('eoscope-test-task', producer.producerId, producer.epoch, 'COMMIT')
    const closed = await expectSame(run, v)
    expect(closed).toMatchObject({ inputRecords: 4, outputRecords: 4, lost: 0, openTransactions: 0 })
  })

  it('a loss under an open transaction of another producer is decided once that transaction ends', async () => {
    const run = new RunBuilder(1)
    const v = new IncrementalValidator(run.inspector(), run.options())
    // Another producer opens a transaction on the output partition first: the LSO stays below everything after it.
    const other = run.cluster.initProducerId('zombie', 60_000)
    run.cluster.addPartitionsToTxn('zombie', other.producerId, other.epoch, [{ topic: OUTPUT_TOPIC, partition: 0 }])
    run.cluster.produce({
      producerId: other.producerId,
      epoch: other.epoch,
      transactionalId: 'zombie',
      batches: [{ topic: OUTPUT_TOPIC, partition: 0, baseSequence: 0, records: [{ key: 'z', value: 'zombie' }] }],
    })
    run.appendInput(
      0,
      [1, 2, 3].map((x) => ({ key: 'a', value: String(x) })),
    )
    run.step(0, 3, 'commit', { dropOutputAt: 1 })
    const waiting = await v.check()
    // validateRun sees the committed outputs past the LSO at once; the incremental validator waits.
    expect(waiting.lost).toBe(0)
    expect(waiting.outputRecords).toBe(0)
    expect(v.stats().undecidedInputs).toBe(3)
    run.cluster.endTxn('zombie', other.producerId, other.epoch, 'ABORT')
    const r = await expectSame(run, v)
    expect(r.lost).toBe(1)
    expect(v.stats()).toMatchObject({ undecidedInputs: 0, outputsAhead: 0 })
  })

  it('at-least-once: outputs ahead of the offset commit, then a crash that redoes records', async () => {
    const run = new RunBuilder(2)
    const p = new AtLeastOnceProcessor(run)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendKeyed(values(20))
    p.process(0, 4)
    p.process(1, 3)
    const ahead = await v.check()
    const fullAhead = await validateRun(run.inspector(), run.options())
    expect(ahead.outputsBeyondCommitted).toBe(7)
    expect(fullAhead.outputsBeyondCommitted).toBe(7)
    // The changelog runs ahead of the committed input: validateRun compares it anyway, this one waits.
    expect(ahead.stateMismatchesBy.changelog).toBe(0)
    expect(fullAhead.stateMismatchesBy.changelog).toBeGreaterThan(0)
    p.commit(0)
    p.commit(1)
    await expectSame(run, v)
    p.process(0, 3)
    await v.check()
    p.crash({ keepState: false })
    p.process(0, 5)
    p.commit(0)
    const r = await expectSame(run, v)
    expect(r).toMatchObject({ duplicates: 3, lost: 0, stateMismatches: 0 })
    p.process(1, 4)
    p.crash({ keepState: true })
    p.process(1, 6)
    p.commit(1)
    const r2 = await expectSame(run, v)
    expect(r2.stateMismatches).toBeGreaterThan(0)
  })

  it('a malformed output and an orphan output', async () => {
    const run = new RunBuilder(1)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(0, values(4))
    run.drain(2)
    const log = run.cluster.partitionLog({ topic: OUTPUT_TOPIC, partition: 0 })
    log.append(PLAIN_BATCH, [{ key: 'a', value: 'not json' }], 0)
    log.append(
      PLAIN_BATCH,
      [
        {
          key: 'a',
          value: JSON.stringify({ key: 'a', count: 1, sum: 1, min: 1, max: 1, source: { partition: 7, offset: 0 } }),
        },
      ],
      0,
    )
    const r = await expectSame(run, v)
    expect(r.malformed.output).toBe(1)
    expect(r.orphanOutputs).toBe(1)
  })
  const lateRecordsForDecidedOffsets =
    'late records for decided offsets: an output for a lost record, outputs and a dead letter for poison'
  it(lateRecordsForDecidedOffsets, async () => {
    const run = new RunBuilder(1, { dlq: true })
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(0, [
      { key: 'a', value: '1' },
      { key: 'a', value: '2' },
      { key: 'a', value: 'x' },
      { key: 'a', value: 'y' },
    ])
    run.step(0, 4, 'commit', { dropOutputAt: 1 })
    const r = await expectSame(run, v)
    expect(r.lost).toBe(1)
    const out = run.cluster.partitionLog({ topic: OUTPUT_TOPIC, partition: 0 })
    const value = (agg: { count: number; sum: number }, offset: number) =>
      JSON.stringify({
        key: 'a',
        count: agg.count,
        sum: agg.sum,
        min: 1,
        max: agg.sum - 1 || 1,
        source: { partition: 0, offset },
      })
    // The late output of offset 1, with the right aggregate: no longer lost, no mismatch.
    out.append(PLAIN_BATCH, [{ key: 'a', value: value({ count: 2, sum: 3 }, 1) }], 0)
    expect(comparable(await expectSame(run, v)).rows).toMatchObject({ lost: 0, duplicates: 0, stateMismatches: 0 })
    // An output naming the poison offset 2: an orphan; a second copy: a duplicate.
    out.append(PLAIN_BATCH, [{ key: 'a', value: value({ count: 9, sum: 9 }, 2) }], 0)
    expect((await expectSame(run, v)).orphanOutputs).toBe(1)
    out.append(PLAIN_BATCH, [{ key: 'a', value: value({ count: 9, sum: 9 }, 2) }], 0)
    expect((await expectSame(run, v)).duplicates).toBe(1)
  })

  it('a poison record whose dead letter comes only after it was decided lost', async () => {
    const run = new RunBuilder(1, { dlq: true })
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(0, [
      { key: 'a', value: '1' },
      { key: 'a', value: 'x' },
    ])
    run.step(0, 2, 'commit', { dropOutputAt: 1 })
    expect((await expectSame(run, v)).lost).toBe(1)
    const dlq = run.cluster.partitionLog({ topic: 'input-dlq', partition: 0 })
    const headers = {
      '__streams.errors.topic': 'input',
      '__streams.errors.partition': '0',
      '__streams.errors.offset': '1',
    }
    dlq.append(PLAIN_BATCH, [{ key: 'a', value: 'x', headers }], 0)
    const r = await expectSame(run, v)
    expect(r).toMatchObject({ lost: 0, dlqRecords: 1 })
    // Another lost poison record, then an output naming it: not lost any more, an orphan.
    run.appendInput(0, [{ key: 'a', value: 'y' }])
    run.step(0, 1, 'commit', { dropOutputAt: 0 })
    expect((await expectSame(run, v)).lost).toBe(1)
    const forged = JSON.stringify({ key: 'a', count: 1, sum: 1, min: 1, max: 1, source: { partition: 0, offset: 2 } })
    run.cluster
      .partitionLog({ topic: OUTPUT_TOPIC, partition: 0 })
      .append(PLAIN_BATCH, [{ key: 'a', value: forged }], 0)
    expect(await expectSame(run, v)).toMatchObject({ lost: 0, orphanOutputs: 1 })
  })

  it('an output seen before its input, which turns out poison, is beyond committed, then an orphan', async () => {
    const run = new RunBuilder(1)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(0, [
      { key: 'a', value: '1' },
      { key: 'a', value: 'x' },
    ])
    const forged = JSON.stringify({ key: 'a', count: 1, sum: 1, min: 1, max: 1, source: { partition: 0, offset: 1 } })
    run.cluster
      .partitionLog({ topic: OUTPUT_TOPIC, partition: 0 })
      .append(PLAIN_BATCH, [{ key: 'a', value: forged }], 0)
    expect(await expectSame(run, v)).toMatchObject({ orphanOutputs: 0, outputsBeyondCommitted: 1 })
    run.step(0, 2, 'commit')
    expect(await expectSame(run, v)).toMatchObject({ orphanOutputs: 1, outputsBeyondCommitted: 0, lost: 0 })
  })
})

describe('IncrementalValidator reads only what is new', () => {
  it('checking twice with nothing new reads nothing', async () => {
    const run = new RunBuilder(3, { dlq: true })
    const inspector = countingInspector(run.inspector())
    const v = new IncrementalValidator(inspector, run.options({ pageSize: 7 }))
    run.appendKeyed(values(60, 0, 9))
    run.drain(5)
    const first = await v.check()
    expect(inspector.readRawCalls).toBeGreaterThan(0)
    const calls = inspector.readRawCalls
    const second = await v.check()
    expect(inspector.readRawCalls).toBe(calls)
    expect(second).toEqual(first)
    run.appendKeyed(values(3, 60))
    run.drain(5)
    const before = inspector.recordsRead
    await v.check()
    // 3 input, 3 output, 3 changelog records (no poison among them) and one COMMIT marker per partition written to.
    expect(inspector.recordsRead - before).toBeLessThanOrEqual(3 * 3 + 2 * 3)
  })

  it('keeps its out-of-order structures empty over a long in-order run', async () => {
    const run = new RunBuilder(2, { dlq: true })
    const v = new IncrementalValidator(run.inspector(), run.options())
    let appended = 0
    while (appended < 100_000) {
      run.appendKeyed(values(5_000, appended, 1_000))
      appended += 5_000
      run.drain(1_000)
      await v.check()
      expect(v.stats()).toMatchObject({ undecidedInputs: 0, outputsAhead: 0, dlqAhead: 0, pendingBoundaries: 0 })
    }
    const r = await v.check()
    expect(r).toMatchObject({
      duplicates: 0,
      lost: 0,
      stateMismatches: 0,
      abortedReads: 0,
      inputRecords: 100_000,
      poison: 100,
    })
    const s = v.stats()
    expect(s.keys).toBe(KEYS.length)
    expect(s.changelogKeys).toBe(KEYS.length)
    // Only the poison offsets (routed to the dead-letter topic) are kept, to tell a later output naming them apart.
    expect(s.exceptions).toBe(100)
  }, 180_000)

  it('caps the kept exceptions, and then reports what it can no longer tell as unavailable', async () => {
    const run = new RunBuilder(1, { dlq: true })
    const v = new IncrementalValidator(run.inspector(), { ...run.options(), maxExceptionsPerPartition: 3 })
    run.appendInput(0, values(40, 0, 4))
    run.drain(10)
    const r = await v.check()
    expect(v.stats().exceptions).toBe(3)
    expect(r.duplicates).toBe(0)
    run.duplicateOutput(0, run.committedOutputOffsets(0)[25]!)
    expect((await v.check()).duplicates).toBe(1)
    // An output naming an early offset whose record was not kept: duplicate or orphan cannot be told.
    run.duplicateOutput(0, run.committedOutputOffsets(0)[0]!)
    const after = await v.check()
    expect(after.duplicates).toBeNull()
    expect(after.unavailable.map((u) => u.row)).toEqual(['duplicates'])
  })
})

describe('IncrementalValidator and retention', () => {
  it('keeps counting after retention deletes records it has read', async () => {
    const run = new RunBuilder(2)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendKeyed(values(30))
    run.drain(4)
    run.duplicateOutput(0, run.committedOutputOffsets(0)[3]!)
    const before = await expectSame(run, v)
    run.cluster.applyRetention({ maxRecords: 5 }, (tp) => v.keepFrom(tp))
    run.appendKeyed(values(10, 30))
    run.drain(4)
    const full = await validateRun(run.inspector(), run.options())
    expect(full.lost).toBeNull()
    const r = await v.check()
    expect(r.unavailable).toEqual([])
    expect(r).toMatchObject({ duplicates: 1, lost: 0, stateMismatches: 0, inputRecords: before.inputRecords + 10 })
  })

  it('marks rows unavailable when retention deleted records it had not read', async () => {
    const run = new RunBuilder(1)
    const v = new IncrementalValidator(run.inspector(), run.options())
    run.appendInput(0, values(10))
    run.drain(4)
    await v.check()
    run.appendInput(0, values(10, 10))
    run.drain(4)
    run.cluster.applyRetention({ maxRecords: 3 })
    const r = await v.check()
    expect(r.duplicates).toBeNull()
    expect(r.lost).toBeNull()
    expect(r.stateMismatches).toBeNull()
    expect(r.unavailable.some((u) => u.reason.includes('deleted before they were validated'))).toBe(true)
  })
})

// ---- random incremental schedules -------------------------------------------------------------

type Op =
  | { op: 'append'; records: { key: string; value: string }[] }
  | { op: 'step'; partition: number; n: number; end: 'commit' | 'abort'; drop: number | null; keepState: boolean }
  | { op: 'duplicate'; partition: number; pick: number }
  | { op: 'check' }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('append' as const),
      records: fc.array(
        fc.record({
          key: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
          value: fc.oneof(
            { arbitrary: fc.integer({ min: -100, max: 100 }).map(String), weight: 4 },
            { arbitrary: fc.constantFrom('x', '1.5'), weight: 1 },
          ),
        }),
        { minLength: 1, maxLength: 10 },
      ),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('step' as const),
      partition: fc.nat(2),
      n: fc.integer({ min: 1, max: 6 }),
      end: fc.constantFrom('commit' as const, 'commit' as const, 'abort' as const),
      // A dropped output (or dead letter) in about one step in four.
      drop: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.nat(5), weight: 1 }),
      keepState: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('duplicate' as const), partition: fc.nat(2), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.constant({ op: 'check' as const }) },
)

describe('IncrementalValidator on random incremental schedules', () => {
  it('equals validateRun at every check and at the end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 6 }),
        fc.array(opArb, { minLength: 10, maxLength: 40 }),
        async (partitions, dlq, pageSize, ops) => {
          const run = new RunBuilder(partitions, { dlq })
          const v = new IncrementalValidator(run.inspector(), run.options({ pageSize }))
          for (const o of ops) {
            if (o.op === 'append') run.appendKeyed(o.records)
            else if (o.op === 'step')
              run.step(o.partition % partitions, o.n, o.end, {
                dropOutputAt: o.drop ?? undefined,
                keepStateOnAbort: o.keepState,
              })
            else if (o.op === 'duplicate') {
              const outputs = run.committedOutputOffsets(o.partition % partitions)
              if (outputs.length > 0) run.duplicateOutput(o.partition % partitions, outputs[o.pick % outputs.length]!)
            } else await expectSame(run, v)
          }
          await expectSame(run, v, run.options())
        },
      ),
      { numRuns: 100 },
    )
  }, 240_000)
})
