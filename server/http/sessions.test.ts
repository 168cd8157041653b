// Live sessions under clients that do not keep up: a polling session that never fetches holds no
// backlog (latest wins: the newest full snapshot once it drains, never the queue of old ones), the
// Host allowlist on every request of a session, the caps on sessions per client and in total, and
// the cap on what one session may have queued. Raw engine.io polling over node:http, on the fake lab.

import { request as httpRequest, type IncomingMessage } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import type { FakeLab } from './__fixtures__/fake-lab.ts'
import { connected, startHttp, type HttpHarness } from './__fixtures__/http-harness.ts'
import type { AccessPolicy } from './access.ts'
import { BEHIND, queuedPackets } from './live-socket.ts'
import { DEFAULT_SESSION_LIMITS, resolveSessionLimits, type SessionLimits } from './session-limits.ts'
import { resolveAccessPolicy } from './access.ts'

let harness: HttpHarness | null = null
let lab: FakeLab
let port: number

async function start(policy: Partial<AccessPolicy> = {}): Promise<void> {
  harness = await startHttp(policy)
  ;({ lab, port } = harness)
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

function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const POLL = '/socket.io/?EIO=4&transport=polling'

/** A raw engine.io polling session: GET only when told to. */
interface Poller {
  sid: string
  /** One poll: the engine packets it returned. */
  get(headers?: Record<string, string>): Promise<string[]>
  post(packets: string[], headers?: Record<string, string>): Promise<Answer>
}

async function handshake(headers: Record<string, string> = {}): Promise<Poller> {
  const open = await raw('GET', POLL, headers)
  if (open.status !== 200) throw new Error(`handshake answered ${open.status}: ${open.body}`)
  const sid = (JSON.parse(open.body.slice(1)) as { sid: string }).sid
  const path = `${POLL}&sid=${encodeURIComponent(sid)}`
  return {
    sid,
    async get(h = {}) {
      const r = await raw('GET', path, h)
      if (r.status !== 200) throw new Error(`poll answered ${r.status}: ${r.body}`)
      return r.body.split('\x1e')
    },
    post: (packets, h = {}) =>
      raw('POST', path, { 'content-type': 'text/plain;charset=UTF-8', ...h }, packets.join('\x1e')),
  }
}

/** The socket.io events among engine packets: ['snapshot', {...}], ['delta', {...}]. */
const events = (packets: string[]) =>
  packets.filter((p) => p.startsWith('42')).map((p) => JSON.parse(p.slice(2)) as [string, { seq: number }])

/** The engine session of a sid (its queue, as the server holds it). */
const engineSession = (sid: string) =>
  (harness!.http.live.io.engine as unknown as { clients: Record<string, { writeBuffer: { data?: unknown }[] }> })
    .clients[sid]

const queuedBytes = (sid: string) =>
  (engineSession(sid)?.writeBuffer ?? []).reduce((n, p) => n + (typeof p.data === 'string' ? p.data.length : 0), 0)

/** Ticks the fake lab `n` times, one push each (the harness pushes at most every 20 ms). */
async function pushes(n: number): Promise<LabSnapshot> {
  let s = lab.snapshot()
  for (let i = 0; i < n; i++) {
    s = lab.tick()
    await sleep(30)
  }
  return s
}

describe('latest wins', () => {
  it('queues nothing for a polling session that never fetches, however often it asks to resync', async () => {
    await start()
    const hoarders = await Promise.all(Array.from({ length: 5 }, () => handshake()))
    for (const h of hoarders) expect((await h.post(['40'])).status).toBe(200)
    for (let i = 0; i < 20; i++) {
      for (const h of hoarders) await h.post([`42${i}["resync"]`, '3'])
      lab.tick()
      await sleep(25)
    }
    const latest = lab.snapshot()
    for (const h of hoarders) {
      // Its connect answer alone: no snapshot, no delta, no resync answer.
      expect(engineSession(h.sid)!.writeBuffer.length).toBeLessThanOrEqual(2)
      expect(queuedBytes(h.sid)).toBeLessThan(200)
    }
    // /metrics says so: five sessions, a few hundred bytes queued for them all.
    const metrics = await (await fetch(`${harness!.url}/metrics`)).text()
    expect(metrics).toMatch(/^eoscope_socket_sessions 5$/m)
    const queued = Number(/^eoscope_socket_queued_bytes (\d+)$/m.exec(metrics)?.[1])
    expect(queued).toBeGreaterThan(0)
    expect(queued).toBeLessThan(5 * 400)
    // When it does fetch: the connect answer, then the newest snapshot, never a backlog.
    const h = hoarders[0]!
    const first = await h.get()
    expect(first.some((p) => p.startsWith('40'))).toBe(true)
    expect(events(first)).toEqual([])
    const second = events(await h.get())
    expect(second.map(([name]) => name)).toEqual(['snapshot'])
    expect(second[0]![1].seq).toBe(latest.seq)
    expect(first.concat(second.map((e) => JSON.stringify(e))).some((p) => /^43/.test(p))).toBe(false)
  })

  it('gives a client that fell behind the newest snapshot once it drains, not the deltas it missed', async () => {
    await start()
    const p = await handshake()
    await p.post(['40'])
    await p.get() // the connect answer
    const [[name, first]] = events(await p.get()) as [[string, { seq: number }]]
    expect(name).toBe('snapshot')
    // It stops fetching: the next push is queued for it (behind the write it is taking), then it is behind.
    const latest = await pushes(6)
    const socket = [...harness!.http.live.io.of('/').sockets.values()][0]!
    expect(socket.rooms.has(BEHIND)).toBe(true)
    expect(queuedPackets(socket)).toBe(1)
    const queued = events(await p.get())
    expect(queued.map(([n]) => n)).toEqual(['delta'])
    expect((queued[0]![1] as unknown as { base: number }).base).toBe(first.seq)
    const caughtUp = events(await p.get())
    expect(caughtUp.map(([n]) => n)).toEqual(['snapshot'])
    expect(caughtUp[0]![1].seq).toBe(latest.seq)
    // In step again: the next push is a delta on that snapshot.
    const poll = p.get()
    const next = await pushes(1)
    const [[kind, delta]] = events(await poll) as [[string, { base: number; seq: number }]]
    expect(kind).toBe('delta')
    expect(delta).toMatchObject({ base: latest.seq, seq: next.seq })
  })

  it('keeps WebSocket clients on deltas, every push', async () => {
    await start()
    const c = harness!.open()
    const got: string[] = []
    c.on('snapshot', () => got.push('snapshot'))
    c.on('delta', () => got.push('delta'))
    await connected(c)
    await pushes(10)
    await expect.poll(() => got.length).toBe(11)
    expect(got).toEqual(['snapshot', ...Array(10).fill('delta')])
  })
})

describe('the Host allowlist on every request of a session', () => {
  const rebind = () => ({ host: `rebind.evil.example:${port}` })

  it('refuses a poll, a post and an upgrade of an established session that name another Host (421)', async () => {
    await start()
    const p = await handshake()
    expect((await p.post(['40'])).status).toBe(200)
    const posted = await p.post(['42["resync"]'], rebind())
    expect(posted.status).toBe(421)
    expect(JSON.parse(posted.body)).toEqual({ error: expect.stringMatching(/^misdirected request/) })
    const polled = await raw('GET', `${POLL}&sid=${p.sid}`, rebind())
    expect(polled.status).toBe(421)
    expect(polled.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'")
    // The upgrade of that session to a WebSocket.
    const upgrade = await raw('GET', `/socket.io/?EIO=4&transport=websocket&sid=${p.sid}`, {
      ...rebind(),
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-version': '13',
    })
    expect(upgrade.status).toBe(421)
    expect(JSON.parse(upgrade.body)).toEqual({ error: expect.stringMatching(/^misdirected request/) })
    // The session itself goes on under its own name.
    expect((await p.get()).some((x) => x.startsWith('40'))).toBe(true)
  })
})

describe('session limits', () => {
  const limits = (l: Partial<SessionLimits>) => ({ sessions: { ...DEFAULT_SESSION_LIMITS, ...l } })

  it('refuses a handshake beyond the sessions one address may hold (429); admits one once one closes', async () => {
    await start(limits({ maxSessionsPerClient: 2 }))
    const [a] = [await handshake(), await handshake()]
    const refused = await raw('GET', POLL)
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('5')
    expect(JSON.parse(refused.body)).toEqual({
      error:
        'too many live sessions from this address: at most 2 at once (EOSCOPE_MAX_SESSIONS_PER_CLIENT); ' +
        'close another tab or retry later',
    })
    await expect(connected(harness!.open())).rejects.toBeTruthy()
    expect(harness!.http.live.sessions.sessions).toBe(2)
    await a!.post(['1']) // engine.io close
    await expect.poll(() => harness!.http.live.sessions.sessions).toBe(1)
    const c = harness!.open()
    await connected(c)
    expect(harness!.http.live.sessions.sessionsOf('127.0.0.1')).toBe(2)
  })

  it('refuses a handshake beyond the sessions the server holds in total (503)', async () => {
    await start(limits({ maxSessions: 2 }))
    await handshake()
    await handshake()
    const refused = await raw('GET', POLL)
    expect(refused.status).toBe(503)
    expect(JSON.parse(refused.body)).toEqual({
      error: 'too many live sessions: this server holds at most 2 at once (EOSCOPE_MAX_SESSIONS); retry later',
    })
  })

  it('closes a session once more than its byte cap is queued for it, and only that one', async () => {
    await start(limits({ maxBufferedBytes: 4096 }))
    const watcher = harness!.open()
    await connected(watcher)
    const p = await handshake()
    await p.post(['40'])
    // Unknown events are each answered: 100 answers nobody takes.
    await p.post(Array.from({ length: 100 }, (_, i) => `42${i}["nope"]`))
    await expect.poll(() => engineSession(p.sid)).toBeUndefined()
    const r = await raw('GET', `${POLL}&sid=${p.sid}`)
    expect(r.status).toBe(400)
    expect(watcher.connected).toBe(true)
    expect(harness!.http.live.sessions.sessions).toBe(1)
  })

  it('reads its limits from the environment and refuses a value out of range', () => {
    expect(resolveSessionLimits({})).toEqual({ ok: true, limits: DEFAULT_SESSION_LIMITS })
    expect(
      resolveSessionLimits({
        EOSCOPE_MAX_SESSIONS: '50',
        EOSCOPE_MAX_SESSIONS_PER_CLIENT: ' 8 ',
        EOSCOPE_SESSION_BUFFER_BYTES: '524288',
      }),
    ).toEqual({ ok: true, limits: { maxSessions: 50, maxSessionsPerClient: 8, maxBufferedBytes: 524_288 } })
    for (const [name, value] of [
      ['EOSCOPE_MAX_SESSIONS', '0'],
      ['EOSCOPE_MAX_SESSIONS_PER_CLIENT', '1.5'],
      ['EOSCOPE_SESSION_BUFFER_BYTES', '1000'],
      ['EOSCOPE_MAX_SESSIONS', 'many'],
    ] as const) {
      const r = resolveAccessPolicy({ [name]: value }, '127.0.0.1')
      expect(r, `${name}=${value}`).toMatchObject({ ok: false, error: expect.stringMatching(new RegExp(`^${name} `)) })
    }
    const ok = resolveAccessPolicy({ EOSCOPE_MAX_SESSIONS_PER_CLIENT: '3' }, '127.0.0.1')
    expect(ok.ok && ok.policy.sessions?.maxSessionsPerClient).toBe(3)
  })
})
