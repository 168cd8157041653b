import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, readFile, readdir, rm, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DumpInspector, OffsetsFromRecords, dumpRun, parseDumpLine, validateDump } from './dump.ts'
import { validateRun } from './validator.ts'
import { GROUP_ID, RunBuilder } from './fixtures/run-builder.ts'
import { INTERLEAVED, INTERLEAVED_OFFSETS } from './fixtures/records.ts'

const dirs: string[] = []
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eoscope-dump-'))
  dirs.push(dir)
  return dir
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/**
 * A small run with something in every row: a duplicate, an aborted transaction,
 * a poison record, a transaction left open.
 */
function smallRun(): RunBuilder {
  const run = new RunBuilder(2, { dlq: true })
  run.appendKeyed(Array.from({ length: 12 }, (_, i) => ({ key: `k${i % 4}`, value: i === 5 ? 'oops' : String(i) })))
  run.step(0, 2, 'commit')
  run.step(0, 2, 'abort')
  run.drain(3)
  run.duplicateOutput(1, run.committedOutputOffsets(1)[0]!)
  run.appendKeyed([{ key: 'k0', value: '1' }])
  run.step(run.partitionOf('k0'), 1, 'open')
  return run
}

describe('dumpRun and validateDump', () => {
  it('re-validates a dumped run to the same report', async () => {
    const run = smallRun()
    const dir = await tempDir()
    await dumpRun(run.inspector(), dir, GROUP_ID)
    const direct = await validateRun(run.inspector(), run.options())
    expect(direct).toMatchObject({ duplicates: 1, openTransactions: 3, poison: 1 })
    expect(await validateDump(dir)).toEqual(direct)
    expect(await validateDump(dir, { pageSize: 2 })).toEqual(direct)
  })

  it('re-validates a third party’s dump without topics.json, deriving the offsets from the records', async () => {
    const run = smallRun()
    const dir = await tempDir()
    await dumpRun(run.inspector(), dir, GROUP_ID)
    await unlink(join(dir, 'topics.json'))
    expect(await validateDump(dir)).toEqual(await validateRun(run.inspector(), run.options()))
  })

  it('writes one JSON line per record with the documented fields, a README and the committed offsets', async () => {
    const run = smallRun()
    const dir = await tempDir()
    await dumpRun(run.inspector(), dir, GROUP_ID)
    const names = await readdir(dir)
    expect(names).toEqual(
      expect.arrayContaining([
        'README.txt',
        'committed-offsets.json',
        'topics.json',
        'input-0.jsonl',
        'input-1.jsonl',
        'output-0.jsonl',
        'input-dlq-0.jsonl',
        '__consumer_offsets-0.jsonl',
      ]),
    )
    const lines = (await readFile(join(dir, 'output-0.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(Object.keys(lines[0])).toEqual([
      'offset',
      'key',
      'value',
      'headers',
      'timestamp',
      'producerId',
      'producerEpoch',
      'sequence',
      'transactional',
      'control',
      'txnOutcome',
    ])
    expect(lines.map((l) => l.offset)).toEqual(lines.map((_, i) => i))
    expect(lines.some((l) => l.control === 'COMMIT') && lines.some((l) => l.control === 'ABORT')).toBe(true)
    const committed = JSON.parse(await readFile(join(dir, 'committed-offsets.json'), 'utf8'))
    expect(committed.groupId).toBe(GROUP_ID)
    expect(committed.offsets).toEqual(await run.inspector().committedOffsets(GROUP_ID))
    expect(await readFile(join(dir, 'README.txt'), 'utf8')).toMatch(/txnOutcome/)
  })

  it('pages a dumped partition like the log: bounded, from any offset, markers included', async () => {
    const run = smallRun()
    const dir = await tempDir()
    await dumpRun(run.inspector(), dir, GROUP_ID)
    const dump = new DumpInspector(dir)
    const live = run.inspector()
    const tp = { topic: 'output', partition: 0 }
    try {
      expect(await dump.offsets(tp)).toEqual(await live.offsets(tp))
      for (const [from, to, max] of [
        [0, 100, 3],
        [3, 6, 10],
        [1, 100, 100],
        [0, 2, 5],
      ] as const) {
        expect(await dump.readRaw(tp, from, to, max)).toEqual(await live.readRaw(tp, from, to, max))
      }
      expect(await dump.committedOffsets('another-group')).toEqual([])
    } finally {
      dump.close()
    }
  })

  it('names the file and line of a line that is not a dumped record', () => {
    expect(() => parseDumpLine('{"offset":1}', { topic: 't', partition: 0 }, 't-0.jsonl:2')).toThrow(/t-0.jsonl:2/)
    expect(() => parseDumpLine('nope', { topic: 't', partition: 0 }, 't-0.jsonl:3')).toThrow(/not JSON/)
  })
})

describe('OffsetsFromRecords', () => {
  it('puts the last stable offset at the first record of the earliest transaction no marker closed', () => {
    const tracker = new OffsetsFromRecords()
    for (const r of INTERLEAVED) tracker.add(r)
    expect(tracker.result()).toEqual({ logStartOffset: 0, ...INTERLEAVED_OFFSETS })
  })
  it('gives an empty partition offsets 0', () => {
    expect(new OffsetsFromRecords().result()).toEqual({ logStartOffset: 0, lastStableOffset: 0, highWatermark: 0 })
  })
})
