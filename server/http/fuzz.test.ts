// Bad input against the real lab behind the real http layer (attachEoscopeHttp, as server/index.ts
// runs it, on a free port): more than 10,000 malformed, oversized, wrongly typed and out-of-range
// socket commands and REST requests, generated from a fixed seed. Each must get a clear error (a
// 4xx JSON body with an `error` string, or the ack { ok: false, error }), the server must keep
// answering, and the lab's configuration and workers must be exactly what they were.

import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { io as connect, type Socket } from 'socket.io-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import { ExperimentService } from '../experiments/experiment-service.ts'
import { ExperimentStore } from '../experiments/experiment-store.ts'
import { createLab, type Lab } from '../lab/index.ts'
import { attachEoscopeHttp, type EoscopeHttp } from './app.ts'
import { untilProgress } from '../../e2e/progress.ts'

const SEED = 20240607
const SOCKET_MESSAGES = 6_000
const REST_REQUESTS = 5_000
const TOKEN = '0f9e8d7c6b5a49382716a5b4c3d2e1f0'
/** How long one socket message may wait for its ack (wall-clock): generous, for a busy machine. */
const ACK_BOUND_MS = 60_000

let server: Server
let http: EoscopeHttp
let lab: Lab
let url: string
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'eoscope-fuzz-'))
  lab = await createLab({ ratePerSec: 200 })
  server = createServer()
  http = attachEoscopeHttp(server, {
    lab,
    // A token, as on a non-loopback address; the rate limit is opened wide so that every message
    // reaches validation (the limit has its own tests).
    policy: { token: TOKEN, lockReads: false, controlRate: { perSec: 1e9, burst: 1e9 } },
    experiments: new ExperimentService({ store: new ExperimentStore(dir) }),
    defaultMetrics: false,
  })
  // A kept-alive connection the server closes as idle while the client reuses it fails with
  // "fetch failed" before any request reached the server: on a loaded machine the pool's gaps
  // between requests can pass Node's 5 s default. The connections stay open for the storm.
  server.keepAliveTimeout = 600_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}, 60_000)

afterAll(async () => {
  await http.close()
  await lab.close()
  rmSync(dir, { recursive: true, force: true })
})

// ---- a seeded generator --------------------------------------------------------------------------

function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

class Gen {
  private readonly next: () => number
  private readonly anything: unknown[]
  private readonly strings: string[]
  private ai = 0
  private si = 0

  constructor(seed: number) {
    this.next = mulberry32(seed)
    // Odd values of every JSON-able shape (deep, unicode, prototype keys), drawn by fast-check from the same seed.
    this.anything = fc.sample(
      fc.anything({ maxDepth: 4, withObjectString: true, withNullPrototype: true, withBoxedValues: false }),
      { seed, numRuns: 2_000 },
    )
    this.strings = fc.sample(
      fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 40 })),
      { seed: seed + 1, numRuns: 2_000 },
    )
  }
  float = () => this.next()
  int = (lo: number, hi: number) => lo + Math.floor(this.next() * (hi - lo + 1))
  pick = <T>(xs: readonly T[]): T => xs[Math.floor(this.next() * xs.length)]!
  chance = (p: number) => this.next() < p
  any = (): unknown => this.anything[this.ai++ % this.anything.length]
  /** Like any(), never undefined (JSON would drop the key and leave a valid payload). */
  defined = (): unknown => this.any() ?? 'undefined'
  str = (): string => this.strings[this.si++ % this.strings.length]!
  /** A value that is not a plain object ({} or null would be a valid empty payload). */
  notAnObject = (): unknown =>
    this.pick<() => unknown>([
      () => this.str(),
      () => this.int(-1e9, 1e9),
      () => this.float(),
      () => true,
      () => false,
      () => [this.any()],
      () => [],
      () => 'x'.repeat(this.int(1, 12_000)),
    ])()
  long = (n = this.int(65, 12_000)) => 'w'.repeat(n)
}

const SETTINGS = [
  'processing.guarantee',
  'commit.interval.ms',
  'transaction.timeout.ms',
  'session.timeout.ms',
  'enable.idempotence',
  'inputRatePerSec',
  'workers',
] as const

/** A setting's value that its schema refuses. */
function badSetting(g: Gen, key: (typeof SETTINGS)[number]): unknown {
  const wrongType = () => g.pick<unknown>([g.str(), [1], { v: 1 }, null, true, '100', g.any()])
  switch (key) {
    case 'processing.guarantee':
      return g.pick<unknown>([
        'exactly-once',
        'EXACTLY_ONCE',
        'at-most-once',
        'none',
        '',
        1,
        null,
        ['exactly_once'],
        g.long(),
      ])
    case 'commit.interval.ms':
      return g.pick<unknown>([9, 0, -1, 30_001, 1e12, 10.5, -1e308, wrongType()])
    case 'transaction.timeout.ms':
      return g.pick<unknown>([99, 0, -5, 900_001, 1e15, 150.25, wrongType()])
    case 'session.timeout.ms':
      return g.pick<unknown>([99, -1, 60_001, 1e9, 0.5, wrongType()])
    case 'enable.idempotence':
      return g.pick<unknown>(['true', 1, 0, 'yes', null, [], wrongType()])
    case 'inputRatePerSec':
      return g.pick<unknown>([-1, -0.001, 200_001, 1e300, wrongType()])
    case 'workers':
      return g.pick<unknown>([0, -3, 13, 99, 2.5, 1e6, wrongType()])
  }
}

/** A setConfig payload with at least one defect. */
function badSetConfig(g: Gen): unknown {
  switch (g.int(0, 4)) {
    case 0:
      return {}
    case 1: {
      const key = g.pick(SETTINGS)
      const p: Record<string, unknown> = { [key]: badSetting(g, key) }
      // Sometimes alongside a valid-looking setting: the bad one must still refuse the whole change.
      if (g.chance(0.5)) p['commit.interval.ms'] = key === 'commit.interval.ms' ? p[key] : 250
      return p
    }
    case 2:
      return {
        [g.pick([
          'commit.interval',
          'commitIntervalMs',
          'processing_guarantee',
          '__proto__',
          'constructor',
          'isolation.level',
          `${g.str()}!`,
          g.long(200),
        ])]: g.defined(),
        'commit.interval.ms': 200,
      }
    case 3:
      return g.notAnObject()
    default:
      return JSON.parse(`{"__proto__": {"workers": 1}, "constructor": {"prototype": {"x": 1}}}`)
  }
}

/** A worker id that names no worker, or is not a worker id at all. */
function badWorkerId(g: Gen): unknown {
  return g.pick<unknown>([
    `ghost-${g.int(0, 1e6)}`,
    '',
    'a b',
    '../worker-1',
    'worker-1;drop',
    g.long(65),
    g.long(),
    `${g.str()}\u0000`,
    1,
    null,
    ['worker-1'],
    { id: 'worker-1' },
    g.any(),
    'worker-99',
    'WORKER_1',
  ])
}

type Command = [name: unknown, payload: unknown]

/** A lab command (name and payload) with at least one defect. */
function badCommand(g: Gen): Command {
  switch (g.int(0, 11)) {
    case 0:
      return [g.pick<unknown>([g.any(), 42, null, true, ['setConfig'], { name: 'reset' }, -0, 1e308]), {}]
    case 1:
      return [
        g.pick([
          g.str(),
          'formatDisk',
          'toString',
          '__proto__',
          'constructor',
          'hasOwnProperty',
          'SETCONFIG',
          'setconfig',
          'kill',
          g.long(),
          ' reset',
          'reset\n',
        ]),
        g.any(),
      ]
    case 2:
    case 3:
      return ['setConfig', badSetConfig(g)]
    case 4: {
      const name = g.pick(['killWorker', 'pauseWorker', 'resumeWorker'])
      if (g.chance(0.2))
        return [
          name,
          g.pick<unknown>([{}, { workerId: 'worker-1', extra: 1 }, { worker: 'worker-1' }, g.notAnObject()]),
        ]
      return [name, { workerId: badWorkerId(g) }]
    }
    case 5:
      return [
        g.pick(['addWorker', 'reset']),
        g.pick<unknown>([{ x: 1 }, { workers: 1 }, { '': '' }, g.notAnObject(), { force: true }]),
      ]
    case 6:
      return [
        'dropAcks',
        g.pick<unknown>([
          { count: 0 },
          { count: -1 },
          { count: 1001 },
          { count: 1.5 },
          { count: '1' },
          { count: null },
          { count: 1, extra: true },
          { n: 1 },
          g.notAnObject(),
          { count: 1e12 },
        ]),
      ]
    case 7:
      return [
        'runScenario',
        g.pick<unknown>([
          { name: `no-such-scenario-${g.int(0, 9999)}` },
          { name: 'Zombie' },
          { name: '' },
          { name: g.long(65) },
          { name: 'zombie', extra: 1 },
          { name: 1 },
          {},
          g.notAnObject(),
          { name: '../zombie' },
        ]),
      ]
    case 8:
      return [
        'selectPartition',
        g.pick<unknown>([
          { topic: 'output', partition: g.int(6, 255) },
          { topic: 'output', partition: -1 },
          { topic: 'output', partition: 256 },
          { topic: 'outputs', partition: 0 },
          { topic: 'input', partition: 1.5 },
          { topic: 'changelog' },
          { partition: 0 },
          { topic: 'input', partition: '0' },
          g.notAnObject(),
        ]),
      ]
    case 9:
      return ['setConfig', { [g.pick(SETTINGS)]: g.defined(), [`${g.str()}?`]: g.defined() }]
    case 10:
      return [
        g.pick(['killWorker', 'pauseWorker']),
        { workerId: `ghost-${g.int(0, 99)}`, ...(g.chance(0.5) ? { pad: g.long() } : {}) },
      ]
    default:
      return ['setConfig', { 'commit.interval.ms': g.pick([9, 30_001, -1]), pad: g.long(g.int(100, 14_000)) }]
  }
}

// ---- checks --------------------------------------------------------------------------------------

/** The lab's stable state: configuration and workers (ids and states). */
function stable(s: LabSnapshot) {
  return { config: s.config, workers: s.workers.map((w) => ({ id: w.id, state: w.state })) }
}

const STACK = /\n\s+at |\bat \S+ \(|[\w/]+\.(ts|js|mjs):\d+|node_modules/

const failures: string[] = []
/** What the storm got back: statuses and the kinds of error (first words), for the summary line. */
const tally = new Map<string, number>()
const count = (k: string) => tally.set(k, (tally.get(k) ?? 0) + 1)
function fail(what: string, detail: unknown) {
  if (failures.length < 20) failures.push(`${what}: ${JSON.stringify(detail).slice(0, 400)}`)
}

function checkAck(sent: unknown, ack: unknown): void {
  const a = ack as { ok?: unknown; error?: unknown }
  count(`ack ${String(a?.error).split(/[ :]/).slice(0, 2).join(' ').replace(/\d+/g, 'N')}`)
  if (
    a?.ok !== false ||
    typeof a.error !== 'string' ||
    a.error.trim() === '' ||
    a.error.length > 2000 ||
    STACK.test(a.error)
  )
    fail('socket', { sent, ack })
}

async function checkResponse(sent: unknown, r: Response): Promise<void> {
  const text = await r.text()
  let body: { error?: unknown } | null = null
  try {
    body = JSON.parse(text) as { error?: unknown }
  } catch {
    // fall through
  }
  count(`${r.status}`)
  if (
    r.status < 400 ||
    r.status >= 500 ||
    !/application\/json/.test(r.headers.get('content-type') ?? '') ||
    typeof body?.error !== 'string' ||
    body.error.trim() === '' ||
    STACK.test(text)
  ) {
    fail('rest', { sent, status: r.status, text: text.slice(0, 200) })
  }
}

/** Runs `tasks` with at most `width` at once. */
async function pool<T>(items: T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let i = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (i < items.length) await run(items[i++]!)
    }),
  )
}

// ---- the storm -----------------------------------------------------------------------------------

describe('a storm of bad input', () => {
  const refusesFuzzedInput =
    `refuses ${SOCKET_MESSAGES} socket messages and ${REST_REQUESTS} REST requests with clear errors, stays up ` +
    `and changes nothing`
  it(refusesFuzzedInput, async () => {
    const before = stable(lab.snapshot())
    expect(before.workers.length).toBe(3)
    const g = new Gen(SEED)

    // -- the socket: an authorized socket (handshake token) and an anonymous one.
    const open = (auth?: Record<string, unknown>) => {
      const c: Socket = connect(url, { transports: ['websocket'], auth, reconnection: false, forceNew: true })
      return new Promise<Socket>((resolve, reject) => {
        c.on('connect', () => resolve(c))
        c.on('connect_error', reject)
      })
    }
    const holder = await open({ token: TOKEN })
    const anonymous = await open({ token: g.pick([12345, 'nope', '', TOKEN.slice(1), [TOKEN]]) })
    let disconnects = 0
    holder.on('disconnect', () => disconnects++)
    anonymous.on('disconnect', () => disconnects++)

    type SocketMessage = { socket: Socket; event: string; args: unknown[] }
    const messages: SocketMessage[] = []
    for (let i = 0; i < SOCKET_MESSAGES; i++) {
      const roll = g.float()
      if (roll < 0.7) {
        messages.push({ socket: holder, event: 'command', args: badCommand(g) })
      } else if (roll < 0.8) {
        // Valid commands that the anonymous socket may not send, with no token, a wrong one or a malformed one.
        const cmd: Command = g.pick<Command>([
          ['reset', {}],
          ['addWorker', {}],
          ['killWorker', { workerId: before.workers[0]!.id }],
          ['setConfig', { workers: 5 }],
          ['dropAcks', { count: 3 }],
        ])
        const meta = g.pick<unknown[]>([
          [],
          [{ token: 'x'.repeat(32) }],
          [{ token: 42 }],
          [{ tok: TOKEN }],
          [TOKEN],
          [null],
          [{ token: `${TOKEN} ` }],
        ])
        messages.push({ socket: anonymous, event: 'command', args: [...cmd, ...meta] })
      } else if (roll < 0.88) {
        messages.push({ socket: holder, event: 'command', args: [...badCommand(g), { token: TOKEN }, g.any()] })
      } else if (roll < 0.95) {
        messages.push({
          socket: holder,
          event: g.pick(['cmd', 'Command', 'snapshot', 'delta', 'execute', g.str() || 'x', 'connect_ok']),
          args: [g.any(), g.any()],
        })
      } else {
        // Too few arguments, or nothing but the ack.
        messages.push({
          socket: holder,
          event: 'command',
          args: g
            .pick<unknown[]>([[], [g.pick(['reset', 'addWorker', 'dropAcks'])], [g.any()]])
            .filter((a) => a !== 'reset' && a !== 'addWorker' && a !== 'dropAcks'),
        })
      }
    }
    // Fewer than two arguments to an empty command would be a valid command: those were dropped above.
    const socketStarted = performance.now()
    await pool(messages, 64, async (m) => {
      try {
        // A generous bound: 64 in flight on a busy machine; an ack that never comes still fails.
        const ack = await m.socket.timeout(ACK_BOUND_MS).emitWithAck(m.event, ...m.args)
        checkAck([m.event, ...m.args], ack)
      } catch (err) {
        fail('socket (no ack)', {
          sent: [m.event, ...m.args].map((a) => (typeof a === 'string' ? a.slice(0, 60) : a)),
          err: String(err),
        })
      }
    })
    const socketMs = performance.now() - socketStarted

    // One oversized frame (beyond socket.io's 16 KB limit) closes that connection only.
    const big = await open({ token: TOKEN })
    const closed = new Promise<string>((r) => big.on('disconnect', (reason) => r(reason)))
    big.emit('command', 'setConfig', { pad: 'x'.repeat(40_000) }, () =>
      fail('socket', 'an oversized frame was acknowledged'),
    )
    expect(await closed).toMatch(/transport/)
    expect(disconnects).toBe(0)

    // -- REST
    type RestRequest = { method: string; path: string; headers: Record<string, string>; body?: string }
    const auth = { authorization: `Bearer ${TOKEN}` }
    const json = { 'content-type': 'application/json' }
    const commandPaths = (cmd: Command): { path: string; body: unknown } | null => {
      const [name, payload] = cmd
      switch (name) {
        case 'setConfig':
          return { path: '/api/lab/config', body: payload }
        case 'dropAcks':
          return { path: '/api/faults/drop-acks', body: payload }
        case 'addWorker':
          return { path: '/api/workers', body: payload }
        case 'reset':
          return { path: '/api/lab/reset', body: payload }
        case 'killWorker':
        case 'pauseWorker':
        case 'resumeWorker': {
          const id = (payload as { workerId?: unknown } | null)?.workerId
          const action = (name as string).replace('Worker', '')
          if (typeof id === 'string' && id !== '' && !(payload as object as Record<string, unknown>).extra)
            return { path: `/api/workers/${encodeURIComponent(id)}/${action}`, body: g.chance(0.5) ? undefined : {} }
          return { path: `/api/workers/ghost-${g.int(0, 99)}/${action}`, body: payload ?? { workerId: 'worker-1' } }
        }
        default:
          return null
      }
    }
    const badSweep = (): unknown => {
      const valid = { intervals: [10, 100], guarantees: ['exactly_once'], repeat: 1, backend: 'embedded' }
      switch (g.int(0, 5)) {
        case 0:
          return {
            ...valid,
            intervals: g.pick<unknown>([
              [],
              [0],
              [10, 10],
              [30_001],
              Array.from({ length: 13 }, (_, i) => i + 10),
              '10,100',
              [1.5],
              null,
            ]),
          }
        case 1:
          return {
            ...valid,
            guarantees: g.pick<unknown>([
              [],
              ['exactly-once'],
              ['exactly_once', 'exactly_once'],
              'exactly_once',
              [null],
            ]),
          }
        case 2:
          return { ...valid, repeat: g.pick<unknown>([0, 11, 1.5, '1', -1, null]) }
        case 3:
          return { ...valid, backend: g.pick<unknown>(['kafkaa', '', 'EMBEDDED', 1, null]) }
        case 4:
          return {
            ...valid,
            [g.pick(['extra', '__proto__', 'seed', 'label'])]: g.pick<unknown>([-1, 2 ** 31, g.long(81), { x: 1 }]),
          }
        default:
          return g.notAnObject()
      }
    }
    const requests: RestRequest[] = []
    for (let i = 0; i < REST_REQUESTS; i++) {
      const roll = g.float()
      if (roll < 0.45) {
        const target = commandPaths(badCommand(g)) ?? { path: '/api/lab/config', body: {} }
        requests.push({
          method: 'POST',
          path: target.path,
          headers: { ...auth, ...json },
          body: target.body === undefined ? undefined : JSON.stringify(target.body),
        })
      } else if (roll < 0.55) {
        // Bodies that are not JSON, or not JSON by their content type.
        const body = g.pick([
          `{"commit.interval.ms":`,
          '{',
          '[',
          "{'workers': 3}",
          '{"workers": 3,}',
          'NaN',
          '\u0000\u0001\u0002',
          `${g.str()}{`,
          '{"a":1}{"b":2}',
          '['.repeat(5000),
          '\uFEFF{"workers":99}',
          'undefined',
        ])
        const type = g.pick([
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json-patch',
          'multipart/form-data; boundary=x',
          '',
        ])
        const p = g.pick([
          '/api/lab/config',
          '/api/workers',
          '/api/lab/reset',
          '/api/faults/drop-acks',
          '/api/experiments',
          '/api/workers/ghost-1/kill',
        ])
        requests.push({
          method: 'POST',
          path: p,
          headers: { ...auth, ...(type ? { 'content-type': type } : {}) },
          body: body === '' ? 'x' : body,
        })
      } else if (roll < 0.62) {
        // Oversized bodies.
        const size = g.int(16 * 1024 + 1, 200 * 1024)
        requests.push({
          method: 'POST',
          path: g.pick(['/api/lab/config', '/api/experiments', '/api/workers']),
          headers: { ...auth, ...json },
          body: `{"pad":"${'y'.repeat(size)}"}`,
        })
      } else if (roll < 0.72) {
        // Control without the token, with a wrong one, or a malformed header; and another origin's page.
        const target = g.pick<[string, unknown]>([
          ['/api/lab/reset', {}],
          ['/api/workers', {}],
          ['/api/lab/config', { workers: 5 }],
          ['/api/faults/drop-acks', { count: 2 }],
          [`/api/workers/${before.workers[0]!.id}/kill`, {}],
          ['/api/experiments/cancel', {}],
        ])
        const headers: Record<string, string> = g.pick<Record<string, string>>([
          {},
          { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
          { authorization: TOKEN },
          { authorization: `Basic ${TOKEN}` },
          { authorization: `Bearer ${TOKEN}x` },
          { authorization: 'Bearer' },
          { authorization: `Bearer  ${'z'.repeat(5000)}` },
          { ...auth, origin: 'http://evil.example' },
          { ...auth, origin: 'null' },
        ])
        requests.push({
          method: 'POST',
          path: target[0],
          headers: { ...headers, ...json },
          body: JSON.stringify(target[1]),
        })
      } else if (roll < 0.8) {
        requests.push({
          method: 'POST',
          path: '/api/experiments',
          headers: { ...auth, ...json },
          body: JSON.stringify(badSweep()),
        })
      } else if (roll < 0.84) {
        requests.push({
          method: 'POST',
          path: '/api/experiments/cancel',
          headers: { ...auth, ...json },
          body: JSON.stringify(g.pick<unknown>([{ id: 'x' }, [], 1, 'cancel', { force: true }])),
        })
      } else if (roll < 0.94) {
        // Wrong methods, unknown endpoints, paths that do not decode.
        const p = g.pick([
          '/api/lab',
          '/api/lab/config',
          '/api/workers',
          '/api/lab/reset',
          '/api/faults/drop-acks',
          '/api/nothing',
          '/api/workers/worker-1',
          '/api/workers/worker-1/explode',
          '/api/workers/%E0%A4%A/kill',
          '/api/workers/%/pause',
          '/api/lab/config/../../reset',
          '/api//lab/reset',
          '/api/experiments/current',
          `/api/${g.long(2000)}`,
          '/api/workers/x/kill/again',
          '/metrics/x',
        ])
        const method = g.pick(['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'POST', 'GET'])
        const read = method === 'GET'
        const knownGet = ['/api/lab', '/api/experiments/current'].includes(p)
        if (read && knownGet) requests.push({ method: 'DELETE', path: p, headers: auth })
        else if (
          method === 'POST' &&
          ['/api/lab/config', '/api/workers', '/api/lab/reset', '/api/faults/drop-acks'].includes(p)
        )
          requests.push({ method: 'PUT', path: p, headers: auth })
        else
          requests.push({
            method,
            path: p,
            headers: { ...auth, ...(method === 'GET' ? {} : json) },
            body: method === 'GET' ? undefined : '{}',
          })
      } else {
        // Valid-format worker ids that name no worker; query strings do not help.
        const id = `${g.pick(['ghost', 'worker-0', 'worker-13', 'w'])}-${g.int(0, 999)}`
        const action = g.pick(['kill', 'pause', 'resume'])
        requests.push({
          method: 'POST',
          path: `/api/workers/${id}/${action}?workerId=${before.workers[0]!.id}`,
          headers: { ...auth, ...json },
          body: '{}',
        })
      }
    }
    const restStarted = performance.now()
    await pool(requests, 8, async (q) => {
      try {
        const r = await fetch(`${url}${q.path}`, { method: q.method, headers: q.headers, body: q.body })
        await checkResponse({ ...q, body: q.body?.slice(0, 100) }, r)
      } catch (err) {
        fail('rest (no response)', {
          ...q,
          body: q.body?.slice(0, 100),
          err: String(err),
          cause: String((err as { cause?: unknown }).cause),
        })
      }
    })
    const restMs = performance.now() - restStarted

    expect(failures, failures.join('\n')).toEqual([])
    expect(messages.length + requests.length).toBeGreaterThanOrEqual(10_000)

    // Still up: reads and a command answer, and the lab is unchanged.
    const lab1 = await fetch(`${url}/api/lab`)
    expect(lab1.status).toBe(200)
    const after = stable((await lab1.json()) as LabSnapshot)
    expect(after).toEqual(JSON.parse(JSON.stringify(before)))
    expect(stable(lab.snapshot())).toEqual(before)
    expect(await holder.emitWithAck('command', 'selectPartition', { topic: 'output', partition: 1 })).toEqual({
      ok: true,
    })
    // Still processing: its committed input moves on (progress, whatever the machine's load).
    const committed = lab.snapshot().totals.committedInput
    await untilProgress({
      what: 'the lab to commit more input',
      read: () => lab.snapshot().totals.committedInput,
      done: (n) => n > committed,
      stallMs: 60_000,
    })
    holder.disconnect()
    anonymous.disconnect()
    expect([...tally.keys()].filter((k) => /^4\d\d$/.test(k)).sort()).toEqual([
      '400',
      '401',
      '403',
      '404',
      '405',
      '413',
      '415',
    ])
    console.info(
      `fuzz: ${messages.length} socket messages in ${Math.round(socketMs)} ms, ${requests.length} REST ` +
        `requests in ${Math.round(restMs)} ms; ${JSON.stringify(Object.fromEntries([...tally].sort()))}`,
    )
  }, 600_000)
})
