// The message browser's query logic against fixtures (a committed, an aborted and a pending
// transaction, control markers, plain records, duplicates), then the same reads through the
// embedded log's ports, and bad queries refused with why.

import { describe, expect, it } from 'vitest'
import { MESSAGE_SCAN_MAX, parseMessageQuery, type MessageQuery } from '../../lib/message-browser.ts'
import { encodeOutputValue } from '../../lib/records.ts'
import type { PartitionOffsets, StoredRecordView } from '../log/types.ts'
import { SystemTime } from '../log/time.ts'
import { ClientFaults, EmbeddedConnection } from '../log/embedded/embedded-connection.ts'
import { EmbeddedCluster } from '../log/embedded/embedded-cluster.ts'
import { ProcessHandle } from '../log/embedded/process-handle.ts'
import { messagePage, planRange, type PageInput } from './message-browser.ts'
import { browseMessages } from './message-browser-read.ts'

function query(s: string): MessageQuery {
  const q = parseMessageQuery(new URLSearchParams(s))
  if (!q.ok) throw new Error(q.error)
  return q.value
}

const out = (key: string, count: number, inputOffset: number) =>
  encodeOutputValue(key, { count, sum: count, min: 1, max: 1 }, { partition: 0, offset: inputOffset })
let seq = 0
function rec(offset: number, over: Partial<StoredRecordView>): StoredRecordView {
  return {
    topic: 'output',
    partition: 0,
    offset,
    key: null,
    value: null,
    headers: undefined,
    timestamp: 1_000 + offset,
    producerId: 7,
    producerEpoch: 0,
    sequence: seq++,
    transactional: true,
    control: null,
    txnOutcome: 'committed',
    ...over,
  }
}

// 0-1 committed (k1, k2), 2 COMMIT; 3 aborted (k1, the same input as 0), 4 ABORT; 5 plain record
// (no transaction); 6 committed again from input 10 (k1), 7 its redo's copy (duplicate), 8 COMMIT;
// 9-10 pending (no marker yet): LSO 9, HW 11.
const STORED: StoredRecordView[] = [
  rec(0, { key: 'k1', value: out('k1', 1, 10), headers: { h: 'one' } }),
  rec(1, { key: 'k2', value: out('k2', 1, 11) }),
  rec(2, { control: 'COMMIT' }),
  rec(3, { key: 'k1', value: out('k1', 2, 10), producerId: 8, txnOutcome: 'aborted' }),
  rec(4, { control: 'ABORT', producerId: 8, txnOutcome: 'aborted' }),
  rec(5, { key: 'k3', value: out('k3', 1, 12), producerId: 9, transactional: false, txnOutcome: null }),
  rec(6, { key: 'k1', value: out('k1', 2, 13) }),
  rec(7, { key: 'k1', value: out('k1', 3, 13) }),
  rec(8, { control: 'COMMIT' }),
  rec(9, { key: 'k2', value: out('k2', 2, 14), producerId: 10, txnOutcome: 'pending' }),
  rec(10, { key: 'k1', value: out('k1', 4, 15), producerId: 10, txnOutcome: 'pending' }),
]
const OFFSETS: PartitionOffsets = { logStartOffset: 0, lastStableOffset: 9, highWatermark: 11 }
// What each isolation level's consumer is given: read_committed stops at the LSO and skips the aborted record.
const RC = new Set([0, 1, 5, 6, 7])
const RU = new Set([0, 1, 3, 5, 6, 7, 9, 10])

function page(s: string, offsets = OFFSETS, stored = STORED) {
  const q = query(s)
  const plan = planRange(q, 3, offsets)
  if (!plan.ok) throw new Error(plan.error)
  const input: PageInput = {
    query: q,
    role: q.topic,
    topic: 'app-output',
    partitions: 3,
    offsets,
    range: plan.value,
    stored,
    readCommitted: RC,
    readUncommitted: RU,
  }
  return messagePage(input)
}

describe('the message page', () => {
  it('shows every stored record of the range with both isolation levels, markers and pending records marked', () => {
    const p = page('topic=output&partition=0&from=0')
    expect(p.records.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(p.records.map((r) => r.state)).toEqual([
      'committed',
      'committed',
      'control',
      'aborted',
      'control',
      'non-transactional',
      'committed',
      'committed',
      'control',
      'pending',
      'pending',
    ])
    expect(p.records.filter((r) => r.readCommitted).map((r) => r.offset)).toEqual([0, 1, 5, 6, 7])
    expect(p.records.filter((r) => r.readUncommitted).map((r) => r.offset)).toEqual([0, 1, 3, 5, 6, 7, 9, 10])
    expect(p.records.filter((r) => r.aboveLso).map((r) => r.offset)).toEqual([9, 10])
    expect(p.records[4]).toMatchObject({ control: 'ABORT', key: null, producerId: 8 })
    expect(p.records[0]!.headers).toEqual({ h: 'one' })
    expect(p.records[3]).toMatchObject({
      producerId: 8,
      transactional: true,
      source: { topic: 'input', partition: 0, offset: 10 },
    })
    expect(p).toMatchObject({ from: 0, scannedTo: 11, nextOffset: null, lastStableOffset: 9, highWatermark: 11 })
  })

  it('names the copies that came from the same input record, aborted ones included', () => {
    const p = page('topic=output&from=0')
    const at = (o: number) => p.records.find((r) => r.offset === o)!
    expect(at(6).sameSourceAs).toEqual([7])
    expect(at(7).sameSourceAs).toEqual([6])
    expect(at(0).sameSourceAs).toEqual([3])
    expect(at(1).sameSourceAs).toEqual([])
  })

  it('filters by key and by time, markers left out of a key search', () => {
    expect(page('topic=output&key=k1').records.map((r) => r.offset)).toEqual([0, 3, 6, 7, 10])
    expect(page('topic=output&sinceMs=1003&untilMs=1006').records.map((r) => r.offset)).toEqual([3, 4, 5])
    expect(page('topic=output&key=k2&sinceMs=1005').records.map((r) => r.offset)).toEqual([9])
    expect(page('topic=output&key=nobody').records).toEqual([])
  })

  const filtersBySourceRecord =
    'filters by the input record a record was made from: only its copies, however many records of its key lie ' +
    'between them'
  it(filtersBySourceRecord, () => {
    expect(page('topic=output&source=0@13').records.map((r) => r.offset)).toEqual([6, 7])
    expect(page('topic=output&key=k1&source=0@10').records.map((r) => r.offset)).toEqual([0, 3])
    // A key's other records between the copies do not count against the limit.
    expect(page('topic=output&from=0&to=8&key=k1&source=0@13&limit=2').records.map((r) => r.offset)).toEqual([6, 7])
    expect(page('topic=output&source=1@13').records).toEqual([])
  })

  it('stops at the limit and says where the next page starts', () => {
    const first = page('topic=output&from=0&limit=4')
    expect(first.records.map((r) => r.offset)).toEqual([0, 1, 2, 3])
    expect(first.nextOffset).toBe(4)
    const next = page(`topic=output&from=${first.nextOffset}&limit=4`)
    expect(next.records.map((r) => r.offset)).toEqual([4, 5, 6, 7])
    const keyed = page('topic=output&key=k1&limit=2')
    expect(keyed.records.map((r) => r.offset)).toEqual([0, 3])
    expect(keyed.nextOffset).toBe(4)
  })

  it('shows the newest records without a from, and a half-open [from, to) range', () => {
    expect(page('topic=output&limit=3').records.map((r) => r.offset)).toEqual([8, 9, 10])
    expect(page('topic=output&from=6&to=8').records.map((r) => r.offset)).toEqual([6, 7])
    expect(page('topic=output&to=5&limit=2').records.map((r) => r.offset)).toEqual([3, 4])
  })

  it('reads no input record as having a source, and none of a control marker', () => {
    const p = page('topic=input&from=0')
    expect(p.records.every((r) => r.source === null && r.sameSourceAs.length === 0)).toBe(true)
  })
})

describe('the range a query covers', () => {
  const q = (s: string) => query(s)
  it('cuts a range to the log and bounds one request to the scan cap', () => {
    const o = { logStartOffset: 100, lastStableOffset: 20_000, highWatermark: 20_000 }
    expect(planRange(q('topic=input&from=5&to=300'), 3, o)).toEqual({
      ok: true,
      value: { from: 100, to: 300, scanEnd: 300 },
    })
    expect(planRange(q('topic=input&from=150&to=999999'), 3, o)).toEqual({
      ok: true,
      value: { from: 150, to: 20_000, scanEnd: 150 + MESSAGE_SCAN_MAX },
    })
    expect(planRange(q('topic=input&key=a'), 3, o)).toMatchObject({ ok: true, value: { from: 100 } })
  })

  it('refuses a partition that does not exist and a range outside the log, saying why', () => {
    const o = { logStartOffset: 100, lastStableOffset: 200, highWatermark: 200 }
    expect(planRange(q('topic=output&partition=3'), 3, o)).toEqual({
      ok: false,
      error: 'partition 3 does not exist: topic output has 3 (0 to 2)',
    })
    expect(planRange(q('topic=output&from=201'), 3, o)).toEqual({
      ok: false,
      error: 'from 201 is beyond the high watermark 200 of output-0',
    })
    expect(planRange(q('topic=output&to=100'), 3, o)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/log start offset 100/),
    })
  })
})

describe('the query string', () => {
  it.each([
    ['', /topic/],
    ['topic=dlq', /topic must be one of input, output, changelog/],
    ['topic=output&partition=-1', /partition must be a whole number/],
    ['topic=output&from=5&to=5', /from must be below to/],
    ['topic=output&limit=0', /limit must be from 1 to 500/],
    ['topic=output&limit=501', /limit must be from 1 to 500/],
    ['topic=output&sinceMs=9&untilMs=3', /sinceMs must be below untilMs/],
    ['topic=output&key=', /key must not be empty/],
    ['topic=output&source=13', /source must be PARTITION@OFFSET/],
    ['topic=output&source=a@1', /source must be PARTITION@OFFSET/],
    ['topic=output&offset=3', /unknown parameter "offset"/],
    ['topic=output&topic=input', /given twice/],
  ])('refuses %j', (s, error) => {
    const r = parseMessageQuery(new URLSearchParams(s))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toMatch(error)
  })

  it('takes defaults for what is left out', () => {
    expect(query('topic=changelog')).toEqual({ topic: 'changelog', partition: 0, limit: 100 })
  })
})

describe('the message browser on the embedded log', () => {
  it('reads the stored records and what each isolation level is given through the log ports', async () => {
    const cluster = new EmbeddedCluster(new SystemTime())
    const connection = new EmbeddedConnection(cluster, new ProcessHandle('browser'), new ClientFaults())
    await connection.admin().createTopics([{ topic: 'o', partitions: 2 }])
    const tp = { topic: 'o', partition: 1 }
    const p = connection.producer({ clientId: 'p', idempotent: true, transactionalId: 't1' })
    await p.initTransactions()
    p.beginTransaction()
    await p.send([{ ...tp, key: 'a', value: out('a', 1, 0), headers: { trace: 'x' } }])
    await p.commitTransaction()
    p.beginTransaction()
    await p.send([{ ...tp, key: 'a', value: out('a', 2, 1) }])
    await p.abortTransaction()
    p.beginTransaction()
    await p.send([{ ...tp, key: 'b', value: out('b', 1, 2) }])
    const lab = { connection, topics: { input: 'i', output: 'o', changelog: 'c' }, partitions: 2 }
    const r = await browseMessages(lab, query('topic=output&partition=1&from=0'))
    expect(r.ok).toBe(true)
    if (!r.ok) return
    const rows = r.value.records.map((x) => [x.offset, x.state, x.readCommitted, x.readUncommitted, x.aboveLso])
    expect(rows).toEqual([
      [0, 'committed', true, true, false],
      [1, 'control', false, false, false],
      [2, 'aborted', false, true, false],
      [3, 'control', false, false, false],
      [4, 'pending', false, true, true],
    ])
    expect(r.value.records[0]!.headers).toEqual({ trace: 'x' })
    expect(r.value.records[3]!.control).toBe('ABORT')
    expect(r.value).toMatchObject({ lastStableOffset: 4, highWatermark: 5 })
    expect(await browseMessages(lab, query('topic=output&partition=2'))).toEqual({
      ok: false,
      error: 'partition 2 does not exist: topic output has 2 (0 to 1)',
    })
    await p.abortTransaction()
  })
})
