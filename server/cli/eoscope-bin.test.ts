// bin/eoscope.mjs as a user runs it: --help per command, and a bad value's exit status.

import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const BIN = fileURLToPath(new URL('../../bin/eoscope.mjs', import.meta.url))

function eoscope(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 100_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1
      resolve({ code, stdout, stderr })
    })
  })
}

describe('bin/eoscope.mjs', () => {
  it.each([
    ['run', ['--guarantee', '--commit-interval-ms', '--kill-at-step', '--drop-acks', '--backend', '--json']],
    ['sweep', ['--intervals', '--guarantees', '--repeat', '--csv', '--no-save']],
    ['scenario', ['NAME', '--seed', '--json', 'lost-ack']],
    ['worker', ['--brokers', '--application-id', '--follow-lab', '--max-poll-records', 'KAFKA_SASL_MECHANISM']],
    [
      'observe',
      [
        '--application-id',
        '--format',
        '--changelog',
        '--dead-letter',
        '<application.id>-aggregates-changelog',
        'judged exactly-once',
      ],
    ],
  ])(
    'eoscope %s --help prints its flags with meaning and default, exit 0',
    { timeout: 120_000 },
    async (command, words) => {
      const r = await eoscope([command, '--help'])
      expect(r.code).toBe(0)
      expect(r.stderr).toBe('')
      expect(r.stdout).toContain(`usage: eoscope ${command}`)
      for (const w of words) expect(r.stdout).toContain(w)
      expect(r.stdout).toContain('(default: ')
    },
  )

  it('eoscope --help lists the commands, exit 0; no command at all is a usage error, exit 2', {
    timeout: 120_000,
  }, async () => {
    const help = await eoscope(['--help'])
    expect(help.code).toBe(0)
    for (const c of ['run', 'sweep', 'scenario', 'worker']) expect(help.stdout).toMatch(new RegExp(`^  ${c} `, 'm'))
    const none = await eoscope([])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('usage: eoscope <command>')
  })

  it('a bad value exits 2 with what is wrong and the usage', { timeout: 120_000 }, async () => {
    const r = await eoscope(['run', '--workers', '0'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^eoscope run: --workers: must be an integer from 1 to 64; got 0\nusage: eoscope run /)
  })

  it('a scenario on Kafka without --brokers exits 2 with what is missing, before anything starts', {
    timeout: 120_000,
  }, async () => {
    const r = await eoscope(['scenario', 'commit-interval', '--backend', 'kafka'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('--brokers HOST:PORT is required for the kafka backend')
  })

  it('transactions: aborting hanging transactions needs the topics to search (exit 2, nothing sent)', {
    timeout: 120_000,
  }, async () => {
    const r = await eoscope(['transactions', '--brokers', '127.0.0.1:1', '--abort-hanging'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--abort-hanging needs --topics')
  })

  it.each([
    [
      ['--format', 'avro', '--input', 'i', '--output', 'o'],
      'record format "avro" is not one eoscope can validate; known: eoscope',
    ],
    [
      ['--format', 'eoscope', '--output', 'o'],
      'the validator runs on one input and one output topic: name one of each (got 0 input and 1 output)',
    ],
    [['--changelog', 'c'], '--changelog and --dead-letter are for the validator: give --format too'],
  ])('observe %j refuses before connecting (exit 2): %s', { timeout: 120_000 }, async (args, message) => {
    // Port 1: nothing listens there, so any attempt to connect would fail differently.
    const r = await eoscope(['observe', '--application-id', 'app', '--brokers', '127.0.0.1:1', ...args])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain(message)
  })
})
