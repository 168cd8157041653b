// GET /api/lab/transactions over a real lab (embedded log, virtual clock) after a kill: the
// aborted transaction with its cause, the statistics' counts those of the snapshot, the CSV with
// the same rows, HEAD as GET, and bad parameters refused with a clear error.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import { Lab } from '../lab/lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'
import type { TxnHistoryPage } from '../lab/transaction-history.ts'
import type { EoscopeHttp } from './app.ts'
import { listenOnLoopback } from './__fixtures__/loopback.ts'

let http: EoscopeHttp
let lab: Lab
let url: string
const time = new MockTime()

beforeAll(async () => {
  lab = new Lab(inProcessRuntimes({ time, workers: 3, partitions: 6, seed: 5 }), {
    ratePerSec: 500,
    snapshotIntervalMs: 100,
    validateIntervalMs: 500,
  })
  await time.runUntilSettled(lab.start())
  ;({ http, url } = await listenOnLoopback({
    lab,
    policy: { token: null, lockReads: false, controlRate: { perSec: 100, burst: 100 } },
  }))
  await time.runFor(2_000)
  const victim = lab.snapshot().workers.find((w) => w.taskIds.length > 0)!.id
  await time.runUntilSettled(lab.execute('killWorker', { workerId: victim }))
  await time.runUntil(() => lab.snapshot().recoveries.some((r) => r.recoveryMs !== null), 60_000, 50)
  await time.runFor(500)
}, 120_000)

afterAll(async () => {
  await http.close()
  await time.runUntilSettled(lab.close())
})

describe('GET /api/lab/transactions', () => {
  it('lists the aborted transaction with its cause; its statistics count what the snapshot counts', async () => {
    const r = await fetch(`${url}/api/lab/transactions?outcome=aborted`)
    expect(r.status).toBe(200)
    const page = (await r.json()) as TxnHistoryPage
    const s = lab.snapshot()
    expect(page.rows.length).toBeGreaterThan(0)
    expect(page.rows.every((x) => x.outcome === 'aborted' && x.cause === 'crash')).toBe(true)
    expect(page.matched).toBe(s.txnTotals.aborted)
    expect(page.statistics.run.outcomes.aborted.count).toBe(s.txnTotals.aborted)
    expect(page.statistics.run.outcomes.committed.count).toBe(s.txnTotals.committed)
    expect(r.headers.get('x-eoscope-window')).toBe(page.window.text)
    expect(page.window.text).toMatch(
      /^rows: the last [\d,]+ transactions, ended .*every transaction of the lab is here$/,
    )
  })

  it('exports the same rows as CSV, a download named after their window', async () => {
    // JSON is a page (500 rows unless asked for more); the CSV holds every row kept.
    const json = (await (
      await fetch(`${url}/api/lab/transactions?minDurationMs=1&limit=5000`)
    ).json()) as TxnHistoryPage
    const r = await fetch(`${url}/api/lab/transactions?minDurationMs=1&format=csv`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(r.headers.get('content-disposition')).toMatch(
      /^attachment; filename="eoscope-transactions_\d{4}-\d\d-\d\dT[\d-]+Z_to_\d{4}-[\dT-]+Z\.csv"$/,
    )
    const lines = (await r.text()).trimEnd().split('\r\n')
    expect(lines[0]).toMatch(/^endMs,beginMs,durationMs,outcome,cause,transactionalId,/)
    expect(lines.length - 1).toBe(json.rows.length)
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(json.rows.map((x) => x.endMs))
  })

  it('answers HEAD as GET, without a body', async () => {
    for (const q of ['', '?format=csv']) {
      const get = await fetch(`${url}/api/lab/transactions${q}`)
      const head = await fetch(`${url}/api/lab/transactions${q}`, { method: 'HEAD' })
      expect(head.status).toBe(get.status)
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'))
      expect(await head.text()).toBe('')
    }
  })

  it('refuses bad parameters with 400 and other methods with 405', async () => {
    const bad = await fetch(`${url}/api/lab/transactions?outcome=sideways`)
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { error: string }).error).toMatch(/outcome must be committed, aborted, teardown/)
    expect((await fetch(`${url}/api/lab/transactions`, { method: 'POST' })).status).toBe(405)
    const index = (await (await fetch(`${url}/api`)).json()) as { routes: { path: string }[] }
    expect(index.routes.map((x) => x.path)).toContain('/api/lab/transactions')
  })
})
