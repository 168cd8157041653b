// The second reading of a dump (scripts/audit-dump.mjs), checked on dumps written by hand with a known duplicate, a
// known loss, an aborted copy and a dead letter, then against `eoscope run` itself: the acceptance runs of
// at_most_once, whose figures it must match without sharing a line of the validator.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseCommandLine } from '../server/cli/flags.ts'
import { RUN, runCommand } from '../server/cli/run-command.ts'
import { auditDump } from './audit-dump.mjs'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eoscope-audit-'))
  dirs.push(dir)
  return dir
}

type Line = { offset: number; value: string | null; txnOutcome?: string | null; headers?: Record<string, string> }
const jsonl = (lines: Line[]) =>
  lines.map((l) => JSON.stringify({ key: 'k', headers: null, control: null, txnOutcome: null, ...l })).join('\n')
const output = (partition: number, offset: number) =>
  JSON.stringify({ key: 'k', count: 1, source: { partition, offset } })

/** Input partition 0 holds offsets 0-4, committed up to 4: offset 4 is not committed yet, so it cannot be lost. */
async function handDump(outputLines: Line[], deadLetters: Line[] = []): Promise<string> {
  const dir = await tempDir()
  await writeFile(join(dir, 'input-0.jsonl'), jsonl([0, 1, 2, 3, 4].map((offset) => ({ offset, value: '1' }))))
  await writeFile(join(dir, 'output-0.jsonl'), jsonl(outputLines))
  await writeFile(join(dir, 'input-dlq-0.jsonl'), jsonl(deadLetters))
  await writeFile(
    join(dir, 'committed-offsets.json'),
    JSON.stringify({ groupId: 'g', offsets: [{ topic: 'input', partition: 0, offset: 4 }] }),
  )
  return dir
}

describe('the dump audit', () => {
  it('finds nothing wrong when each committed input has one committed output', async () => {
    const dir = await handDump([0, 1, 2, 3].map((o) => ({ offset: o, value: output(0, o) })))
    expect(auditDump(dir)).toEqual({ inputCommitted: 4, outputCommitted: 4, duplicates: 0, lost: 0 })
  })

  it('counts every copy past the first as a duplicate, and an aborted copy as none', async () => {
    const lines: Line[] = [0, 1, 1, 1, 2, 2, 3].map((o, i) => ({ offset: i, value: output(0, o) }))
    lines.push({ offset: 7, value: output(0, 3), txnOutcome: 'aborted' })
    expect(auditDump(await handDump(lines))).toMatchObject({ duplicates: 3, lost: 0, outputCommitted: 7 })
  })

  it('counts a committed input with no committed output as lost, one only aborted too, a dead letter not', async () => {
    const lines = [
      { offset: 0, value: output(0, 0) },
      { offset: 1, value: output(0, 1), txnOutcome: 'aborted' },
    ]
    const dlq = [
      { offset: 0, value: '?', headers: { '__streams.errors.partition': '0', '__streams.errors.offset': '3' } },
    ]
    expect(auditDump(await handDump(lines, dlq))).toMatchObject({ duplicates: 0, lost: 2, inputCommitted: 4 })
  })
})

async function run(argv: string[]): Promise<{ summary: { lost: number; duplicates: number; kills: number } }> {
  const line = parseCommandLine(RUN, argv)
  if (line.help) throw new Error('expected flags')
  let text = ''
  const code = await runCommand(line.flags, (s) => {
    text += s
  })
  expect(code).toBe(0)
  return { summary: JSON.parse(text) }
}

describe('eoscope run --guarantee at_most_once, audited from its dump', () => {
  const acceptance = ['--guarantee', 'at_most_once', '--kill-every', '500', '--records', '100000', '--seed', '1']

  it('loses records to its kills and duplicates none; the audit counts the same', async () => {
    const dump = await tempDir()
    const { summary } = await run([...acceptance, '--json', '--dump', dump])
    expect(summary.kills).toBeGreaterThan(0)
    expect(summary.lost).toBeGreaterThan(0)
    expect(summary.duplicates).toBe(0)
    expect(auditDump(dump)).toMatchObject({ lost: summary.lost, duplicates: 0, inputCommitted: 100_000 })
  })

  it('with lost acks and idempotence off, duplicates the retried writes as at_least_once does', async () => {
    const dump = await tempDir()
    const { summary } = await run([...acceptance, '--drop-acks', '5', '--idempotence', 'off', '--json', '--dump', dump])
    expect(summary.duplicates).toBeGreaterThan(0)
    expect(auditDump(dump)).toMatchObject({ lost: summary.lost, duplicates: summary.duplicates })
  })
})
