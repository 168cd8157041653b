import { describe, expect, it } from 'vitest'
import type { TxnView } from '../../lib/lab-protocol.ts'
import { MockTime, SeededRandom } from '../log/time.ts'
import { csvField, parseTxnHistoryQuery, toCsv } from './transaction-history-export.ts'
import { matches, NO_FILTER, TransactionHistory, type TxnHistoryFilter } from './transaction-history.ts'
import { BYTES_PER_ROW } from './txn-columns.ts'

const T0 = 1_700_000_000_000

function txn(i: number, o: Partial<TxnView> = {}): TxnView {
  return {
    id: `1.0.${i}`,
    transactionalId: `app-0_${i % 3}`,
    producerId: 1000 + (i % 3),
    epoch: i,
    partitions: [`output-${i % 3}`, `app-store-changelog-${i % 3}`],
    outputRecords: 10 + (i % 7),
    changelogRecords: 5,
    offsetsCommitted: 1,
    beginMs: T0 + i * 100,
    endMs: T0 + i * 100 + 20 + (i % 5),
    outcome: 'committed',
    abortReason: null,
    endTxnMs: 3 + (i % 4),
    sendOffsetsMs: 1,
    ...o,
  }
}

describe('TransactionHistory', () => {
  it('keeps each ended transaction as a row and counts it by outcome; a teardown abort is not a fault', () => {
    const h = new TransactionHistory(new MockTime(T0))
    h.onEnded(txn(1), 'worker-1')
    h.onEnded(txn(2, { outcome: 'aborted', abortReason: 'crash', endTxnMs: undefined }), 'worker-2')
    h.onEnded(txn(3, { outcome: 'aborted', abortReason: 'teardown' }), 'worker-1')
    // Empty and ended by the teardown: it never reached the broker, as the journal says.
    h.onEnded(
      txn(4, {
        outcome: 'aborted',
        abortReason: 'teardown',
        partitions: [],
        outputRecords: 0,
        changelogRecords: 0,
        offsetsCommitted: 0,
      }),
      'worker-1',
    )
    h.onEnded(txn(5, { outcome: 'open', endMs: null }), 'worker-1')
    const { life } = h.statistics()
    expect([life.outcomes.committed.count, life.outcomes.aborted.count, life.outcomes.teardown.count]).toEqual([
      1, 1, 1,
    ])
    expect(life.causes).toEqual({ crash: 1, fenced: 0, timeout: 0, error: 0, teardown: 1 })
    // The crash's EndTxn was never sent: no latency for it.
    expect(life.outcomes.aborted.endTxnMs.count).toBe(0)
    const page = h.query(NO_FILTER)
    expect(page.rows.map((r) => [r.outcome, r.cause, r.workerId])).toEqual([
      ['committed', null, 'worker-1'],
      ['aborted', 'crash', 'worker-2'],
      ['teardown', 'teardown', 'worker-1'],
    ])
    expect(page.rows[1]).toMatchObject({
      transactionalId: 'app-0_2',
      partitions: 'output-2 app-store-changelog-2',
      outputRecords: 12,
      changelogRecords: 5,
      durationMs: 22,
      endTxnMs: null,
    })
    expect(page.window).toMatchObject({ rows: 3, olderThanRows: 0, fromMs: T0 + 120 + 1 })
    expect(page.window.text).toMatch(/^rows: the last 3 transactions, ended .*; every transaction of the lab is here$/)
  })

  it('filters by outcome, transactional.id, time and duration, and keeps the newest `limit`', () => {
    const h = new TransactionHistory(new MockTime(T0))
    for (let i = 0; i < 100; i++)
      h.onEnded(txn(i, i % 10 === 0 ? { outcome: 'aborted', abortReason: 'fenced' } : {}), 'w')
    const all = h.query(NO_FILTER).rows
    const q = (f: Partial<typeof NO_FILTER>) => h.query({ ...NO_FILTER, ...f })
    expect(q({ outcomes: ['aborted'] }).rows.map((r) => r.epoch)).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90])
    expect(q({ transactionalId: '0_1' }).rows.every((r) => r.transactionalId === 'app-0_1')).toBe(true)
    expect(q({ transactionalId: '0_1' }).matched).toBe(33)
    const since = T0 + 50 * 100
    const until = T0 + 60 * 100 + 30
    expect(q({ sinceMs: since, untilMs: until }).rows.map((r) => r.epoch)).toEqual(
      all.filter((r) => r.endMs >= since && r.endMs <= until).map((r) => r.epoch),
    )
    expect(q({ minDurationMs: 24 }).rows.every((r) => r.durationMs >= 24)).toBe(true)
    expect(q({ minDurationMs: 24 }).matched).toBe(all.filter((r) => r.durationMs >= 24).length)
    // The filter read from the columns selects what the row predicate selects, on random filters.
    const r = new SeededRandom(9)
    for (let i = 0; i < 200; i++) {
      const f: TxnHistoryFilter = {
        outcomes: r.next() < 0.5 ? null : [r.pick(['committed', 'aborted', 'teardown'] as const)],
        transactionalId: r.next() < 0.5 ? null : r.pick(['0_1', 'app', '_2', 'nope']),
        sinceMs: r.next() < 0.5 ? null : T0 + r.int(0, 10_000),
        untilMs: r.next() < 0.5 ? null : T0 + r.int(0, 10_000),
        minDurationMs: r.next() < 0.5 ? null : r.int(18, 26),
        limit: null,
      }
      expect(h.query(f).rows).toEqual(all.filter((x) => matches(x, f)))
    }
    const newest = q({ limit: 5 })
    expect(newest.rows.map((r) => r.epoch)).toEqual([95, 96, 97, 98, 99])
    expect(newest.matched).toBe(100)
    // The statistics of the rows matched, beside the whole life's.
    expect(q({ outcomes: ['aborted'] }).statistics.matched.outcomes.aborted.count).toBe(10)
    expect(q({ outcomes: ['aborted'] }).statistics.matched.outcomes.committed.count).toBe(0)
  })

  const holdsFixedRows =
    'holds a fixed number of rows in fixed memory over a long life; older aborts stay apart; statistics count ' +
    'them all'
  it(holdsFixedRows, () => {
    const h = new TransactionHistory(new MockTime(T0), { rows: 1_000, abortRows: 50 })
    expect(h.bytes).toBe(1_050 * BYTES_PER_ROW)
    const r = new SeededRandom(3)
    let aborted = 0
    for (let i = 0; i < 20_000; i++) {
      const abort = r.next() < 0.01
      if (abort) aborted++
      // Many distinct transactional ids (a lab reset many times): the string table stays bounded.
      h.onEnded(
        txn(i, {
          transactionalId: `app-${Math.floor(i / 50)}_0`,
          ...(abort ? { outcome: 'aborted', abortReason: 'timeout' } : {}),
        }),
        `worker-${i % 7}`,
      )
    }
    expect(h.bytes).toBe(1_050 * BYTES_PER_ROW)
    const page = h.query(NO_FILTER)
    expect(page.window.rows).toBe(1_000)
    expect(page.window.abortRows).toBe(50)
    expect(page.window.olderThanRows).toBe(20_000 - 1_050)
    expect(page.window.text).toMatch(
      /the last 1,000 transactions and 50 older aborts.*18,950 older transactions are in the statistics only/,
    )
    expect(page.statistics.life.outcomes.aborted.count).toBe(aborted)
    expect(page.statistics.life.outcomes.committed.count).toBe(20_000 - aborted)
    // Rows oldest first; the older aborts come before the main ring's rows, and each row's strings survived compaction.
    const ends = page.rows.map((x) => x.endMs)
    expect(ends).toEqual([...ends].sort((a, b) => a - b))
    expect(page.rows.slice(0, 50).every((x) => x.outcome === 'aborted')).toBe(true)
    for (const x of page.rows) expect(x.transactionalId).toBe(`app-${Math.floor(x.epoch / 50)}_0`)
  })

  it('starts the run statistics over at a new run, not the life', async () => {
    const time = new MockTime(T0)
    const h = new TransactionHistory(time)
    h.onEnded(txn(1), 'w')
    await time.runFor(1000)
    h.beginRun()
    h.onEnded(txn(2), 'w')
    const s = h.statistics()
    expect([s.life.outcomes.committed.count, s.run.outcomes.committed.count, s.run.sinceMs]).toEqual([2, 1, T0 + 1000])
  })
})

describe('GET /api/lab/transactions query', () => {
  const parse = (q: string) => parseTxnHistoryQuery(new URLSearchParams(q))
  it('reads every filter', () => {
    expect(
      parse(
        'outcome=aborted,teardown&transactionalId=app-0_1&sinceMs=10&untilMs=20&minDurationMs=12.5&limit=50&format=csv',
      ),
    ).toEqual({
      ok: true,
      format: 'csv',
      filter: {
        outcomes: ['aborted', 'teardown'],
        transactionalId: 'app-0_1',
        sinceMs: 10,
        untilMs: 20,
        minDurationMs: 12.5,
        limit: 50,
      },
    })
    expect(parse('')).toEqual({ ok: true, format: 'json', filter: NO_FILTER })
  })
  it.each([
    ['outcome=open', /outcome must be committed, aborted, teardown/],
    ['sinceMs=-1', /sinceMs must be a whole number/],
    ['sinceMs=20&untilMs=10', /sinceMs must not be after untilMs/],
    ['minDurationMs=abc', /minDurationMs must be a number/],
    ['limit=0', /limit must be a whole number from 1/],
    ['format=xml', /format must be json or csv/],
    ['colour=red', /unknown parameter "colour"/],
    ['limit=5&limit=6', /given twice/],
    ['transactionalId=', /must not be empty/],
  ])('refuses %s', (q, error) => {
    const r = parse(q)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toMatch(error)
  })
})

describe('CSV export', () => {
  it('escapes quotes, commas and line breaks, and defuses formulas', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)")
    expect(csvField('-1+2,3')).toBe(`"'-1+2,3"`)
    expect(csvField(null)).toBe('')
    expect(csvField(-12)).toBe('-12')
    expect(csvField(1.23456)).toBe('1.235')
  })
  it('writes a header and one line per row that a CSV reader gives back', () => {
    const h = new TransactionHistory(new MockTime(T0))
    h.onEnded(txn(1, { transactionalId: 'app,"odd"\nid', outcome: 'aborted', abortReason: 'crash' }), undefined)
    const csv = toCsv(h.query(NO_FILTER).rows)
    const [head, line, end] = csv.split('\r\n')
    expect(head).toBe(
      'endMs,beginMs,durationMs,outcome,cause,transactionalId,workerId,producerId,epoch,partitions,' +
        'outputRecords,changelogRecords,offsetsCommitted,endTxnMs,sendOffsetsMs',
    )
    expect(line).toBe(
      `${T0 + 121},${T0 + 100},21,aborted,crash,"app,""odd""\nid",,1001,1,output-1 app-store-changelog-1,11,5,1,4,1`,
    )
    expect(end).toBe('')
  })
})
