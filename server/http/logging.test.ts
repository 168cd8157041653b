// The server's structured logs: one JSON object a line, with the command, its outcome and the
// client; refusals with their reason; the full error of a failure in the log and never the token.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { io as connect } from 'socket.io-client'
import { afterEach, describe, expect, it } from 'vitest'
import { createLogger, logLevelFrom } from '../logging.ts'
import { createFakeLab, type FakeLab } from './__fixtures__/fake-lab.ts'
import { attachEoscopeHttp, type EoscopeHttp } from './app.ts'

const TOKEN = '9a8b7c6d5e4f30211f2e3d4c5b6a7980'
let server: Server
let http: EoscopeHttp
let lab: FakeLab
let lines: Record<string, unknown>[]
let raw: string

async function start(level = 'info') {
  lines = []
  raw = ''
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw += chunk.toString()
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>)
      done()
    },
  })
  lab = createFakeLab()
  server = createServer()
  http = attachEoscopeHttp(server, {
    lab,
    policy: { token: TOKEN, lockReads: false, controlRate: { perSec: 100, burst: 100 } },
    logger: createLogger(level, sink),
    defaultMetrics: false,
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

afterEach(async () => {
  await http.close()
  await lab.close()
})

/**
 * Waits until a line with this event has been written. Lines arrive in the order they were logged,
 * so every line logged before it is there too.
 */
const loggedUpTo = (event: string) =>
  expect.poll(() => lines.some((l) => l.event === event), { timeout: 60_000, interval: 10 }).toBe(true)

describe('structured logs', () => {
  it('logs commands with their outcome and client, refusals with their reason, and errors in full', async () => {
    const url = await start()
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }
    await fetch(`${url}/api/lab/config`, { method: 'POST', headers, body: '{"commit.interval.ms":200}' })
    await fetch(`${url}/api/lab/config`, { method: 'POST', headers, body: '{"commit.interval.ms":5}' })
    await fetch(`${url}/api/lab/reset`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}wrong` } })
    const c = connect(url, { transports: ['websocket'], auth: { token: TOKEN }, reconnection: false, forceNew: true })
    await c.emitWithAck('command', 'killWorker', { workerId: 'worker-1' })
    await c.emitWithAck('command', 'killWorker', { workerId: 'nobody' })
    c.disconnect()
    lab.execute = async () => {
      throw new Error('lab exploded')
    }
    const failed = await fetch(`${url}/api/lab/reset`, { method: 'POST', headers })
    expect(await failed.json()).toEqual({ error: 'internal error' })
    await loggedUpTo('error')

    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 30,
        event: 'command',
        via: 'rest',
        command: 'setConfig',
        ok: true,
        status: 200,
        client: '127.0.0.1',
      }),
    )
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'command',
        via: 'rest',
        command: 'setConfig',
        ok: false,
        status: 400,
        error: expect.stringMatching(/commit\.interval\.ms/),
      }),
    )
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        event: 'rejected',
        via: 'rest',
        reason: 'unauthorized',
        status: 401,
        path: '/api/lab/reset',
        error: 'unauthorized: the token is not valid',
      }),
    )
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'command',
        via: 'socket',
        command: 'killWorker',
        ok: true,
        client: expect.stringMatching(/127\.0\.0\.1/),
      }),
    )
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'command',
        via: 'socket',
        command: 'killWorker',
        ok: false,
        error: 'no such worker: nobody',
      }),
    )
    const error = lines.find((l) => l.event === 'error') as { level: number; err: { message: string; stack: string } }
    expect(error.level).toBe(50)
    expect(error.err.message).toBe('lab exploded')
    expect(error.err.stack).toMatch(/\n\s+at /)
    for (const l of lines) expect(typeof l.time).toBe('string')
    expect(raw).not.toContain(TOKEN)
  })

  it('follows the level: warn drops the commands and keeps the refusals', async () => {
    const url = await start('warn')
    await fetch(`${url}/api/lab/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: '{"commit.interval.ms":200}',
    })
    await fetch(`${url}/api/lab/reset`, { method: 'POST' })
    await loggedUpTo('rejected')
    expect(lines.map((l) => l.event)).toEqual(['rejected'])
  })

  it('takes LOG_LEVEL, silent under tests, and refuses unknown levels', () => {
    expect(logLevelFrom({})).toEqual({ ok: true, level: 'info' })
    expect(logLevelFrom({ VITEST: 'true' })).toEqual({ ok: true, level: 'silent' })
    expect(logLevelFrom({ LOG_LEVEL: 'DEBUG' })).toEqual({ ok: true, level: 'debug' })
    expect(logLevelFrom({ LOG_LEVEL: 'verbose' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/LOG_LEVEL must be one of/),
    })
  })
})
