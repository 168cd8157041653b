import { describe, expect, it } from 'vitest'
import {
  CONFIG_BOUNDS,
  ConfigException,
  defaultStreamsConfig,
  defaultText,
  EOSCOPE_DEFAULTS,
  inRange,
  rangeOf,
  type SettingContext,
  type SettingName,
  SETTINGS,
  settingProblem,
  streamsConfigFor,
  validateStreamsConfig,
  withConfigChange,
} from './streams-config.ts'

describe('Kafka Streams configuration rules', () => {
  it('refuses a transaction.timeout.ms below commit.interval.ms under exactly_once, and changes nothing', () => {
    const config = defaultStreamsConfig('exactly_once')
    const before = JSON.stringify(config)
    expect(() => withConfigChange(config, { 'commit.interval.ms': 20_000 })).toThrow(ConfigException)
    expect(() => withConfigChange(config, { 'commit.interval.ms': 20_000 })).toThrow(
      /transaction\.timeout\.ms \(10000\) must not be lower than commit\.interval\.ms \(20000\)/,
    )
    expect(JSON.stringify(config)).toBe(before)
  })

  it('allows it under at_least_once, which uses no transactions', () => {
    expect(
      withConfigChange(defaultStreamsConfig('at_least_once'), { 'commit.interval.ms': 20_000 })['commit.interval.ms'],
    ).toBe(20_000)
  })

  it('refuses enable.idempotence=false and read_uncommitted under exactly-once, as Streams does', () => {
    for (const g of ['exactly_once', 'exactly_once_v2'] as const) {
      expect(() => validateStreamsConfig({ ...defaultStreamsConfig(g), 'enable.idempotence': false })).toThrow(
        /Cannot set enable\.idempotence to false/,
      )
      expect(() =>
        validateStreamsConfig({ ...defaultStreamsConfig(g), 'isolation.level': 'read_uncommitted' }),
      ).toThrow(/must be read_committed/)
    }
  })

  it('switching to exactly_once turns idempotence and read_committed back on', () => {
    const alos = withConfigChange(defaultStreamsConfig('at_least_once'), { 'enable.idempotence': false })
    const eos = withConfigChange(alos, { 'processing.guarantee': 'exactly_once' })
    expect(eos['enable.idempotence']).toBe(true)
    expect(eos['isolation.level']).toBe('read_committed')
  })

  it.each([
    ['processing.guarantee', 'exactly_twice', /String must be one of/],
    ['commit.interval.ms', 0, /Value must be in/],
    ['commit.interval.ms', 1.5, /Expected an integer/],
    ['session.timeout.ms', 100, /heartbeat\.interval\.ms|Value must be in/],
    ['application.id', 'has space', /must be 1-200 characters/],
  ])("refuses %s = %j with a ConfigException in Kafka's words", (name, value, message) => {
    const bad = { ...defaultStreamsConfig('exactly_once'), [name]: value } as never
    expect(() => validateStreamsConfig(bad)).toThrow(ConfigException)
    expect(() => validateStreamsConfig(bad)).toThrow(message)
  })

  const heartbeatUnderSessionThird =
    'streamsConfigFor keeps the heartbeat under a third of a shorter session timeout, and idempotence forced ' +
    'under exactly-once'
  it(heartbeatUnderSessionThird, () => {
    const c = streamsConfigFor('exactly_once', { sessionTimeoutMs: 300, idempotence: false })
    expect(c['heartbeat.interval.ms']).toBe(100)
    expect(c['enable.idempotence']).toBe(true)
    expect(validateStreamsConfig(c)).toBe(c)
    expect(streamsConfigFor('at_least_once', { idempotence: false })['enable.idempotence']).toBe(false)
  })
})

describe('the settings table', () => {
  const names = Object.keys(SETTINGS) as SettingName[]

  it.each(names)('%s has a meaning, sane ranges and a default within its run range', (name) => {
    const s = SETTINGS[name]
    expect(s.meaning.length).toBeGreaterThan(10)
    for (const context of ['run', 'lab', 'sweep'] as SettingContext[]) {
      const r = rangeOf(name, context)
      expect(r.min).toBeLessThanOrEqual(r.max)
    }
    const defaults = s.default === null ? [] : typeof s.default === 'number' ? [s.default] : Object.values(s.default)
    for (const d of defaults) expect(inRange(name, 'run', d)).toBe(true)
    expect(defaultText(name)).not.toBe('')
  })

  it('gives validateStreamsConfig its bounds and eoscope its defaults', () => {
    expect(CONFIG_BOUNDS['commit.interval.ms']).toBe(SETTINGS['commit.interval.ms'].ranges.run)
    expect(SETTINGS['session.timeout.ms'].default).toBe(EOSCOPE_DEFAULTS.sessionTimeoutMs)
    expect(() =>
      validateStreamsConfig({
        ...defaultStreamsConfig('exactly_once'),
        'max.poll.records': rangeOf('max.poll.records').max + 1,
      }),
    ).toThrow(/Value must be in \[1, 100000\]/)
  })

  it('a context without its own range uses the run range', () => {
    expect(rangeOf('partitions', 'lab')).toBe(rangeOf('partitions', 'run'))
    expect(rangeOf('workers', 'lab')).toEqual({ min: 1, max: 12 })
  })

  it('words a bad value one way: the kind, the range, what was given', () => {
    expect(settingProblem('killAtStep', 'run', 6)).toBe('must be an integer from 1 to 5; got 6')
    expect(settingProblem('inputRatePerSec', 'run', 0)).toBe('must be a number of at least 0.001; got 0')
    expect(settingProblem('workers', 'lab', 'many')).toBe('must be an integer from 1 to 12; got "many"')
    expect(settingProblem('workers', 'lab', 'x'.repeat(100))).toMatch(/got "x{36}\.\.\.$/)
    expect(defaultText('commit.interval.ms')).toBe(
      '1000 under at_most_once and at_least_once, 100 under exactly_once and exactly_once_v2',
    )
    expect(defaultText('killEveryMs')).toBe('no kills')
  })
})
