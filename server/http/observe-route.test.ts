// GET /api/observe (the /observe page's API) over the http layer, with the observers reading a
// hand-made run on the embedded log (its coordinators stand in for a cluster's): a sample with the
// validator's figures, the one-a-second sharing between browsers, a copy appended to the output
// counted at the next sample, bad targets refused before anything is read, and a server without a
// cluster saying so.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { transactionsSource } from '../log/find-hanging.ts'
import type { ApplicationSample, ObserveSource } from '../observe/application-observer.ts'
import { ObserverRegistry } from '../observe/observer-registry.ts'
import { CHANGELOG_TOPIC, GROUP_ID, INPUT_TOPIC, OUTPUT_TOPIC, RunBuilder } from '../validator/fixtures/run-builder.ts'
import type { EoscopeHttp } from './app.ts'
import { createFakeLab } from './__fixtures__/fake-lab.ts'
import { listenOnLoopback } from './__fixtures__/loopback.ts'
import { NO_CLUSTER } from './observe-route.ts'

const policy = { token: null, lockReads: false, controlRate: { perSec: 100, burst: 100 } }
let run: RunBuilder
let registry: ObserverRegistry
let clock = 1_000_000
let reads = 0
let http: EoscopeHttp
let url: string
let bare: { http: EoscopeHttp; url: string }

function sourceOver(r: RunBuilder): ObserveSource {
  const inspector = r.inspector()
  return {
    inspector: {
      topics: () => {
        reads++
        return inspector.topics()
      },
      offsets: (tp) => inspector.offsets(tp),
      readRaw: (...a) => inspector.readRaw(...a),
      committedOffsets: (g) => inspector.committedOffsets(g),
      describeGroup: (g) => inspector.describeGroup!(g),
    },
    transactions: transactionsSource(inspector)!,
    readOffsetsTopic: async () => ({ records: [], nextOffset: 0, highWatermark: 0 }),
  }
}

const query =
  `applicationId=${GROUP_ID}&input=${INPUT_TOPIC}&output=${OUTPUT_TOPIC}` +
  `&format=eoscope&changelog=${CHANGELOG_TOPIC}`
const get = async (q: string, base = url) => {
  const r = await fetch(`${base}/api/observe?${q}`)
  return { status: r.status, body: (await r.json()) as { sample?: ApplicationSample; error?: string } }
}

beforeAll(async () => {
  run = new RunBuilder(2)
  run.appendKeyed(Array.from({ length: 30 }, (_, i) => ({ key: `k${i % 7}`, value: String(i + 1) })))
  run.drain()
  registry = new ObserverRegistry(sourceOver(run), { now: () => clock, minIntervalMs: 1_000, maxObservers: 2 })
  ;({ http, url } = await listenOnLoopback({ lab: createFakeLab(), policy, observe: registry }))
  bare = await listenOnLoopback({ lab: createFakeLab(), policy })
})

afterAll(async () => {
  await http.close()
  await bare.http.close()
})

describe('GET /api/observe', () => {
  const samplesApplication =
    "samples the application: its transactional ids, its partitions, and the validator's figures on its topics"
  it(samplesApplication, async () => {
    const { status, body } = await get(query)
    expect(status).toBe(200)
    const s = body.sample!
    expect(s.applicationId).toBe(GROUP_ID)
    expect(s.transactions.map((t) => t.transactionalId)).toEqual(['eoscope-test-task'])
    expect(s.partitions.filter((p) => p.role === 'input').map((p) => [p.partition, p.committed, p.lag])).toEqual([
      [0, run.committedOutputOffsets(0).length, 0],
      [1, run.committedOutputOffsets(1).length, 0],
    ])
    expect(s.validation).toMatchObject({
      format: 'eoscope',
      judgedAs: 'exactly-once',
      inputRecords: 30,
      duplicates: 0,
      lost: 0,
      abortedReads: 0,
      stateMismatches: 0,
      violations: [],
    })
  })

  const oneSamplePerSecond =
    'answers every browser within a second with the same sample, then reads again: a copy appended to the output ' +
    'shows at the next one'
  it(oneSamplePerSecond, async () => {
    const first = (await get(query)).body.sample!
    const readsBefore = reads
    run.duplicateOutput(0, run.committedOutputOffsets(0)[0]!)
    const again = await Promise.all([get(query), get(query), get(query)])
    expect(again.map((a) => a.body.sample!.atMs)).toEqual([first.atMs, first.atMs, first.atMs])
    expect(reads).toBe(readsBefore)
    clock += 1_000
    const next = (await get(query)).body.sample!
    expect(next.atMs).toBe(first.atMs + 1_000)
    expect(next.validation).toMatchObject({ duplicates: 1, violations: [{ row: 'duplicates', value: 1 }] })
  })

  it.each([
    ['input=i', 'the application id is required'],
    ['applicationId=a%20b', 'application id "a b" is not a Kafka group id'],
    [
      `applicationId=app&format=avro&input=i&output=o`,
      'record format "avro" is not one eoscope can validate; known: eoscope',
    ],
    [
      `applicationId=app&format=eoscope&output=o`,
      'the validator runs on one input and one output topic: name one of each (got 0 input and 1 output)',
    ],
    [`applicationId=app&changelog=c`, 'a changelog and a dead-letter topic are for the validator'],
    [`applicationId=app&input=a/b`, 'input topic "a/b" is not a Kafka topic name'],
  ])('refuses %j with 400 before reading anything: %s', async (q, message) => {
    const [readsBefore, observers] = [reads, registry.size]
    const { status, body } = await get(q)
    expect(status).toBe(400)
    expect(body.error).toContain(message)
    expect([reads, registry.size]).toEqual([readsBefore, observers])
  })

  it('keeps a bounded number of observers: the least recently asked-for is dropped', async () => {
    for (const app of ['one', 'two', 'three']) expect((await get(`applicationId=${app}`)).status).toBe(200)
    expect(registry.size).toBe(2)
  })

  it('answers HEAD as GET, and refuses other methods', async () => {
    const head = await fetch(`${url}/api/observe?${query}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    const del = await fetch(`${url}/api/observe?${query}`, { method: 'DELETE', headers: { origin: url } })
    expect(del.status).toBe(405)
  })

  it('on a server without a Kafka cluster, says so (501) and where to start one', async () => {
    const { status, body } = await get(query, bare.url)
    expect(status).toBe(501)
    expect(body.error).toBe(NO_CLUSTER)
  })

  it('asked with no target, says whether it can observe: not without a cluster, and why; yes with one', async () => {
    const bareAnswer = await fetch(`${bare.url}/api/observe`)
    expect(bareAnswer.status).toBe(200)
    expect(await bareAnswer.json()).toEqual({ available: false, reason: NO_CLUSTER })
    expect(await (await fetch(`${url}/api/observe`)).json()).toEqual({ available: true })
  })

  it('is listed in the API index', async () => {
    const index = (await (await fetch(`${url}/api`)).json()) as { routes: { method: string; path: string }[] }
    expect(index.routes).toContainEqual(expect.objectContaining({ method: 'GET', path: '/api/observe' }))
  })
})
