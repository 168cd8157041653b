// Evidence that keeps its lab (issue 34): an old crash-before-commit card's link opened records of a
// lab started later, and the isolation card's link read "those records were deleted" from the lab
// that replaced its own. Here, over a real lab (embedded log, virtual clock) and its REST API: the
// card and its links name the lab the run left; while it runs they read its records; after a reset
// the message browser answers 410 Gone and the partition log refuses, each naming the old lab and
// saying it no longer runs, the card says its records are gone, and a request naming no lab reads
// the running lab as before.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EvidenceCard, LabSnapshot } from '../../lib/lab-protocol.ts'
import type { MessagePage } from '../../lib/message-browser.ts'
import { MockTime } from '../log/time.ts'
import type { EoscopeHttp } from '../http/app.ts'
import { listenOnLoopback } from '../http/__fixtures__/loopback.ts'
import { Lab } from './lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'

const SCENARIO = 'crash-before-commit-eos'
let http: EoscopeHttp
let lab: Lab
let url: string
const time = new MockTime()
let card: EvidenceCard
let scenarioLab: NonNullable<LabSnapshot['lab']>

beforeAll(async () => {
  lab = new Lab(inProcessRuntimes({ time, seed: 11 }), { ratePerSec: 400, snapshotIntervalMs: 100 })
  await time.runUntilSettled(lab.start())
  ;({ http, url } = await listenOnLoopback({
    lab,
    policy: { token: null, lockReads: false, controlRate: { perSec: 100, burst: 100 } },
  }))
  expect(await time.runUntilSettled(lab.execute('runScenario', { name: SCENARIO }))).toMatchObject({ ok: true })
  await time.runUntil(
    () => (lab.snapshot().evidence ?? []).length > 0 && lab.snapshot().scenario?.status !== 'running',
    900_000,
    50,
  )
  await time.runFor(1_000)
  card = lab.snapshot().evidence![0]!
  scenarioLab = lab.snapshot().lab!
}, 600_000)

afterAll(async () => {
  await http.close()
  await time.runUntilSettled(lab.close())
})

/** GET /api/lab/messages; the embedded log's reads cost virtual round trips: the clock runs while it is answered. */
function messages(query: string): Promise<{ status: number; body: MessagePage & { error?: string } }> {
  const answered = fetch(`${url}/api/lab/messages?${query}`).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as MessagePage & { error?: string },
  }))
  return time.runUntilSettled(answered, 10_000, 1)
}

const linkQuery = (l: EvidenceCard['links'][number], withLab = true) =>
  `topic=${l.topic}&partition=${l.partition}&from=${l.fromOffset}&to=${l.toOffset}${withLab ? `&lab=${l.lab}` : ''}`

describe('an evidence card keeps its lab', { timeout: 600_000 }, () => {
  it('names the lab the run left, on the card and on every link; its records are kept 30 minutes', () => {
    expect(card.status).toBe('passed')
    expect(card.links.length).toBeGreaterThan(0)
    // The server's first lab is 1; the scenario's own lab replaced it.
    expect(scenarioLab.generation).toBe(2)
    expect(card.lab).toEqual(scenarioLab)
    for (const l of card.links) expect(l.lab).toBe(scenarioLab.id)
    expect(card.records).toEqual({ state: 'kept', untilMs: card.endedAtMs + 30 * 60_000 })
  })

  it('reads its own records while its lab runs, through the message browser and the partition log', async () => {
    const l = card.links[0]!
    const page = await messages(linkQuery(l))
    expect(page.status).toBe(200)
    expect(page.body.from).toBe(l.fromOffset)
    expect(page.body.records[0]!.offset).toBe(l.fromOffset)
    const selected = await time.runUntilSettled(
      lab.execute('selectPartition', {
        topic: l.topic,
        partition: l.partition,
        window: 'at',
        fromOffset: l.fromOffset,
        lab: l.lab,
      }),
    )
    expect(selected).toEqual({ ok: true })
    await time.runFor(1_000)
    const log = lab.snapshot().partitionLog!
    expect(log.refusal).toBeUndefined()
    expect(log.cells[0]!.offset).toBe(l.fromOffset)
  })

  it("after a reset refuses the old lab's records with 410 and why, and the card says they are gone", async () => {
    const resetAt = time.now()
    expect(await time.runUntilSettled(lab.execute('reset', {}))).toEqual({ ok: true })
    await time.runFor(3_000)
    const now = lab.snapshot()
    expect(now.lab!.generation).toBe(3)
    expect(now.lab!.id).not.toBe(scenarioLab.id)

    const l = card.links[0]!
    const refused = await messages(linkQuery(l))
    expect(refused.status).toBe(410)
    expect(refused.body.records).toBeUndefined()
    expect(refused.body.error).toContain(`were in lab 2 (id ${scenarioLab.id}`)
    expect(refused.body.error).toContain('no longer the running lab: a reset replaced it')
    expect(refused.body.error).toContain(`the running lab is lab 3 (id ${now.lab!.id})`)
    // Without a lab: the running lab's records, as before.
    expect((await messages(linkQuery(l, false))).status).toBe(200)
    // A lab id that is not one is a bad request; one this server never ran is gone too.
    expect((await messages(`${linkQuery(l, false)}&lab=Lab%202`)).status).toBe(400)
    const unknown = await messages(`${linkQuery(l, false)}&lab=zz-9`)
    expect(unknown.status).toBe(410)
    expect(unknown.body.error).toContain('lab zz-9, which is not the running lab')

    const selected = await time.runUntilSettled(
      lab.execute('selectPartition', {
        topic: l.topic,
        partition: l.partition,
        window: 'at',
        fromOffset: l.fromOffset,
        lab: l.lab,
      }),
    )
    expect(selected.ok).toBe(false)
    expect(!selected.ok && selected.error).toContain('no longer the running lab')
    await time.runFor(1_000)
    const log = lab.snapshot().partitionLog!
    expect(log.refusal).toContain(`lab 2 (id ${scenarioLab.id}`)
    expect(log.cells).toEqual([])
    // The next selection (no lab named: the running one) shows records again.
    expect(await time.runUntilSettled(lab.execute('selectPartition', { topic: 'output', partition: 0 }))).toEqual({
      ok: true,
    })
    await time.runFor(1_000)
    expect(lab.snapshot().partitionLog!.refusal).toBeUndefined()
    expect(lab.snapshot().partitionLog!.cells.length).toBeGreaterThan(0)

    const after = lab.snapshot().evidence![0]!
    expect(after.records).toMatchObject({ state: 'gone', why: 'a reset replaced it' })
    expect(after.records!.state === 'gone' && after.records!.sinceMs).toBeGreaterThanOrEqual(resetAt)
  })
})
