import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { io as connect, type Socket } from 'socket.io-client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import { createFakeLab, type FakeLab } from './__fixtures__/fake-lab.ts'
import {
  applyPatch,
  type LiveClientToServerEvents,
  type LiveServerToClientEvents,
  type SnapshotDelta,
} from '../../lib/live-delta.ts'
import { attachLiveSocket, type LiveSocket } from './live-socket.ts'
import { MAX_BODY_BYTES, createRestHandler } from './rest.ts'

let server: Server
let lab: FakeLab
let live: LiveSocket
let url: string

beforeEach(async () => {
  lab = createFakeLab()
  server = createServer()
  const rest = createRestHandler(lab)
  server.on('request', (req, res) => {
    void rest(req, res).then((handled) => {
      if (!handled) {
        res.writeHead(404)
        res.end('not the api')
      }
    })
  })
  live = attachLiveSocket(server, { lab, minIntervalMs: 20, slowParts: {} })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterEach(async () => {
  await live.close()
  await lab.close()
})

const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })

describe('the REST API', () => {
  it('serves the snapshot and the route list', async () => {
    expect(((await (await fetch(`${url}/api/lab`)).json()) as LabSnapshot).seq).toBe(lab.snapshot().seq)
    const index = (await (await fetch(`${url}/api`)).json()) as { routes: unknown[] }
    expect(index.routes.length).toBeGreaterThan(5)
  })

  it('runs valid commands', async () => {
    expect((await post('/api/lab/config', { 'processing.guarantee': 'at_least_once' })).status).toBe(200)
    expect((await post('/api/workers/worker-1/kill')).status).toBe(200)
    expect((await post('/api/workers/worker-2/resume', {})).status).toBe(200)
    expect((await post('/api/faults/drop-acks', { count: 2 })).status).toBe(200)
    expect((await post('/api/workers')).status).toBe(200)
    expect((await post('/api/lab/reset')).status).toBe(200)
    expect(lab.executed.map((e) => e.name)).toEqual([
      'setConfig',
      'killWorker',
      'resumeWorker',
      'dropAcks',
      'addWorker',
      'reset',
    ])
    expect(lab.executed[1]!.payload).toEqual({ workerId: 'worker-1' })
  })

  it('maps the scenario, poison and partition view endpoints to their commands', async () => {
    expect((await post('/api/scenarios/crash-before-commit')).status).toBe(200)
    expect((await post('/api/faults/poison', { count: 3 })).status).toBe(200)
    expect((await post('/api/faults/poison/skip')).status).toBe(200)
    expect((await post('/api/views/partition', { topic: 'changelog', partition: 2 })).status).toBe(200)
    expect(lab.executed.map((e) => [e.name, e.payload])).toEqual([
      ['runScenario', { name: 'crash-before-commit' }],
      ['injectPoison', { count: 3 }],
      ['skipPoison', {}],
      ['selectPartition', { topic: 'changelog', partition: 2, window: 'latest' }],
    ])
  })

  it('maps the broker card endpoints to killBroker and restartBroker', async () => {
    expect((await post('/api/brokers/2/kill')).status).toBe(200)
    expect((await post('/api/brokers/3/restart', {})).status).toBe(200)
    expect(lab.executed.map((e) => [e.name, e.payload])).toEqual([
      ['killBroker', { brokerId: 2 }],
      ['restartBroker', { brokerId: 3 }],
    ])
  })

  it.each([
    ['a body for a broker action', '/api/brokers/1/kill', { brokerId: 2 }, 400],
    ['a broker id that is not a number', '/api/brokers/one/kill', undefined, 404],
    ['an unknown broker action', '/api/brokers/1/pause', undefined, 404],
    ['an unknown setting', '/api/lab/config', { 'commit.interval': 100 }, 400],
    ['a value out of range', '/api/lab/config', { 'commit.interval.ms': 5 }, 400],
    ['an empty change', '/api/lab/config', {}, 400],
    ['a body for a worker action', '/api/workers/worker-1/kill', { workerId: 'worker-2' }, 400],
    ['an unknown worker', '/api/workers/nobody/kill', undefined, 400],
    ['a bad worker id', '/api/workers/a%20b/pause', undefined, 400],
    ['a negative drop count', '/api/faults/drop-acks', { count: -1 }, 400],
    ['broken JSON', '/api/lab/config', '{"commit.interval.ms":', 400],
    ['an unknown endpoint', '/api/nothing', {}, 404],
    ['a body for a scenario', '/api/scenarios/zombie', { name: 'lost-ack' }, 400],
    ['a scenario name that is not one', '/api/scenarios/Bad_Name', undefined, 404],
    ['too many poison records', '/api/faults/poison', { count: 1000 }, 400],
  ])('refuses %s with an error and changes nothing', async (_what, path, body, status) => {
    const before = JSON.stringify(lab.snapshot().config)
    const r = await post(path, body)
    expect(r.status).toBe(status)
    expect(((await r.json()) as { error: string }).error).toMatch(/\S/)
    expect(lab.executed).toEqual([])
    expect(JSON.stringify(lab.snapshot().config)).toBe(before)
  })

  it('refuses bodies over 16 KB, other content types, wrong methods and other origins', async () => {
    expect((await post('/api/lab/config', { 'commit.interval.ms': 100, pad: 'x'.repeat(MAX_BODY_BYTES) })).status).toBe(
      413,
    )
    expect(
      (await post('/api/lab/config', 'commit.interval.ms=100', { 'content-type': 'application/x-www-form-urlencoded' }))
        .status,
    ).toBe(415)
    expect((await fetch(`${url}/api/lab/reset`)).status).toBe(405)
    expect((await post('/api/lab/reset', {}, { origin: 'http://evil.example' })).status).toBe(403)
    expect(lab.executed).toEqual([])
  })

  it('leaves other paths to the next handler', async () => {
    expect(await (await fetch(`${url}/apis`)).text()).toBe('not the api')
  })
})

/** Resolves once `done()` holds, checking every 5 ms; fails after a generous bound (progress, not timing). */
async function until(done: () => boolean, boundMs = 60_000): Promise<void> {
  const deadline = Date.now() + boundMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`no progress within ${boundMs} ms`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

describe('the live socket', () => {
  type Client = Socket<LiveServerToClientEvents, LiveClientToServerEvents>
  const clients: Client[] = []
  afterEach(() => {
    for (const c of clients.splice(0)) c.disconnect()
  })
  const open = (headers: Record<string, string> = {}): Client => {
    const c: Client = connect(url, {
      transports: ['websocket'],
      extraHeaders: headers,
      reconnection: false,
      forceNew: true,
    })
    clients.push(c)
    return c
  }

  const snapshotThenDeltas =
    'sends a snapshot on connect, then deltas that rebuild the lab snapshot, even when the lab mutates objects ' +
    'in place'
  it(snapshotThenDeltas, async () => {
    const c = open()
    let state: LabSnapshot | null = null
    let deltas = 0
    c.on('snapshot', (s) => (state = s))
    c.on('delta', (d: SnapshotDelta) => {
      expect(state?.seq).toBe(d.base)
      state = applyPatch(state!, d.patch)
      deltas++
    })
    await new Promise<void>((r) => c.on('snapshot', () => r()))
    for (let i = 0; i < 5; i++) {
      lab.tick()
      await new Promise((r) => setTimeout(r, 40))
      // The lab may update the objects of a published snapshot in place (as the real one does).
      const published = lab.snapshot()
      ;(published.transactions[published.transactions.length - 1] as { outcome: string }).outcome =
        i % 2 ? 'committed' : 'aborted'
    }
    const last = lab.tick()
    await until(() => (state as LabSnapshot | null)?.seq === last.seq)
    expect(deltas).toBeGreaterThan(0)
    expect(state).toEqual(JSON.parse(JSON.stringify(lab.snapshot())))
  })

  it(
    'an overview socket is sent what the overview draws (no partition log, producers or ledger); a view change ' +
      "answers with the new view's snapshot, and the deltas that follow rebuild it",
    async () => {
      const c: Client = connect(url, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        auth: { view: 'overview' },
      })
      clients.push(c)
      let state: LabSnapshot | null = null
      c.on('snapshot', (s) => (state = s))
      c.on('delta', (d: SnapshotDelta) => {
        expect(state?.seq).toBe(d.base)
        state = applyPatch(state!, d.patch)
      })
      await until(() => state !== null)
      for (const k of ['partitionLog', 'producers', 'duplicateLedger'] as const) expect(state).not.toHaveProperty(k)
      lab.tick()
      await until(() => (state as LabSnapshot | null)?.seq === lab.snapshot().seq)
      expect(state).not.toHaveProperty('partitionLog')
      expect(state!.tasks).toEqual(JSON.parse(JSON.stringify(lab.snapshot().tasks)))

      const answer = await c.emitWithAck('view', 'all')
      expect(answer.view).toBe('all')
      state = answer.snapshot
      expect(state?.partitionLog).toEqual(JSON.parse(JSON.stringify(lab.snapshot().partitionLog)))
      const last = lab.tick()
      await until(() => (state as LabSnapshot | null)?.seq === last.seq)
      expect(state).toEqual(JSON.parse(JSON.stringify(lab.snapshot())))

      // An unknown view changes nothing.
      expect(await c.emitWithAck('view', 'everything')).toEqual({ view: 'all', snapshot: null })
    },
  )

  it('coalesces a burst of snapshots into one push, however fast the lab publishes', async () => {
    const c = open()
    let received = 0
    let seq = -1
    c.on('snapshot', (s) => (seq = s.seq))
    c.on('delta', (d: SnapshotDelta) => {
      received++
      seq = d.seq
    })
    await until(() => seq >= 0)
    const bursts = 5
    for (let b = 0; b < bursts; b++) {
      // 100 snapshots in one turn of the event loop: one push carries them all.
      let last = lab.tick()
      for (let i = 1; i < 100; i++) last = lab.tick()
      await until(() => seq === last.seq)
    }
    expect(received).toBe(bursts)
  })

  it('answers commands with the acknowledgement, errors included', async () => {
    const c = open()
    await new Promise<void>((r) => c.on('connect', () => r()))
    expect(await c.emitWithAck('command', 'killWorker', { workerId: 'worker-1' })).toEqual({ ok: true })
    const bad = await c.emitWithAck('command', 'setConfig', { 'commit.interval.ms': 'fast' })
    expect(bad.ok).toBe(false)
    expect(await c.emitWithAck('command', 'formatDisk', {})).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unknown command/),
    })
  })

  it('refuses a page from another origin', async () => {
    const c = open({ origin: 'http://evil.example' })
    await expect(
      new Promise((resolve, reject) => {
        c.on('connect', () => resolve('connected'))
        c.on('connect_error', reject)
      }),
    ).rejects.toBeTruthy()
  })
})
