// GET /api/lab/journal and GET /api/lab/at over a real lab (embedded log, virtual clock): a kill at
// a step is a kill entry with its step; the frame at the kill's instant shows it in its markers and
// recoveries; bad parameters are 400 with a clear error, nothing near t is 404; reads only, under
// the same access rules as GET /api/lab.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JournalEntry, JournalPage, LabFrameResponse } from '../../lib/journal.ts'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import type { MessagePage } from '../../lib/message-browser.ts'
import { MockTime } from '../log/time.ts'
import { Lab } from '../lab/lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'
import type { EoscopeHttp } from './app.ts'
import { listenOnLoopback } from './__fixtures__/loopback.ts'

let http: EoscopeHttp
let lab: Lab
let url: string
const time = new MockTime()
let kill: JournalEntry

beforeAll(async () => {
  lab = new Lab(inProcessRuntimes({ time, workers: 3, partitions: 6, seed: 11 }), {
    ratePerSec: 500,
    snapshotIntervalMs: 100,
    validateIntervalMs: 500,
  })
  await time.runUntilSettled(lab.start())
  ;({ http, url } = await listenOnLoopback({
    lab,
    policy: { token: null, lockReads: false, controlRate: { perSec: 100, burst: 100 } },
  }))
  await time.runFor(3_000)
  const victim = lab.snapshot().workers.find((w) => w.taskIds.length > 0)!.id
  const killed = fetch(`${url}/api/workers/${victim}/kill`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ step: 3 }),
  })
  // The kill is armed at once and happens when the worker next reaches step 3, in virtual time.
  await time.runUntil(() => lab.snapshot().totals.kills === 1, 30_000, 10).catch(() => {})
  expect((await killed).status).toBe(200)
  await time.runUntil(
    () => lab.snapshot().totals.kills === 1 && lab.snapshot().recoveries.some((r) => r.recoveryMs !== null),
    60_000,
    50,
  )
  await time.runFor(1_500)
}, 120_000)

afterAll(async () => {
  await http.close()
  await time.runUntilSettled(lab.close())
})

async function get<T>(path: string): Promise<{ status: number; body: T }> {
  const r = await fetch(`${url}${path}`)
  expect(r.headers.get('content-type')).toMatch(/^application\/json/)
  return { status: r.status, body: (await r.json()) as T }
}

describe('GET /api/lab/journal', () => {
  it('lists the kill with its step, oldest first, ids above after, by category', async () => {
    const { status, body } = await get<JournalPage>('/api/lab/journal?category=kills')
    expect(status).toBe(200)
    const kills = body.entries.filter((e) => e.fact.kind === 'kill')
    expect(kills).toHaveLength(1)
    kill = kills[0]!
    expect(kill).toMatchObject({ category: 'kills', fact: { kind: 'kill', step: 3 } })
    expect(kill.label).toMatch(/killed at step 3$/)
    expect(body.entries.every((e) => e.category === 'kills')).toBe(true)
    expect(body.span.lastId).toBeGreaterThanOrEqual(kill.id)

    const page = await get<JournalPage>('/api/lab/journal?after=0&limit=5')
    expect(page.body.entries.map((e) => e.id)).toEqual([1, 2, 3, 4, 5])
    expect(page.body.more).toBe(true)
    const next = await get<JournalPage>('/api/lab/journal?after=5&limit=2000&category=transactions,kills')
    expect(next.body.entries[0]!.id).toBeGreaterThan(5)
    expect(next.body.entries.some((e) => e.fact.kind === 'txn')).toBe(true)
  })

  it('leaves committed transactions out with commits=none, and nothing else', async () => {
    const all = await get<JournalPage>('/api/lab/journal?limit=2000')
    const lean = await get<JournalPage>('/api/lab/journal?limit=2000&commits=none')
    expect(lean.status).toBe(200)
    const committed = (e: JournalEntry) => e.fact.kind === 'txn' && e.fact.outcome === 'committed'
    expect(all.body.entries.some(committed)).toBe(true)
    expect(all.body.entries.some((e) => e.fact.kind === 'txn' && e.fact.outcome === 'aborted')).toBe(true)
    expect(lean.body.entries.map((e) => e.id)).toEqual(all.body.entries.filter((e) => !committed(e)).map((e) => e.id))
  })

  it('refuses bad parameters with 400 and says what it expects', async () => {
    for (const q of [
      'limit=0',
      'limit=2001',
      'limit=ten',
      'after=-1',
      'category=kils',
      'category=',
      'since=3',
      'commits=some',
    ]) {
      const { status, body } = await get<{ error: string }>(`/api/lab/journal?${q}`)
      expect(status, q).toBe(400)
      expect(body.error, q).toMatch(/limit|after|category|parameter|commits/)
    }
    const r = await fetch(`${url}/api/lab/journal`, { method: 'POST' })
    expect(r.status).toBe(405)
  })
})

describe('GET /api/lab/at', () => {
  it('answers the frame at (or just after) the kill, showing the kill in its markers and recoveries', async () => {
    const { status, body } = await get<LabFrameResponse<LabSnapshot>>(`/api/lab/at?t=${Math.floor(kill.atMs)}`)
    expect(status).toBe(200)
    expect(body.frameAtMs).toBeGreaterThanOrEqual(Math.floor(kill.atMs))
    expect(body.frameAtMs - kill.atMs).toBeLessThanOrEqual(1_000)
    expect(body.snapshot.markers.some((m) => m.kind === 'kill' && m.label.endsWith('at step 3'))).toBe(true)
    const victim = kill.fact.kind === 'kill' ? kill.fact.workerId : ''
    expect(body.snapshot.recoveries.some((r) => r.workerId === victim && Math.abs(r.t0 - kill.atMs) < 1)).toBe(true)
    expect(body.snapshot.totals.kills).toBe(1)
  })

  it('is 400 on a bad t and 404 with a JSON error when nothing is kept near it', async () => {
    for (const q of ['', 't=', 't=abc', 't=1.5', 'x=1']) {
      const { status, body } = await get<{ error: string }>(`/api/lab/at?${q}`)
      expect(status, q).toBe(400)
      expect(body.error).toMatch(/\bt\b/)
    }
    const far = await get<{ error: string }>(`/api/lab/at?t=${time.now() + 3_600_000}`)
    expect(far.status).toBe(404)
    expect(far.body.error).toMatch(/no frame near/)
  })
})

describe('GET /api/lab/messages', () => {
  // The embedded log's reads cost virtual round trips: the clock runs while the request is answered.
  const read = <T>(path: string) => time.runUntilSettled(get<T>(path), 10_000, 1)
  it("pages an output partition's stored records with each isolation level's view of them", async () => {
    const { status, body } = await read<MessagePage>('/api/lab/messages?topic=output&partition=0&from=0&limit=500')
    expect(status).toBe(200)
    expect(body.records.length).toBeGreaterThan(0)
    // Every offset of the output partition is there, in order, data and markers alike (no compaction on the output).
    expect(body.records.map((r) => r.offset)).toEqual(body.records.map((_, i) => i))
    for (const r of body.records) {
      expect(r.readUncommitted, `offset ${r.offset}`).toBe(r.control === null)
      expect(r.readCommitted, `offset ${r.offset}`).toBe(
        r.control === null && !r.aboveLso && (r.state === 'committed' || r.state === 'non-transactional'),
      )
    }
    expect(body.records.some((r) => r.control === 'COMMIT')).toBe(true)
    expect(body.records.find((r) => r.control === null)!.source).toMatchObject({ topic: 'input', partition: 0 })
    const head = await time.runUntilSettled(
      fetch(`${url}/api/lab/messages?topic=output&partition=0&from=0&limit=5`, { method: 'HEAD' }),
      10_000,
      1,
    )
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  it('refuses a bad topic, partition or range with 400 and says why', async () => {
    for (const [q, error] of [
      ['topic=dlq', /topic must be one of/],
      ['topic=output&partition=6', /partition 6 does not exist/],
      ['topic=output&from=99999999', /beyond the high watermark/],
      ['topic=output&from=4&to=2', /from must be below to/],
      ['topic=output&page=2', /unknown parameter/],
    ] as const) {
      const { status, body } = await read<{ error: string }>(`/api/lab/messages?${q}`)
      expect(status, q).toBe(400)
      expect(body.error, q).toMatch(error)
    }
    expect((await fetch(`${url}/api/lab/messages?topic=output`, { method: 'POST' })).status).toBe(405)
  })
})
