// The experiments' REST API over a real http server. The service runs on a virtual clock pumped
// in the background; a started experiment is long enough to still be running when it is cancelled.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExperimentService } from '../experiments/experiment-service.ts'
import { ExperimentStore, INDEX_FILE } from '../experiments/experiment-store.ts'
import { MockTime } from '../log/time.ts'
import { createExperimentsHandler } from './experiments-routes.ts'

let server: Server
let base: string
let dir: string
let service: ExperimentService
let pumping = true
let pump: Promise<void>

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'eoscope-exp-routes-'))
  const time = new MockTime()
  service = new ExperimentService({ store: new ExperimentStore(dir), time })
  pump = (async () => {
    while (pumping) {
      await time.runFor(10)
      await new Promise((r) => setTimeout(r, 1))
    }
  })()
  const handle = createExperimentsHandler(service, (m) => console.error(m))
  server = createServer((req, res) => {
    void handle(req, res).then((handled) => {
      if (!handled) res.writeHead(418).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await service.cancel()
  pumping = false
  await pump
  await new Promise((r) => server.close(r))
  rmSync(dir, { recursive: true, force: true })
})

const post = (p: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(base + p, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
const good = { intervals: [1000, 10], guarantees: ['at_least_once', 'exactly_once'], repeat: 3, backend: 'embedded' }

describe('the experiments REST API', () => {
  it('lists nothing at first, with the backends it can run on', async () => {
    const r = await fetch(`${base}/api/experiments`)
    expect(r.status).toBe(200)
    expect(await r.json()).toMatchObject({ experiments: [], running: false, backends: ['embedded'] })
    expect(await (await fetch(`${base}/api/experiments/current`)).json()).toEqual({ experiment: null })
  })

  it.each([
    [{ ...good, repeat: 0 }, 400],
    [{ ...good, intervals: 'all' }, 400],
    [{ ...good, backend: 'kafka' }, 501],
  ])('refuses %j with %i and starts nothing', async (body, status) => {
    const r = await post('/api/experiments', body)
    expect(r.status).toBe(status)
    expect((await r.json()).error).toBeTruthy()
    expect(service.isRunning()).toBe(false)
  })

  it('refuses a null body like any other non-object, and starts nothing', async () => {
    const r = await post('/api/experiments', null)
    expect(r.status).toBe(400)
    expect((await r.json()).error).toMatch(/not null/)
    expect((await post('/api/experiments/cancel', null)).status).toBe(400)
    expect(service.isRunning()).toBe(false)
  })

  it('refuses a page from another origin', async () => {
    expect((await post('/api/experiments', good, { origin: 'http://evil.example' })).status).toBe(403)
    expect(service.isRunning()).toBe(false)
  })

  it('starts one experiment, answers 409 to a second, shows it as current and cancels it', async () => {
    const r = await post('/api/experiments', good)
    expect(r.status).toBe(202)
    const { experiment } = await r.json()
    expect(experiment.request.intervals).toEqual([10, 1000])
    expect(experiment.status).toBe('running')
    expect((await post('/api/experiments', good)).status).toBe(409)
    const current = await (await fetch(`${base}/api/experiments/current`)).json()
    expect(current.experiment.id).toBe(experiment.id)
    expect((await fetch(`${base}/api/experiments/${experiment.id}`)).status).toBe(200)
    expect(await (await post('/api/experiments/cancel')).json()).toEqual({ ok: true, cancelled: true })
    expect(service.isRunning()).toBe(false)
    expect((await (await fetch(`${base}/api/experiments/current`)).json()).experiment.status).toBe('cancelled')
    // Stored: listed, and downloadable as JSON and CSV.
    const list = await (await fetch(`${base}/api/experiments`)).json()
    expect(list.experiments.map((e: { id: string }) => e.id)).toEqual([experiment.id])
    const csv = await fetch(`${base}/api/experiments/${experiment.id}.csv`)
    expect(csv.headers.get('content-type')).toContain('text/csv')
    expect((await csv.text()).split('\n')[0]).toMatch(/^guarantee,commitIntervalMs,/)
    const json = await fetch(`${base}/api/experiments/${experiment.id}.json`)
    expect(json.headers.get('content-disposition')).toContain('attachment')
    expect((await json.json()).id).toBe(experiment.id)
  })

  it('answers 404 for an unknown experiment and 405 for a wrong method; leaves other paths alone', async () => {
    expect((await fetch(`${base}/api/experiments/nope.csv`)).status).toBe(404)
    expect((await fetch(`${base}/api/experiments/..%2Fx`)).status).toBe(404)
    expect((await fetch(`${base}/api/experiments/cancel`)).status).toBe(405)
    expect((await fetch(`${base}/api/experiments`, { method: 'DELETE' })).status).toBe(405)
    expect((await fetch(`${base}/api/lab`)).status).toBe(418)
  })
})

describe('stored experiments', () => {
  it('are capped to the last N: more start and cancel cycles than that keep N files and list N', async () => {
    const capDir = mkdtempSync(path.join(tmpdir(), 'eoscope-exp-cap-'))
    const time = new MockTime()
    const capped = new ExperimentService({ store: new ExperimentStore(capDir, 3), time })
    const handle = createExperimentsHandler(capped)
    const srv = createServer((req, res) => void handle(req, res))
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/experiments`
    let running = true
    const pumped = (async () => {
      while (running) {
        await time.runFor(10)
        await new Promise((r) => setTimeout(r, 1))
      }
    })()
    try {
      const ids: string[] = []
      for (let i = 0; i < 7; i++) {
        const r = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(good),
        })
        expect(r.status).toBe(202)
        ids.push(((await r.json()) as { experiment: { id: string } }).experiment.id)
        expect(await (await fetch(`${url}/cancel`, { method: 'POST' })).json()).toEqual({ ok: true, cancelled: true })
      }
      expect(new Set(ids).size).toBe(7)
      const listed = ((await (await fetch(url)).json()) as { experiments: { id: string }[] }).experiments.map(
        (e) => e.id,
      )
      expect(listed).toEqual(ids.slice(-3).reverse())
      expect(readdirSync(capDir).sort()).toEqual([INDEX_FILE, ...ids.slice(-3).map((id) => `${id}.json`)].sort())
      expect((await fetch(`${url}/${ids[0]}`)).status).toBe(404)
    } finally {
      await capped.cancel()
      running = false
      await pumped
      await new Promise((r) => srv.close(r))
      rmSync(capDir, { recursive: true, force: true })
    }
  })
})
