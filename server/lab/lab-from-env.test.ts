import { describe, expect, it } from 'vitest'
import { createServer } from 'node:net'
import { firstReachableBroker, labChoiceFromEnv } from './lab-from-env.ts'

describe('the lab the server runs, from its environment', () => {
  it('is the embedded log by default', async () => {
    expect(await labChoiceFromEnv({})).toEqual({ ok: true, backend: 'embedded' })
    expect(await labChoiceFromEnv({ EOSCOPE_BACKEND: ' ' })).toEqual({ ok: true, backend: 'embedded' })
  })

  it('is Kafka with brokers and the security settings of the environment', async () => {
    const c = await labChoiceFromEnv({
      EOSCOPE_BACKEND: 'kafka',
      KAFKA_BROKERS: '127.0.0.1:19092, b2:9092',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
    })
    expect(c).toMatchObject({
      ok: true,
      backend: 'kafka',
      brokers: ['127.0.0.1:19092', 'b2:9092'],
      security: { sasl: { mechanism: 'plain', username: 'u', password: 'p' } },
    })
    if (c.ok && c.backend === 'kafka') expect(c.describe).not.toContain('p"')
  })

  it('refuses what it cannot run, saying what to set', async () => {
    expect(await labChoiceFromEnv({ EOSCOPE_BACKEND: 'kafak' })).toEqual({
      ok: false,
      error: 'EOSCOPE_BACKEND must be embedded or kafka, got "kafak"',
    })
    expect(await labChoiceFromEnv({ EOSCOPE_BACKEND: 'kafka' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('needs KAFKA_BROKERS=host:port'),
    })
    expect(await labChoiceFromEnv({ EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: 'localhost' })).toEqual({
      ok: false,
      error: 'KAFKA_BROKERS: "localhost" is not host:port',
    })
    expect(
      await labChoiceFromEnv({ EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: 'b:9092', KAFKA_SASL_MECHANISM: 'gssapi' }),
    ).toMatchObject({ ok: false, error: expect.stringContaining('KAFKA_SASL_MECHANISM') })
  })

  it('puts the workers a network away from the brokers on Kafka, and refuses it where it cannot be', async () => {
    const kafka = { EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: 'b:9092' }
    expect(await labChoiceFromEnv(kafka)).not.toHaveProperty('network')
    expect(await labChoiceFromEnv({ ...kafka, EOSCOPE_NETWORK_LATENCY_MS: '0' })).not.toHaveProperty('network')
    const delay = { latencyMs: 1, jitterMs: 0.5 }
    expect(
      await labChoiceFromEnv({ ...kafka, EOSCOPE_NETWORK_LATENCY_MS: '1', EOSCOPE_NETWORK_JITTER_MS: '0.5' }),
    ).toMatchObject({ ok: true, network: { request: delay, response: delay, seed: 1 } })
    for (const bad of ['-1', 'one', '1e3', '10001'])
      expect(await labChoiceFromEnv({ ...kafka, EOSCOPE_NETWORK_LATENCY_MS: bad })).toEqual({
        ok: false,
        error: `EOSCOPE_NETWORK_LATENCY_MS must be a number of ms from 0 to 10000, got ${JSON.stringify(bad)}`,
      })
    expect(await labChoiceFromEnv({ EOSCOPE_NETWORK_JITTER_MS: '2' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('need EOSCOPE_BACKEND=kafka (the embedded log has its latency model)'),
    })
    expect(await labChoiceFromEnv({ ...kafka, KAFKA_SSL: '1', EOSCOPE_NETWORK_LATENCY_MS: '1' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^EOSCOPE_NETWORK_LATENCY_MS puts the workers behind eoscope's proxy.*TLS/),
    })
  })

  it('finds the first broker that accepts connections, and none when none listens', async () => {
    const server = createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as { port: number }).port
    server.close()
    await new Promise((r) => server.once('close', r))
    const closed = `127.0.0.1:${port}`
    expect(await firstReachableBroker([closed], 1_000)).toBeNull()
    const live = createServer()
    await new Promise<void>((r) => live.listen(0, '127.0.0.1', r))
    const open = `127.0.0.1:${(live.address() as { port: number }).port}`
    try {
      expect(await firstReachableBroker([closed, open], 1_000)).toBe(open)
    } finally {
      live.close()
    }
  })
})
