// The http layer against a hostile network: DNS rebinding (a Host this server does not answer to),
// framing and injected scripts (CSP, X-Frame-Options), lockout (token first, then the rate), null
// bodies, HEAD on reads, resync floods, and precise handshake errors. On the fake lab.

import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import type { FakeLab } from './__fixtures__/fake-lab.ts'
import { connected, startHttp, type HttpHarness, type OpenOptions } from './__fixtures__/http-harness.ts'
import {
  AccessGate,
  DEFAULT_CONTROL_RATE,
  HostAllowlist,
  rateKey,
  resolveAccessPolicy,
  type AccessPolicy,
} from './access.ts'
import type { EoscopeHttp } from './app.ts'
import { hostnameOf, resolveHostAllowlist } from './host-allowlist.ts'
import { RESYNC_RATE } from './live-socket.ts'

const TOKEN = '9f8e7d6c5b4a39281706f5e4d3c2b1a0'

let harness: HttpHarness | null = null
let lab: FakeLab
let http: EoscopeHttp
let port: number
let url: string
/** What the page handler (Next, in production) saw of each request it was given. */
let pageRequests: { nonce: unknown; csp: unknown }[] = []
let clock = 0

async function start(policy: Partial<AccessPolicy>): Promise<void> {
  clock = 0
  pageRequests = []
  const fallback = async (req: IncomingMessage, res: ServerResponse) => {
    pageRequests.push({ nonce: req.headers['x-nonce'], csp: req.headers['content-security-policy'] })
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!doctype html><title>eoscope</title>')
  }
  harness = await startHttp(policy, { now: () => clock, fallback })
  ;({ lab, http, port, url } = harness)
}

afterEach(async () => {
  await harness?.close()
  harness = null
})

interface Answer {
  status: number
  headers: IncomingMessage['headers']
  body: string
}

/** One request over node:http, which sends the Host it is given (fetch would not). */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = ''
        res.on('data', (d: Buffer) => (text += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

const rebind = () => ({ host: `rebind.evil.example:${port}`, origin: `http://rebind.evil.example:${port}` })
const bearer = { authorization: `Bearer ${TOKEN}` }

const open = (options: OpenOptions = {}) => harness!.open(options)

describe('DNS rebinding: the Host allowlist', () => {
  it.each([
    ['without a token', {}, {}],
    ['with a token, the token sent', { token: TOKEN }, bearer],
  ])('%s, refuses a rebinding Host with 421 on every route and changes nothing', async (_, policy, auth) => {
    await start(policy)
    const attempts: [string, string, string?][] = [
      ['POST', '/api/workers/worker-1/kill', '{}'],
      ['POST', '/api/lab/config', '{"inputRatePerSec":77}'],
      ['POST', '/api/lab/reset', '{}'],
      ['POST', '/api/experiments', '{}'],
      ['GET', '/api/lab'],
      ['GET', '/api'],
      ['GET', '/api/experiments'],
      ['GET', '/metrics'],
      ['GET', '/'],
      ['GET', '/experiments'],
      ['HEAD', '/api/lab'],
    ]
    for (const [method, path, body] of attempts) {
      const r = await raw(method, path, { ...rebind(), ...auth }, body)
      expect(r.status, `${method} ${path}`).toBe(421)
      expect(r.headers['content-type']).toMatch(/application\/json/)
      if (method !== 'HEAD')
        expect((JSON.parse(r.body) as { error: string }).error).toMatch(
          /^misdirected request: this server does not answer to the host "rebind\.evil\.example:\d+"/,
        )
    }
    expect(lab.executed).toEqual([])
    expect(pageRequests).toEqual([])
  })

  it.each([
    ['without a token', {}, {}],
    ['with a token, the token sent', { token: TOKEN }, { token: TOKEN }],
  ])('%s, refuses the socket handshake of a rebinding Host', async (_, policy, auth) => {
    await start(policy)
    await expect(connected(open({ headers: rebind(), auth }))).rejects.toBeTruthy()
    // Over polling, the refusal says why: 421, as on every other route.
    const r = await raw('GET', '/socket.io/?EIO=4&transport=polling', rebind())
    expect(r.status).toBe(421)
    expect(JSON.parse(r.body)).toEqual({ error: expect.stringMatching(/^misdirected request/) })
    expect(lab.executed).toEqual([])
    // The same handshake with this server's own name connects.
    const own = open({ auth, headers: { origin: url } })
    await connected(own)
    expect(await own.emitWithAck('command', 'addWorker', {})).toEqual({ ok: true })
  })

  it('answers loopback names and addresses, and the names it is told', async () => {
    await start({ allowedHosts: new HostAllowlist(['eoscope.lan', '192.168.7.20']) })
    for (const host of [
      '127.0.0.1',
      'localhost',
      '127.9.9.9',
      '[::1]',
      'LOCALHOST.',
      'dash.localhost',
      'eoscope.lan',
      'EOSCOPE.LAN',
      '192.168.7.20',
    ]) {
      const r = await raw('POST', '/api/lab/reset', { host: `${host}:${port}`, origin: `http://${host}:${port}` }, '{}')
      expect(r.status, host).toBe(200)
      expect((await raw('GET', '/', { host })).status, host).toBe(200)
    }
    const lan = open({ headers: { host: `eoscope.lan:${port}`, origin: `http://eoscope.lan:${port}` } })
    await connected(lan)
    expect(await lan.emitWithAck('command', 'addWorker', {})).toEqual({ ok: true })
    for (const host of [
      'eoscope.lan.evil.example',
      'evil.example',
      '192.168.7.21',
      '0.0.0.0',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
    ]) {
      expect((await raw('GET', '/api/lab', { host })).status, host).toBe(421)
    }
  })

  it('reads EOSCOPE_ALLOWED_HOSTS beside loopback and the bound address, and refuses a malformed entry', () => {
    const ok = resolveAccessPolicy({ EOSCOPE_ALLOWED_HOSTS: ' eoscope.lan , 10.0.0.5,[fe80::1],::2 ' }, '127.0.0.1')
    expect(ok.ok).toBe(true)
    const hosts = ok.ok ? ok.policy.allowedHosts! : new HostAllowlist()
    for (const h of ['eoscope.lan:3000', '10.0.0.5', '[fe80::1]:80', '[::2]', 'localhost:3000', '127.0.0.1'])
      expect(hosts.allows(h), h).toBe(true)
    expect(hosts.allows('evil.example')).toBe(false)
    expect(hosts.allows('')).toBe(false)
    expect(hosts.allows(undefined)).toBe(true)
    for (const bad of ['eoscope.lan:3000', 'http://eoscope.lan', 'a b', 'x/y']) {
      expect(resolveAccessPolicy({ EOSCOPE_ALLOWED_HOSTS: bad }, '127.0.0.1'), bad).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^EOSCOPE_ALLOWED_HOSTS/),
      })
    }
    // The address it is bound to; bound to every address, the addresses of this machine.
    const bound = resolveHostAllowlist({}, '10.1.2.3')
    expect(bound.ok && bound.allowlist.allows('10.1.2.3:8080')).toBe(true)
    const wildcard = resolveHostAllowlist({}, '0.0.0.0')
    expect(wildcard.ok && wildcard.allowlist.extra).toContain('127.0.0.1')
    expect(wildcard.ok && wildcard.allowlist.allows('rebind.evil.example')).toBe(false)
    expect(hostnameOf('[::ffff:127.0.0.1]:1')).toBe('[::ffff:7f00:1]')
    expect(new HostAllowlist().allows('[::ffff:127.0.0.1]:1')).toBe(true)
  })
})

describe('framing and scripts', () => {
  it('sends CSP frame-ancestors and X-Frame-Options on pages and API responses, a fresh nonce per page', async () => {
    await start({})
    const pages = [await raw('GET', '/'), await raw('GET', '/experiments')]
    for (const p of pages) {
      expect(p.headers['x-frame-options']).toBe('DENY')
      const csp = String(p.headers['content-security-policy'])
      expect(csp).toMatch(/frame-ancestors 'none'/)
      expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}' 'strict-dynamic'(;|$)/)
      expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/)
    }
    const nonces = pages.map((p) => /'nonce-([^']+)'/.exec(String(p.headers['content-security-policy']))![1])
    expect(nonces[0]).not.toBe(nonces[1])
    // Next (the page handler) is given the same nonce, in the request's headers.
    expect(pageRequests.map((r) => r.nonce)).toEqual(nonces)
    expect(pageRequests.map((r) => r.csp)).toEqual(pages.map((p) => p.headers['content-security-policy']))
    for (const [method, path, body] of [
      ['GET', '/api/lab'],
      ['GET', '/metrics'],
      ['POST', '/api/lab/reset', '{}'],
      ['GET', '/api/nothing'],
      ['POST', '/api/lab/reset', 'null'],
    ] as const) {
      const r = await raw(method, path, {}, body)
      expect(r.headers['x-frame-options'], path).toBe('DENY')
      expect(r.headers['content-security-policy'], path).toBe("default-src 'none'; frame-ancestors 'none'")
    }
  })
})

describe('lockout: the token first, then the rate', () => {
  it('lets a valid-token request through right after 100 unauthenticated ones from the same address', async () => {
    await start({ token: TOKEN, controlRate: DEFAULT_CONTROL_RATE })
    const statuses: number[] = []
    for (let i = 0; i < 100; i++) statuses.push((await raw('POST', '/api/lab/reset', {}, '{}')).status)
    // Refused cheaply: 401 for the burst, then 429 in their own bucket.
    expect(statuses.slice(0, DEFAULT_CONTROL_RATE.burst)).toEqual(Array(DEFAULT_CONTROL_RATE.burst).fill(401))
    expect(new Set(statuses.slice(DEFAULT_CONTROL_RATE.burst))).toEqual(new Set([429]))
    for (let i = 0; i < 25; i++)
      await raw('POST', '/api/no-such-route', { authorization: 'Bearer wrong-token-wrong-token' }, '{}')
    const r = await raw('POST', '/api/lab/reset', bearer, '{}')
    expect(r.status).toBe(200)
    expect(lab.executed.map((e) => e.name)).toEqual(['reset'])
    // A wrong token does not buy a fresh bucket either.
    expect((await raw('POST', '/api/lab/reset', { authorization: 'Bearer x' }, '{}')).status).toBe(429)
  })

  it('on the socket too: a handshake or per-command token works after 100 unauthenticated commands', async () => {
    await start({ token: TOKEN, controlRate: DEFAULT_CONTROL_RATE })
    const anonymous = open()
    await connected(anonymous)
    const refused = await Promise.all(Array.from({ length: 100 }, () => anonymous.emitWithAck('command', 'reset', {})))
    expect(refused.every((r) => !r.ok)).toBe(true)
    expect(refused.filter((r) => !r.ok && r.error === 'rate limited').length).toBe(100 - DEFAULT_CONTROL_RATE.burst)
    expect(await anonymous.emitWithAck('command', 'reset', {}, { token: TOKEN })).toEqual({ ok: true })
    const holder = open({ auth: { token: TOKEN } })
    await connected(holder)
    expect(await holder.emitWithAck('command', 'addWorker', {})).toEqual({ ok: true })
    expect((await raw('POST', '/api/workers', bearer, '{}')).status).toBe(200)
  })

  it('keys IPv6 clients by their /64 and IPv4 (mapped or not) by address', () => {
    expect(rateKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64')
    expect(rateKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64')
    expect(rateKey('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64')
    expect(rateKey('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(rateKey('2001:db8:1:3::1')).not.toBe(rateKey('2001:db8:1:2::1'))
    expect(rateKey('::1')).toBe('0:0:0:0::/64')
    expect(rateKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(rateKey('::ffff:192.0.2.7')).toBe('192.0.2.7')
    expect(rateKey('192.0.2.7')).toBe('192.0.2.7')
  })

  it('gives one IPv6 /64 one bucket: new addresses in it buy no fresh burst, another /64 has its own', () => {
    const now = 0
    const gate = new AccessGate({ token: TOKEN, lockReads: false, controlRate: DEFAULT_CONTROL_RATE }, () => now)
    const inNet = (i: number) => `2001:db8:7:7:${(i + 1).toString(16)}::${(i * 7 + 1).toString(16)}`
    const admitted = Array.from({ length: DEFAULT_CONTROL_RATE.burst + 10 }, (_, i) => gate.admitAuthorized(inNet(i)))
    expect(admitted.filter((r) => r === null)).toHaveLength(DEFAULT_CONTROL_RATE.burst)
    expect(admitted.slice(DEFAULT_CONTROL_RATE.burst).every((r) => r?.status === 429)).toBe(true)
    // Refusals for a wrong token from the same /64 share their own bucket, and leave the holders' alone.
    const refused = Array.from(
      { length: DEFAULT_CONTROL_RATE.burst + 5 },
      (_, i) => gate.refuseUnauthorized(inNet(100 + i), 'no').status,
    )
    expect(refused.filter((s) => s === 401)).toHaveLength(DEFAULT_CONTROL_RATE.burst)
    expect(gate.admitAuthorized('2001:db8:7:8::1')).toBeNull()
    expect(gate.refuseUnauthorized('2001:db8:7:8::1', 'no').status).toBe(401)
  })
})

describe('bodies and edges', () => {
  it('refuses a JSON null body with 400 wherever an object is expected, and changes nothing', async () => {
    await start({})
    for (const path of [
      '/api/faults/drop-acks',
      '/api/workers',
      '/api/faults/poison',
      '/api/lab/reset',
      '/api/workers/worker-1/kill',
      '/api/lab/config',
      '/api/views/partition',
      '/api/workers/worker-1/pause',
      '/api/scenarios/zombie-fencing',
    ]) {
      const r = await raw('POST', path, {}, 'null')
      expect(r.status, path).toBe(400)
      expect((JSON.parse(r.body) as { error: string }).error, path).toMatch(/object|no body/)
    }
    expect(lab.executed).toEqual([])
    expect((await raw('POST', '/api/workers', {}, '')).status).toBe(200)
  })

  it('answers HEAD on the read routes with the headers of GET and no body', async () => {
    await start({})
    for (const path of ['/api/lab', '/api', '/api/experiments', '/metrics']) {
      const get = await raw('GET', path)
      const head = await raw('HEAD', path)
      expect(head.status, path).toBe(get.status)
      expect(head.body, path).toBe('')
      expect(head.headers['content-type'], path).toBe(get.headers['content-type'])
    }
    expect((await raw('HEAD', '/api/lab')).status).toBe(200)
  })

  it('rate-limits resync: beyond the burst the ack is null until the bucket refills', async () => {
    await start({})
    const c = open()
    await connected(c)
    const acks = []
    for (let i = 0; i < RESYNC_RATE.burst + 5; i++) acks.push(await c.emitWithAck('resync'))
    expect(acks.slice(0, RESYNC_RATE.burst).every((a) => a !== null && typeof a.seq === 'number')).toBe(true)
    expect(acks.slice(RESYNC_RATE.burst)).toEqual(Array(5).fill(null))
    // Another browser has its own allowance.
    const other = open()
    await connected(other)
    expect(await other.emitWithAck('resync')).toMatchObject({ seq: expect.any(Number) })
  })

  it('says whether the controls and the reads need a token (GET /api/access), without the token', async () => {
    await start({})
    expect(await (await fetch(`${url}/api/access`)).json()).toEqual({ controlNeedsToken: false, readsNeedToken: false })
    await harness!.close()
    await start({ token: TOKEN })
    expect(await (await fetch(`${url}/api/access`)).json()).toEqual({ controlNeedsToken: true, readsNeedToken: false })
    expect(
      (await fetch(`${url}/api/access`, { method: 'POST', headers: { origin: url, authorization: `Bearer ${TOKEN}` } }))
        .status,
    ).toBe(405)
  })

  it('tells a missing token from a wrong one, at the handshake and on commands', async () => {
    await start({ token: TOKEN, lockReads: true })
    await expect(connected(open())).rejects.toThrow(/^unauthorized: token required/)
    await expect(connected(open({ auth: { token: 'z'.repeat(32) } }))).rejects.toThrow(
      /^unauthorized: the token is not valid$/,
    )
    await harness!.close()
    await start({ token: TOKEN })
    const wrong = open({ auth: { token: 'z'.repeat(32) } })
    await connected(wrong)
    expect(await wrong.emitWithAck('command', 'reset', {})).toEqual({
      ok: false,
      error: 'unauthorized: the token is not valid',
    })
    const none = open()
    await connected(none)
    expect(await none.emitWithAck('command', 'reset', {})).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^unauthorized: token required/),
    })
    expect(JSON.parse((await raw('POST', '/api/lab/reset', {}, '{}')).body)).toEqual({
      error: expect.stringMatching(/^unauthorized: token required/),
    })
    expect(JSON.parse((await raw('POST', '/api/lab/reset', { authorization: 'Bearer nope' }, '{}')).body)).toEqual({
      error: 'unauthorized: the token is not valid',
    })
  })
})

describe('the broadcast', () => {
  it('is built once per push and sent as the same bytes (one WebSocket frame) to every client', async () => {
    await start({})
    const engine = http.live.io.engine as unknown as {
      opts: { perMessageDeflate: unknown }
      on(
        e: 'connection',
        f: (s: {
          on(e: 'packetCreate', f: (p: { data?: unknown; options?: { wsPreEncodedFrame?: unknown } }) => void): void
        }) => void,
      ): void
    }
    expect(engine.opts.perMessageDeflate).toBe(false)
    const frames: unknown[][] = []
    engine.on('connection', (s) => {
      const mine: unknown[] = []
      frames.push(mine)
      s.on('packetCreate', (p) => {
        if (typeof p.data === 'string' && p.data.startsWith('2["delta"')) mine.push(p.options?.wsPreEncodedFrame)
      })
    })
    const N = 6
    const received: unknown[][] = []
    for (let i = 0; i < N; i++) {
      const c = open()
      const mine: unknown[] = []
      received.push(mine)
      c.on('delta', (d) => mine.push(d))
      await connected(c)
    }
    for (let i = 0; i < 5; i++) {
      lab.tick()
      await new Promise((r) => setTimeout(r, 80))
    }
    await expect.poll(() => Math.min(...received.map((r) => r.length)), { timeout: 60_000 }).toBeGreaterThanOrEqual(5)
    for (const r of received) expect(r).toEqual(received[0])
    // On the server: every client was handed the very same precomputed frame for each push.
    expect(frames).toHaveLength(N)
    const pushes = Math.min(...frames.map((f) => f.length))
    expect(pushes).toBeGreaterThanOrEqual(5)
    for (let i = 0; i < pushes; i++) {
      expect(Buffer.isBuffer(frames[0]![i]) || Array.isArray(frames[0]![i])).toBe(true)
      for (const f of frames) expect(f[i]).toBe(frames[0]![i])
    }
  })
})
