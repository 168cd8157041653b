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
