// GET /api/lab/messages on a real broker: the REST handler over a lab whose log connection is a
// KafkaConnection, on a partition written by test producers (a committed transaction, an aborted
// one, a plain idempotent record, a transaction left open). The page's offsets, markers and
// read_committed / read_uncommitted columns must be the partition's, as another client reads it.

import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { MessagePage } from '../../lib/message-browser.ts'
import type { LabController } from '../../server/lab/lab-controller.ts'
import { browseMessages } from '../../server/lab/message-browser-read.ts'
import { createRestHandler } from '../../server/http/rest.ts'
import { KafkaConnection } from '../../server/log/kafka/kafka-connection.ts'
import type { LogProducer } from '../../server/log/types.ts'
import { encodeOutputValue } from '../../lib/records.ts'

const brokers = inject('kafkaBrokers')
const run = randomUUID().slice(0, 8)
const topics = { input: `mb-input-${run}`, output: `mb-output-${run}`, changelog: `mb-changelog-${run}` }
const out = (key: string, inputOffset: number) =>
  encodeOutputValue(key, { count: 1, sum: 1, min: 1, max: 1 }, { partition: 1, offset: inputOffset })

describe('the message browser API on a Kafka broker', () => {
  let conn: KafkaConnection
  let server: Server
  let url: string
  let open: LogProducer

  beforeAll(async () => {
    if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
    conn = new KafkaConnection({ brokers: [brokers], clientId: `eoscope-mb-${run}` })
    await conn
      .admin()
      .createTopics([topics.input, topics.output, topics.changelog].map((topic) => ({ topic, partitions: 2 })))
    const tp = { topic: topics.output, partition: 1 }
    const txn = conn.producer({ clientId: 'mb-txn', idempotent: true, transactionalId: `mb-txn-${run}` })
    await txn.initTransactions()
    txn.beginTransaction()
    await txn.send([
      { ...tp, key: 'a', value: out('a', 0), headers: { trace: 'first' } },
      { ...tp, key: 'b', value: out('b', 1) },
    ])
    await txn.commitTransaction()
    txn.beginTransaction()
    await txn.send([{ ...tp, key: 'a', value: out('a', 0) }])
    await txn.abortTransaction()
    await txn.close()
    const plain = conn.producer({ clientId: 'mb-plain', idempotent: true })
    await plain.send([{ ...tp, key: 'c', value: out('c', 2) }])
    await plain.close()
    open = conn.producer({ clientId: 'mb-open', idempotent: true, transactionalId: `mb-open-${run}` })
    await open.initTransactions()
    open.beginTransaction()
    await open.send([{ ...tp, key: 'd', value: out('d', 3) }])
    const lab = { messages: (q) => browseMessages({ connection: conn, topics, partitions: 2 }, q) } as Pick<
      LabController,
      'messages'
    > as LabController
    const handle = createRestHandler(lab)
    server = createServer((req, res) => void handle(req, res))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }, 120_000)

  afterAll(async () => {
    await open?.abortTransaction().catch(() => {})
    await open?.close().catch(() => {})
    await new Promise((r) => server?.close(r))
    await conn?.close()
  })

  const page = async (q: string) => {
    const r = await fetch(`${url}/api/lab/messages?${q}`)
    return { status: r.status, body: (await r.json()) as MessagePage & { error?: string } }
  }

  it('shows every stored record with each isolation level as a consumer of the cluster is given it', async () => {
    const tp = { topic: topics.output, partition: 1 }
    // Markers reach the partition a moment after EndTxn returns: wait for both, and the open transaction's record.
    await expect
      .poll(async () => (await page('topic=output&partition=1&from=0')).body.records?.map((r) => r.state), {
        timeout: 60_000,
      })
      .toEqual(['committed', 'committed', 'control', 'aborted', 'control', 'non-transactional', 'pending'])
    const { body } = await page('topic=output&partition=1&from=0')
    const o = await conn.inspector().offsets(tp)
    expect({ lso: body.lastStableOffset, hw: body.highWatermark }).toEqual({
      lso: o.lastStableOffset,
      hw: o.highWatermark,
    })
    expect(body.records.map((r) => r.offset)).toEqual(
      (await conn.inspector().readRaw(tp, 0, o.highWatermark, 100)).map((r) => r.offset),
    )
    expect(body.records.map((r) => r.control)).toEqual([null, null, 'COMMIT', null, 'ABORT', null, null])
    const rc = (await conn.reader().read(tp, 0, 100, 'read_committed')).records.map((r) => r.offset)
    const ru = (await conn.reader().read(tp, 0, 100, 'read_uncommitted')).records.map((r) => r.offset)
    expect(body.records.filter((r) => r.readCommitted).map((r) => r.offset)).toEqual(rc)
    expect(body.records.filter((r) => r.readUncommitted).map((r) => r.offset)).toEqual(ru)
    expect(rc).toEqual([0, 1, 5])
    expect(body.records[6]).toMatchObject({
      aboveLso: true,
      transactional: true,
      readCommitted: false,
      readUncommitted: true,
    })
    expect(body.records[0]).toMatchObject({
      headers: { trace: 'first' },
      source: { topic: 'input', partition: 1, offset: 0 },
      sameSourceAs: [3],
    })
    expect(body.records[5]).toMatchObject({ transactional: false, state: 'non-transactional' })
  })

  it('filters by key on the cluster and refuses a partition the topic does not have', async () => {
    expect((await page('topic=output&partition=1&key=a')).body.records.map((r) => [r.offset, r.state])).toEqual([
      [0, 'committed'],
      [3, 'aborted'],
    ])
    const bad = await page('topic=output&partition=2')
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/partition 2 does not exist/)
  })
})
