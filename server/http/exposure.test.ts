// The exposed server's http layer (attachEoscopeHttp, as server/index.ts runs it, on the fake lab):
// the token on REST and the socket, locked reads, the rate limit, origins, and no stack traces.

import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import type { CommandResult } from '../../lib/lab-protocol.ts'
import { createFakeLab, type FakeLab } from './__fixtures__/fake-lab.ts'
import { connected, startHttp, type HttpHarness, type OpenOptions } from './__fixtures__/http-harness.ts'
import { DEFAULT_CONTROL_RATE, type AccessPolicy } from './access.ts'

const TOKEN = '5c1e0b7a9d3f48e2a6b1c0d9e8f7a6b5'

let harness: HttpHarness | null = null
let lab: FakeLab
let url: string

/** The rate limiter's clock: it moves only when a test moves it. */
let clock = 0

async function start(policy: Partial<AccessPolicy>, labOverride?: FakeLab): Promise<void> {
  clock = 0
  harness = await startHttp(policy, { lab: labOverride, now: () => clock })
  ;({ lab, url } = harness)
}

afterEach(async () => {
  await harness?.close()
  harness = null
})

const post = (path: string, body: unknown = {}, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
const bearer = (t: string) => ({ authorization: `Bearer ${t}` })

const open = (options: OpenOptions = {}) => harness!.open(options)

/** A response or ack carries no stack trace, no source path, and not the thrown message. */
function expectNoStack(text: string): void {
  expect(text).not.toMatch(/\n\s+at |\bat .*:\d+:\d+|\.ts\b|\.js:\d|node_modules|\/work\/|secret-detail/)
}

describe('with a token (a server bound to a non-loopback address)', () => {
  it('refuses REST control without the token (401) and runs it with the token (200)', async () => {
    await start({ token: TOKEN })
    const none = await post('/api/lab/config', { 'commit.interval.ms': 200 })
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/)
    expect(((await none.json()) as { error: string }).error).toMatch(/unauthorized/)
    expect((await post('/api/lab/config', { 'commit.interval.ms': 200 }, bearer(`${TOKEN}x`))).status).toBe(401)
    expect((await post('/api/lab/config', { 'commit.interval.ms': 200 }, { authorization: TOKEN })).status).toBe(401)
    expect((await post('/api/workers/worker-1/kill', undefined)).status).toBe(401)
    expect((await post('/api/experiments', {})).status).toBe(401)
    expect((await post('/api/experiments/cancel', {})).status).toBe(401)
    expect(lab.executed).toEqual([])
    expect((await post('/api/lab/config', { 'commit.interval.ms': 200 }, bearer(TOKEN))).status).toBe(200)
    expect((await post('/api/workers/worker-1/kill', {}, bearer(TOKEN))).status).toBe(200)
    expect(lab.executed.map((e) => e.name)).toEqual(['setConfig', 'killWorker'])
    // Reads stay open.
    expect((await fetch(`${url}/api/lab`)).status).toBe(200)
    expect((await fetch(`${url}/metrics`)).status).toBe(200)
  })

  it('refuses socket commands without the token and runs them with a handshake or per-command token', async () => {
    await start({ token: TOKEN })
    const anonymous = open()
    await connected(anonymous)
    expect(await anonymous.emitWithAck('command', 'killWorker', { workerId: 'worker-1' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unauthorized/),
    })
    expect(await anonymous.emitWithAck('command', 'selectPartition', { topic: 'output', partition: 1 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unauthorized/),
    })
    expect(
      await anonymous.emitWithAck(
        'command',
        'killWorker',
        { workerId: 'worker-1' },
        { token: 'wrong-token-wrong-token' },
      ),
    ).toMatchObject({ ok: false, error: 'unauthorized: the token is not valid' })
    expect(lab.executed).toEqual([])
    expect(await anonymous.emitWithAck('command', 'killWorker', { workerId: 'worker-1' }, { token: TOKEN })).toEqual({
      ok: true,
    })

    const wrong = open({ auth: { token: 'not-the-token-at-all' } })
    await connected(wrong)
    expect((await wrong.emitWithAck('command', 'reset', {})) as CommandResult).toMatchObject({ ok: false })

    const holder = open({ auth: { token: TOKEN } })
    await connected(holder)
    expect(await holder.emitWithAck('command', 'pauseWorker', { workerId: 'worker-2' })).toEqual({ ok: true })
    expect(lab.executed.map((e) => e.name)).toEqual(['killWorker', 'pauseWorker'])
  })

  it('with EOSCOPE_LOCK_READS, refuses reads and socket connections without the token', async () => {
    await start({ token: TOKEN, lockReads: true })
    for (const path of ['/api/lab', '/api', '/api/experiments', '/metrics']) {
      const r = await fetch(`${url}${path}`)
      expect(r.status, path).toBe(401)
      expect(((await r.json()) as { error: string }).error).toMatch(/unauthorized/)
      expect((await fetch(`${url}${path}`, { headers: bearer(TOKEN) })).status, path).not.toBe(401)
    }
    await expect(connected(open())).rejects.toThrow(/unauthorized/)
    await expect(connected(open({ auth: { token: 'x'.repeat(32) } }))).rejects.toThrow(/unauthorized/)
    const holder = open({ auth: { token: TOKEN } })
    const snapshot = new Promise((r) => holder.on('snapshot', r))
    await connected(holder)
    expect(await snapshot).toMatchObject({ seq: expect.any(Number) })
  })
})

describe('on loopback without a token', () => {
  it('leaves control and reads open', async () => {
    await start({})
    expect((await post('/api/lab/config', { 'commit.interval.ms': 200 })).status).toBe(200)
    const c = open()
    await connected(c)
    expect(await c.emitWithAck('command', 'addWorker', {})).toEqual({ ok: true })
  })
})

describe('the rate limit on control actions', () => {
  it('answers 429 with Retry-After on REST once the burst is spent, and leaves reads alone', async () => {
    await start({ controlRate: DEFAULT_CONTROL_RATE })
    const statuses: number[] = []
    for (let i = 0; i < 30; i++)
      statuses.push((await post('/api/lab/config', { 'commit.interval.ms': 100 + i })).status)
    expect(statuses).toEqual([...Array(20).fill(200), ...Array(10).fill(429)])
    expect(lab.executed).toHaveLength(20)
    const limited = await post('/api/lab/config', { 'commit.interval.ms': 100 })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(((await limited.json()) as { error: string }).error).toMatch(/rate limited/)
    expect((await fetch(`${url}/api/lab`)).status).toBe(200)
    // The bucket refills at 10 a second.
    clock += 300
    const after = []
    for (let i = 0; i < 5; i++) after.push((await post('/api/lab/config', { 'commit.interval.ms': 100 })).status)
    expect(after).toEqual([200, 200, 200, 429, 429])
  })

  it("answers { ok: false, error: 'rate limited' } on the socket, counting the client's REST actions too", async () => {
    await start({ controlRate: DEFAULT_CONTROL_RATE })
    const c = open()
    await connected(c)
    const results = await Promise.all(
      Array.from({ length: 40 }, () => c.emitWithAck('command', 'selectPartition', { topic: 'output', partition: 1 })),
    )
    expect(results.filter((r) => r.ok)).toHaveLength(20)
    expect(results.filter((r) => !r.ok)).toEqual(Array(20).fill({ ok: false, error: 'rate limited' }))
    // The same client address over REST shares the bucket; a second socket does not get a new one.
    expect((await post('/api/lab/reset')).status).toBe(429)
    const again = open()
    await connected(again)
    expect(await again.emitWithAck('command', 'addWorker', {})).toEqual({ ok: false, error: 'rate limited' })
  })
})

describe('origins', () => {
  it("refuses another origin's page on REST and on the socket, and accepts the page's own", async () => {
    await start({})
    const r = await post('/api/lab/reset', {}, { origin: 'http://evil.example' })
    expect(r.status).toBe(403)
    expect(((await r.json()) as { error: string }).error).toMatch(/cross-origin/)
    expect((await post('/api/lab/reset', {}, { origin: 'null' })).status).toBe(403)
    expect((await post('/api/experiments/cancel', {}, { origin: `http://127.0.0.1.evil.example` })).status).toBe(403)
    expect(lab.executed).toEqual([])
    for (const origin of [
      'http://evil.example',
      'null',
      `http://localhost:${new URL(url).port}`,
      'file://',
      `${url.replace('http', 'https')}x`,
    ]) {
      await expect(connected(open({ headers: { origin } })), origin).rejects.toBeTruthy()
    }
    const own = open({ headers: { origin: url } })
    await connected(own)
    expect(await own.emitWithAck('command', 'addWorker', {})).toEqual({ ok: true })
    expect((await post('/api/lab/reset', {}, { origin: url })).status).toBe(200)
  })
})

describe('error paths', () => {
  it('never sends a stack trace: a throwing lab, bad JSON, bad paths and unknown events', async () => {
    const throwing = createFakeLab()
    throwing.execute = async () => {
      const e = new Error('secret-detail from /work/server/lab/lab.ts:42:7')
      throw e
    }
    await start({}, throwing)
    throwing.snapshot = () => {
      throw new TypeError('secret-detail: snapshot exploded')
    }
    const responses = await Promise.all([
      post('/api/lab/config', { 'commit.interval.ms': 200 }),
      post('/api/lab/config', '{"commit.interval.ms":'),
      post('/api/lab/config', '\u0000\uffff'),
      post('/api/workers/%E0%A4%A/kill'),
      fetch(`${url}/api/lab`),
      fetch(`${url}/metrics`),
      fetch(`${url}/api/nothing`),
      post('/api/experiments', '[[[[[[[[[['),
    ])
    const statuses = responses.map((r) => r.status)
    expect(statuses).toEqual([500, 400, 400, 400, 500, 500, 404, 404])
    for (const r of responses) {
      expect(r.headers.get('content-type')).toMatch(/application\/json/)
      const text = await r.text()
      expectNoStack(text)
      expect(typeof (JSON.parse(text) as { error: unknown }).error).toBe('string')
    }
    // A request target that is not a URL, straight over a socket.
    const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: Number(new URL(url).port), path: 'http://[::1', method: 'GET' },
        (res) => {
          let body = ''
          res.on('data', (d: Buffer) => (body += d.toString()))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        },
      )
      req.on('error', reject)
      req.end()
    })
    expect(raw.status).toBeGreaterThanOrEqual(400)
    expectNoStack(raw.body)

    const c = open()
    await connected(c)
    const acks = [
      await c.emitWithAck('command', 'setConfig', { 'commit.interval.ms': 200 }),
      await c.emitWithAck('formatDisk', {}),
      await c.emitWithAck('command'),
    ]
    expect(acks[0]).toEqual({ ok: false, error: 'internal error' })
    expect(acks[1]).toMatchObject({ ok: false, error: expect.stringMatching(/unknown event/) })
    expect(acks[2]).toEqual({ ok: false, error: 'internal error' })
    for (const a of acks) expectNoStack(JSON.stringify(a))
  })
})
