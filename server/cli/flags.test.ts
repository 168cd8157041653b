import { describe, expect, it } from 'vitest'
import { type CommandSpec, helpText, parseCommandLine, UsageError, usageText } from './flags.ts'
import { RUN } from './run-command.ts'
import { SCENARIO } from './scenario-command.ts'
import { SWEEP } from './sweep-command.ts'
import { WORKER } from './worker-command.ts'

function flagsOf<F extends CommandSpec['flags']>(spec: CommandSpec<F>, argv: string[]) {
  const line = parseCommandLine(spec, argv)
  if (line.help) throw new Error('expected flags, got --help')
  return line.flags
}

function refusal(spec: CommandSpec, argv: string[]): string {
  try {
    parseCommandLine(spec, argv)
  } catch (e) {
    if (e instanceof UsageError) return e.message
    throw e
  }
  throw new Error(`${argv.join(' ')} was accepted`)
}

describe('the flag parser', () => {
  it('gives typed values with their defaults when nothing is given', () => {
    const f = flagsOf(RUN, [])
    expect(f).toMatchObject({
      guarantee: 'exactly_once',
      workers: 3,
      partitions: 6,
      records: 100_000,
      seed: 1,
      'restart-after': 0,
      'drop-acks': 0,
      idempotence: 'on',
      backend: 'embedded',
      json: false,
      'worker-logs': false,
    })
    expect(f['commit-interval-ms']).toBeUndefined()
    expect(f['kill-every']).toBeUndefined()
    expect(f['latency-model']).toBeUndefined()
  })

  it('reads --flag value and --flag=value, numbers as numbers and booleans by presence', () => {
    const f = flagsOf(RUN, [
      '--guarantee',
      'at_least_once',
      '--workers=5',
      '--rate',
      '1.5',
      '--kill-at-step',
      '4',
      '--json',
      '--dump',
      'out/dir',
      '--seed',
      '0',
    ])
    expect(f).toMatchObject({
      guarantee: 'at_least_once',
      workers: 5,
      rate: 1.5,
      'kill-at-step': 4,
      json: true,
      dump: 'out/dir',
      seed: 0,
    })
  })

  it.each([
    [['--nope'], 'unknown flag --nope'],
    [['-x'], 'unknown flag -x'],
    [['--seed', '1', '--seed', '2'], '--seed given twice'],
    [['--brokers'], '--brokers needs a value'],
    [['--brokers', '--json'], '--brokers needs a value'],
    [['--json=yes'], '--json takes no value'],
    [['stray'], 'unexpected argument "stray"'],
    [['--workers', '0'], '--workers: must be an integer from 1 to 64; got 0'],
    [['--workers', '65'], '--workers: must be an integer from 1 to 64; got 65'],
    [['--workers', '2.5'], '--workers: must be an integer from 1 to 64; got 2.5'],
    [['--workers', 'fast'], '--workers: must be an integer from 1 to 64; got "fast"'],
    [['--workers='], '--workers: must be an integer from 1 to 64; got ""'],
    [['--seed', '-1'], '--seed: must be an integer from 0 to 2147483647; got -1'],
    [['--rate', '0'], '--rate: must be a number of at least 0.001; got 0'],
    [['--kill-every', '0'], '--kill-every: must be an integer of at least 1; got 0'],
    [
      ['--guarantee', 'exactly-once'],
      '--guarantee: must be one of at_most_once, at_least_once, exactly_once, exactly_once_v2; got "exactly-once"',
    ],
  ])('refuses %j: %s', (argv, message) => {
    expect(refusal(RUN, argv)).toBe(message)
  })

  it('answers --help and -h wherever they stand, whatever else is given', () => {
    expect(parseCommandLine(RUN, ['--help'])).toEqual({ help: true })
    expect(parseCommandLine(RUN, ['--workers', '5', '-h'])).toEqual({ help: true })
    expect(parseCommandLine(SCENARIO, ['lost-ack', '--help'])).toEqual({ help: true })
  })

  it('takes a positional argument only where the command declares one', () => {
    const line = parseCommandLine(SCENARIO, ['--seed', '7', 'lost-ack'])
    expect(line).toMatchObject({ help: false, positional: 'lost-ack', flags: { seed: 7, json: false } })
    expect(refusal(SCENARIO, ['lost-ack', 'zombie'])).toBe('unexpected argument "zombie"')
  })

  it('leaves settings a follower must not be given undefined when absent, so it can tell', () => {
    const f = flagsOf(WORKER, ['--brokers', 'h:1', '--follow-lab'])
    expect(f).toMatchObject({ brokers: 'h:1', 'follow-lab': true })
    for (const k of [
      'guarantee',
      'idempotence',
      'partitions',
      'commit-interval-ms',
      'max-poll-records',
      'drop-acks',
    ] as const)
      expect(f[k]).toBeUndefined()
  })
})

describe('--help text', () => {
  it.each([RUN, SWEEP, SCENARIO, WORKER].map((spec) => [spec.name, spec] as const))(
    'eoscope %s --help names every flag with its meaning',
    (_, spec) => {
      const text = helpText(spec)
      expect(text.startsWith(`eoscope ${spec.name}: `)).toBe(true)
      for (const name of Object.keys(spec.flags)) expect(text).toContain(`  --${name}`)
      expect(text).toContain('-h, --help')
    },
  )

  it('shows each default and range from the settings table', () => {
    const text = helpText(RUN)
    expect(text).toMatch(
      /--workers N\n {6}stream worker instances, each with its tasks \(default: 3; an integer from 1 to 64\)/,
    )
    expect(text).toMatch(
      new RegExp(
        '--commit-interval-ms MS\\n.*default: 1000 under at_most_once and at_least_once, ' +
          '100 under exactly_once and exactly_once_v2; an integer from 1 to 600000',
      ),
    )
    expect(text).toMatch(
      new RegExp(
        '--guarantee at_most_once\\|at_least_once\\|exactly_once\\|exactly_once_v2\\n {6}processing.guarantee ' +
          "\\(at_most_once: eoscope's teaching mode, not a Kafka Streams setting[^\\n]*\\(default: exactly_once\\)",
      ),
    )
    expect(text).toMatch(
      /--rate N\n.*\(default: as fast as possible; with --kill-every, paced so that about four kills/,
    )
    expect(text).toMatch(/--rate N\n.*; with --drop-acks alone, paced to last 2 s; a number of at least 0.001\)/)
  })

  it('wraps the usage lines of an error under the command', () => {
    const lines = usageText(RUN).split('\n')
    expect(lines[0]).toMatch(/^usage: eoscope run \[--guarantee/)
    expect(lines.length).toBeGreaterThan(1)
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(110)
    for (const l of lines.slice(1)) expect(l.startsWith(' '.repeat('usage: eoscope run'.length))).toBe(true)
  })
})
