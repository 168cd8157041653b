import { describe, expect, it } from 'vitest'
import { ConfigException, defaultStreamsConfig, streamsConfigFor, validateStreamsConfig, withConfigChange } from './streams-config.ts'

describe('Kafka Streams configuration rules', () => {
  it('refuses a transaction.timeout.ms below commit.interval.ms under exactly_once, and changes nothing', () => {
    const config = defaultStreamsConfig('exactly_once')
    const before = JSON.stringify(config)
    expect(() => withConfigChange(config, { 'commit.interval.ms': 20_000 })).toThrow(ConfigException)
    expect(() => withConfigChange(config, { 'commit.interval.ms': 20_000 })).toThrow(/transaction\.timeout\.ms \(10000\) must not be lower than commit\.interval\.ms \(20000\)/)
    expect(JSON.stringify(config)).toBe(before)
  })

  it('allows it under at_least_once, which uses no transactions', () => {
    expect(withConfigChange(defaultStreamsConfig('at_least_once'), { 'commit.interval.ms': 20_000 })['commit.interval.ms']).toBe(20_000)
  })

  it('refuses enable.idempotence=false and read_uncommitted under exactly-once, as Streams does', () => {
    for (const g of ['exactly_once', 'exactly_once_v2'] as const) {
      expect(() => validateStreamsConfig({ ...defaultStreamsConfig(g), 'enable.idempotence': false })).toThrow(/Cannot set enable\.idempotence to false/)
      expect(() => validateStreamsConfig({ ...defaultStreamsConfig(g), 'isolation.level': 'read_uncommitted' })).toThrow(/must be read_committed/)
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
  ])('refuses %s = %j with a ConfigException in Kafka\'s words', (name, value, message) => {
    const bad = { ...defaultStreamsConfig('exactly_once'), [name]: value } as never
    expect(() => validateStreamsConfig(bad)).toThrow(ConfigException)
    expect(() => validateStreamsConfig(bad)).toThrow(message)
  })

  it('streamsConfigFor keeps the heartbeat under a third of a shorter session timeout, and idempotence forced under exactly-once', () => {
    const c = streamsConfigFor('exactly_once', { sessionTimeoutMs: 300, idempotence: false })
    expect(c['heartbeat.interval.ms']).toBe(100)
    expect(c['enable.idempotence']).toBe(true)
    expect(validateStreamsConfig(c)).toBe(c)
    expect(streamsConfigFor('at_least_once', { idempotence: false })['enable.idempotence']).toBe(false)
  })
})
