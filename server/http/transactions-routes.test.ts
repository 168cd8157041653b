// POST /api/transactions/abort-hanging and POST /api/faults/hanging-transaction over a real lab
// (embedded log, virtual clock): the Transactions view in the snapshot, the token, bad input
// (400, a clear error, nothing written), the abort of a transaction that is not hanging (409,
// nothing written), and a hanging transaction made by the fault point, aborted: journaled with its
// partition, producer id and the offsets it released, and LSO = HW after.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JournalPage } from '../../lib/journal.ts'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import type { TransactionsViewData } from '../../lib/transactions-view.ts'
import { MockTime } from '../log/time.ts'
import { Lab } from '../lab/lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'
import type { EoscopeHttp } from './app.ts'
import { listenOnLoopback } from './__fixtures__/loopback.ts'

const TOKEN = 'transactions-route-token-0123456789'
const bearer = { authorization: `Bearer ${TOKEN}` }
let http: EoscopeHttp
let lab: Lab
let url: string
const time = new MockTime()

beforeAll(async () => {
  lab = new Lab(inProcessRuntimes({ time, workers: 2, partitions: 4, seed: 7 }), {
    ratePerSec: 500,
    snapshotIntervalMs: 100,
    validateIntervalMs: 500,
    guarantee: 'exactly_once_v2',
  })
  await time.runUntilSettled(lab.start())
  ;({ http, url } = await listenOnLoopback({
    lab,
    policy: { token: TOKEN, lockReads: false, controlRate: { perSec: 1_000, burst: 1_000 } },
  }))
}, 60_000)

afterAll(async () => {
  await http.close()
  await time.runUntilSettled(lab.close())
})

const view = (): TransactionsViewData | undefined => lab.snapshot().transactionsView

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = bearer,
): Promise<{ status: number; body: { ok?: boolean; message?: string; error?: string } }> {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { status: r.status, body: (await r.json()) as never }
}

/** Output partition offsets, straight from the snapshot's partitions table. */
function outputRow(s: LabSnapshot, partition: number) {
  return s.partitions!.find((r) => r.role === 'output' && r.partition === partition)!
}

async function journal(): Promise<JournalPage> {
  return (await (await fetch(`${url}/api/lab/journal?category=transactions,faults&limit=2000`)).json()) as JournalPage
}

describe('the Transactions view and its abort route', () => {
  const showsCoordinatorsAndProducers =
    'shows the coordinators and the producers of the partitions; an open transaction is Ongoing at its ' +
    'coordinator and ongoing on its partition'
  it(showsCoordinatorsAndProducers, async () => {
    await time.runUntil(
      () => (view()?.producers ?? []).some((p) => p.verdict === 'ongoing' && p.role === 'output'),
      10_000,
      10,
    )
    const v = view()!
    const p = v.producers.find((x) => x.verdict === 'ongoing' && x.role === 'output')!
    const c = v.coordinators.find((x) => x.transactionalId === p.transactionalId)!
    expect(c).toMatchObject({
      state: 'Ongoing',
      producerId: p.producerId,
      timeoutMs: lab.snapshot().config['transaction.timeout.ms'],
    })
    expect(c.partitions).toContain(`${p.topic}-${p.partition}`)
    expect(c.startTimeMs).not.toBeNull()
    expect(p.firstOffset).not.toBeNull()
    expect(v.hanging).toBe(0)
    expect(v.injectUnavailable).toBeNull()
  })

  it('refuses the abort of an ongoing transaction with 409, and writes nothing', async () => {
    // The embedded log answers in-process: the virtual clock stands still while the request runs.
    const p = view()!.producers.find((x) => x.verdict === 'ongoing')!
    const before = lab.snapshot().transactionsView!.producers.length
    const r = await post('/api/transactions/abort-hanging', {
      topic: p.role,
      partition: p.partition,
      producerId: p.producerId,
    })
    expect(r.status).toBe(409)
    expect(r.body.error).toMatch(new RegExp(`producer ${p.producerId} on .* is (ongoing|overdue), not hanging`))
    expect(before).toBeGreaterThan(0)
    expect((await journal()).entries.some((e) => e.fact.kind === 'hanging-aborted')).toBe(false)
  })

  const quietLabRefusesBadInput =
    'quiet (input stopped, every transaction ended): bad input and a missing token are refused with a clear ' +
    'error and nothing changes'
  it(quietLabRefusesBadInput, async () => {
    expect((await post('/api/lab/config', { inputRatePerSec: 0 })).status).toBe(200)
    await time.runUntil(
      () =>
        (view()?.producers ?? []).every((p) => p.verdict === null) &&
        (lab.snapshot().partitions ?? []).every((r) => r.lastStableOffset === r.highWatermark),
      30_000,
      20,
    )
    await time.runFor(500)
    const hw = outputRow(lab.snapshot(), 1).highWatermark
    const cases: [unknown, number, RegExp][] = [
      [{ topic: 'nope', partition: 0, producerId: 1 }, 400, /topic/],
      [{ topic: 'output', partition: -1, producerId: 1 }, 400, /partition/],
      [{ topic: 'output', partition: 1 }, 400, /producerId/],
      [{ topic: 'output', partition: 1, producerId: 1, force: true }, 400, /force|unrecognized/i],
      [{ topic: 'output', partition: 9, producerId: 1 }, 400, /partition 9 does not exist: the lab has 4/],
      [
        { topic: 'output', partition: 1, producerId: 424242 },
        409,
        /producer 424242 holds no open transaction on .*-1: nothing to abort/,
      ],
    ]
    for (const [body, status, error] of cases) {
      const r = await post('/api/transactions/abort-hanging', body)
      expect(r.status, JSON.stringify(body)).toBe(status)
      expect(r.body.error, JSON.stringify(body)).toMatch(error)
    }
    const anonymous = await post(
      '/api/transactions/abort-hanging',
      { topic: 'output', partition: 1, producerId: 1 },
      {},
    )
    expect(anonymous.status).toBe(401)
    await time.runFor(300)
    expect(outputRow(lab.snapshot(), 1).highWatermark).toBe(hw)
    expect((await journal()).entries.some((e) => e.fact.kind === 'hanging-aborted')).toBe(false)
  })

  const hangingTransactionShownAndAborted =
    'a hanging transaction made by the fault point is shown hanging, aborted (journaled with its partition, ' +
    'producer id and released offsets), and then LSO = HW'
  it(hangingTransactionShownAndAborted, async () => {
    const made = await post('/api/faults/hanging-transaction', { topic: 'output', partition: 1 })
    expect(made.status).toBe(200)
    await time.runUntil(
      () =>
        view()!.hanging === 1 &&
        outputRow(lab.snapshot(), 1).lastStableOffset < outputRow(lab.snapshot(), 1).highWatermark,
      5_000,
      20,
    )
    const hung = view()!.producers.find((p) => p.verdict === 'hanging')!
    expect(hung).toMatchObject({ role: 'output', partition: 1, transactionalId: null })
    expect(hung.reason).toMatch(/no coordinator/)
    const row = outputRow(lab.snapshot(), 1)
    expect(row.lastStableOffset).toBe(hung.firstOffset)

    const r = await post('/api/transactions/abort-hanging', {
      topic: 'output',
      partition: 1,
      producerId: hung.producerId,
    })
    expect(r.status).toBe(200)
    expect(r.body.message).toMatch(
      new RegExp(`producer ${hung.producerId} .* on .*-1: offsets ${hung.firstOffset} to ${hung.firstOffset} released`),
    )
    await time.runUntil(
      () =>
        view()!.hanging === 0 &&
        outputRow(lab.snapshot(), 1).lastStableOffset === outputRow(lab.snapshot(), 1).highWatermark,
      5_000,
      20,
    )
    expect(outputRow(lab.snapshot(), 1).highWatermark).toBe(row.highWatermark + 1) // the ABORT marker
    const entry = (await journal()).entries.find((e) => e.fact.kind === 'hanging-aborted')!
    expect(entry).toMatchObject({
      category: 'transactions',
      fact: {
        partition: 1,
        producerId: hung.producerId,
        fromOffset: hung.firstOffset,
        toOffset: row.highWatermark,
        lastStableOffset: row.highWatermark + 1,
        highWatermark: row.highWatermark + 1,
      },
      links: [{ topic: 'output', partition: 1, fromOffset: hung.firstOffset, toOffset: row.highWatermark }],
    })
    expect((await journal()).entries.some((e) => e.fact.kind === 'hanging-injected')).toBe(true)

    const again = await post('/api/transactions/abort-hanging', {
      topic: 'output',
      partition: 1,
      producerId: hung.producerId,
    })
    expect(again.status).toBe(409)
  })
})
