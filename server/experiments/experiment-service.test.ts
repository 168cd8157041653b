// Which backends the experiment service offers, and how it refuses the ones it cannot run.
// No broker is contacted: every request here is refused before a lab starts.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { brokersFromEnv, ExperimentService } from './experiment-service.ts'
import { ExperimentStore } from './experiment-store.ts'
import {
  BackendUnavailableError,
  DEFAULT_KAFKA_SWEEP_SETTINGS,
  defaultSweepSettings,
  runSweep,
  sweepUnavailableReason,
} from './sweep-runner.ts'

const dirs: string[] = []
const store = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'eoscope-exp-service-'))
  dirs.push(dir)
  return new ExperimentStore(dir)
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  vi.unstubAllEnvs()
})

const request = (
  backend: 'embedded' | 'kafka',
  guarantees: ('at_least_once' | 'exactly_once' | 'exactly_once_v2')[] = ['exactly_once'],
) => ({ intervals: [10], guarantees, repeat: 1, backend })

describe('the experiment service', () => {
  it('offers kafka only when it knows brokers, and says why not otherwise', () => {
    const without = new ExperimentService({ store: store(), kafka: null })
    expect(without.backends).toEqual(['embedded'])
    expect(without.unavailableBackends.kafka).toContain('KAFKA_BROKERS')
    const withBrokers = new ExperimentService({ store: store(), kafka: { brokers: ['127.0.0.1:1'] } })
    expect(withBrokers.backends).toEqual(['embedded', 'kafka'])
    expect(withBrokers.unavailableBackends).toEqual({})
  })

  it('refuses kafka without brokers (501), and runs nothing', () => {
    const without = new ExperimentService({ store: store(), kafka: null })
    const a = without.start(request('kafka', ['at_least_once', 'exactly_once_v2']))
    expect(a).toMatchObject({ ok: false, status: 501 })
    expect(!a.ok && a.error).toContain('KAFKA_BROKERS')
    expect(without.isRunning()).toBe(false)
  })

  it('takes TLS and SASL for its kafka experiments from the environment', () => {
    vi.stubEnv('KAFKA_BROKERS', 'kafka-1:9093')
    vi.stubEnv('KAFKA_SSL', 'true')
    vi.stubEnv('KAFKA_SASL_MECHANISM', 'scram-sha-512')
    vi.stubEnv('KAFKA_SASL_USERNAME', 'alice')
    vi.stubEnv('KAFKA_SASL_PASSWORD', 'hunter2-secret')
    const service = new ExperimentService({ store: store() })
    expect(service.kafka).toEqual({
      brokers: ['kafka-1:9093'],
      security: { ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'hunter2-secret' } },
    })
    expect(service.backends).toEqual(['embedded', 'kafka'])
  })

  const noKafkaOnHalfSecurity =
    'offers no kafka when the security settings are half-configured, logs why and tells clients only that they ' +
    'are invalid'
  it(noKafkaOnHalfSecurity, () => {
    vi.stubEnv('KAFKA_BROKERS', 'kafka-1:9093')
    vi.stubEnv('KAFKA_SASL_MECHANISM', 'plain')
    vi.stubEnv('KAFKA_SASL_USERNAME', 'alice')
    vi.stubEnv('KAFKA_SASL_PASSWORD', '')
    const logged: string[] = []
    const service = new ExperimentService({ store: store(), log: (m) => logged.push(m) })
    expect(service.kafka).toBeNull()
    expect(service.backends).toEqual(['embedded'])
    expect(logged).toEqual([
      'kafka experiments unavailable: KAFKA_SASL_MECHANISM is plain but KAFKA_SASL_PASSWORD is not set',
    ])
    expect(service.unavailableBackends.kafka).toMatch(/Kafka settings .* are invalid; its log says why/)
    const r = service.start(request('kafka'))
    expect(r).toMatchObject({ ok: false, status: 501 })
    expect(!r.ok && r.error).toMatch(/are invalid/)
  })

  it('reads KAFKA_BROKERS', () => {
    expect(brokersFromEnv(undefined)).toBeNull()
    expect(brokersFromEnv(' ')).toBeNull()
    expect(brokersFromEnv('127.0.0.1:19092, kafka:9092')).toEqual(['127.0.0.1:19092', 'kafka:9092'])
    expect(() => brokersFromEnv('localhost')).toThrow(/HOST:PORT/)
  })
})

describe('a sweep on kafka', () => {
  it('needs brokers; every guarantee is offered (exactly_once_v2 through KIP-447)', async () => {
    expect(sweepUnavailableReason(request('embedded', ['exactly_once_v2']), null)).toBeNull()
    expect(sweepUnavailableReason(request('kafka'), null)).toContain('KAFKA_BROKERS')
    expect(sweepUnavailableReason(request('kafka', ['exactly_once_v2']), { brokers: ['h:1'] })).toBeNull()
    expect(sweepUnavailableReason(request('kafka'), { brokers: ['h:1'] })).toBeNull()
    await expect(runSweep({ request: request('kafka', ['exactly_once_v2']), kafka: null })).rejects.toBeInstanceOf(
      BackendUnavailableError,
    )
  })

  it('has its own defaults, below what worker processes on one machine process', () => {
    expect(defaultSweepSettings('kafka')).toBe(DEFAULT_KAFKA_SWEEP_SETTINGS)
    expect(DEFAULT_KAFKA_SWEEP_SETTINGS.steadyRatePerSec).toBeLessThan(
      defaultSweepSettings('embedded').steadyRatePerSec,
    )
    expect(DEFAULT_KAFKA_SWEEP_SETTINGS.latencyModel).toBe('off')
  })
})
