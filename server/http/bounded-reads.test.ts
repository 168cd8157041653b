// Every list the REST API serves is bounded: the transaction history's JSON is a page (500 rows by
// default, at most 5000) and its CSV is streamed in chunks; the experiments list pages too. On the
// fake lab with a transaction history of 12,000 rows, and a store of 7 experiments.

import { afterEach, describe, expect, it } from 'vitest'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TxnHistoryPage, TxnRow } from '../../lib/txn-statistics.ts'
import type { TxnHistoryFilter } from '../lab/transaction-history.ts'
import { createFakeLab } from './__fixtures__/fake-lab.ts'
import { startHttp, type HttpHarness } from './__fixtures__/http-harness.ts'
import { createExperimentsHandler, EXPERIMENTS_PAGE_MAX } from './experiments-routes.ts'
import type { ExperimentService } from '../experiments/experiment-service.ts'
import { CSV_CHUNK_ROWS, TXN_CSV_MAX, TXN_PAGE_DEFAULT, TXN_PAGE_MAX } from './transactions-route.ts'

let harness: HttpHarness | null = null
afterEach(async () => {
  await harness?.close()
  harness = null
})

const HELD = 12_000
const row = (i: number): TxnRow => ({
  endMs: 1_700_000_000_000 + i,
  beginMs: 1_700_000_000_000 + i - 5,
  durationMs: 5,
  outcome: 'committed',
  cause: null,
  transactionalId: `eoscope-0_${i % 6}`,
  workerId: 'worker-1',
  producerId: 1000 + (i % 6),
  epoch: 0,
  partitions: 'output-0 changelog-0',
  outputRecords: 10,
  changelogRecords: 10,
  offsetsCommitted: 1,
  endTxnMs: 1.5,
  sendOffsetsMs: 0.5,
})

/** A lab whose history holds HELD rows, and the filters it was asked for. */
async function startWithHistory(): Promise<{ url: string; asked: TxnHistoryFilter[] }> {
  const lab = createFakeLab()
  const asked: TxnHistoryFilter[] = []
  const rows = Array.from({ length: HELD }, (_, i) => row(i))
  lab.transactionHistory = (f) => {
    asked.push(f)
    const picked = f.limit === null ? rows : rows.slice(-f.limit)
    return {
      window: { text: `rows: the last ${HELD} transactions` },
      statistics: {},
      matched: HELD,
      rows: picked,
    } as unknown as TxnHistoryPage
  }
  harness = await startHttp({}, { lab })
  return { url: harness.url, asked }
}

describe('GET /api/lab/transactions', () => {
  it('answers JSON as a page: the newest 500 rows by default, up to 5000 asked for, more refused', async () => {
    const { url, asked } = await startWithHistory()
    const r = await fetch(`${url}/api/lab/transactions`)
    const page = (await r.json()) as TxnHistoryPage
    expect(page.rows).toHaveLength(TXN_PAGE_DEFAULT)
    expect(page.rows.at(-1)!.endMs).toBe(row(HELD - 1).endMs)
    expect(page.matched).toBe(HELD)
    expect(r.headers.get('x-eoscope-matched')).toBe(String(HELD))
    expect(r.headers.get('x-eoscope-limit')).toBe(String(TXN_PAGE_DEFAULT))
    const most = (await (await fetch(`${url}/api/lab/transactions?limit=${TXN_PAGE_MAX}`)).json()) as TxnHistoryPage
    expect(most.rows).toHaveLength(TXN_PAGE_MAX)
    const over = await fetch(`${url}/api/lab/transactions?limit=${TXN_PAGE_MAX + 1}`)
    expect(over.status).toBe(400)
    expect(((await over.json()) as { error: string }).error).toBe(
      `limit must be from 1 to ${TXN_PAGE_MAX} for JSON (older rows: set untilMs); ` +
        `format=csv exports up to ${TXN_CSV_MAX}`,
    )
    expect(asked.map((f) => f.limit)).toEqual([TXN_PAGE_DEFAULT, TXN_PAGE_MAX])
  })

  it('streams the CSV export of every row kept, in chunks, and refuses a limit above the history', async () => {
    const { url, asked } = await startWithHistory()
    const r = await fetch(`${url}/api/lab/transactions?format=csv`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-length')).toBeNull()
    expect(r.headers.get('transfer-encoding')).toBe('chunked')
    expect(r.headers.get('x-eoscope-limit')).toBe(String(TXN_CSV_MAX))
    const reader = r.body!.getReader()
    let chunks = 0
    let text = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks++
      text += new TextDecoder().decode(value)
    }
    expect(chunks).toBeGreaterThanOrEqual(HELD / CSV_CHUNK_ROWS)
    const lines = text.trimEnd().split('\r\n')
    expect(lines[0]).toMatch(/^endMs,beginMs,durationMs,outcome,cause,transactionalId,workerId,/)
    expect(lines).toHaveLength(HELD + 1)
    expect(lines[1]).toBe(
      '1700000000000,1699999999995,5,committed,,eoscope-0_0,worker-1,1000,0,output-0 changelog-0,10,10,1,1.5,0.5',
    )
    expect(lines.at(-1)!.split(',')[0]).toBe(String(row(HELD - 1).endMs))
    const limited = (await (await fetch(`${url}/api/lab/transactions?format=csv&limit=10`)).text()).trimEnd()
    expect(limited.split('\r\n')).toHaveLength(11)
    const over = await fetch(`${url}/api/lab/transactions?format=csv&limit=${TXN_CSV_MAX + 1}`)
    expect(over.status).toBe(400)
    const head = await fetch(`${url}/api/lab/transactions?format=csv`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    expect(asked.map((f) => f.limit)).toEqual([TXN_CSV_MAX, 10, TXN_CSV_MAX])
  })
})

describe('GET /api/experiments', () => {
  it('pages the stored experiments: 100 by default, at most 500, with how many there are', async () => {
    const stored = Array.from({ length: 7 }, (_, i) => ({ id: `e${i}` }))
    const service = {
      current: () => null,
      isRunning: () => false,
      backends: ['embedded'],
      unavailableBackends: [],
      store: { list: async () => stored },
    } as unknown as ExperimentService
    const handle = createExperimentsHandler(service)
    const server = createServer((req, res) => void handle(req, res))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/experiments`
    try {
      const all = (await (await fetch(url)).json()) as { experiments: { id: string }[]; total: number; limit: number }
      expect(all).toMatchObject({ total: 7, limit: 100, offset: 0 })
      expect(all.experiments.map((e) => e.id)).toEqual(stored.map((e) => e.id))
      const page = (await (await fetch(`${url}?limit=2&offset=3`)).json()) as { experiments: { id: string }[] }
      expect(page.experiments.map((e) => e.id)).toEqual(['e3', 'e4'])
      for (const q of [`limit=${EXPERIMENTS_PAGE_MAX + 1}`, 'limit=0', 'offset=-1', 'limit=1&limit=2', 'page=2']) {
        const r = await fetch(`${url}?${q}`)
        expect(r.status, q).toBe(400)
        expect(((await r.json()) as { error: string }).error, q).toMatch(/^(limit|offset) must be|^unknown parameter/)
      }
    } finally {
      await new Promise((r) => server.close(r))
    }
  })
})
