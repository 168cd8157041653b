// `eoscope observe` on a Kafka Streams application it did not start: the yardstick
// (bench/kafka-streams, exactly_once_v2, 3 stream threads, built with mvn) on the test broker,
// fed while observed. The observer, read-only, shows its group's members and the generations the
// coordinator wrote (a second instance joining makes a new one), its transactional ids and the
// COMMIT markers its transactions write, and flags a hanging transaction on its output topic, as
// does the CLI (exit status 1). Told the topics' record format, it runs eoscope's validator on them:
// nothing doubled or lost, and a copy appended to the output caught as a duplicate. A JDK and Maven
// are prerequisites: without them the run fails.

import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { prepareYardstick } from '../../bench/kafka-streams-build.ts'
import { startStreams, type StreamsProcess } from '../../bench/kafka-streams-runner.ts'
import { observeCommand } from '../../server/cli/observe-command.ts'
import { ApplicationObserver, type ApplicationSample } from '../../server/observe/application-observer.ts'
import type { ObservedValidation } from '../../server/observe/observe-validation.ts'
import { changelogTopic } from '../../lib/records.ts'
import { kafkaObserveSource, type KafkaObserveSource } from '../../server/observe/kafka-observe-source.ts'
import { KafkaConnection } from '../../server/log/kafka/kafka-connection.ts'
import type { LogProducer } from '../../server/log/types.ts'
import { writeHangingTransaction } from '../../server/log/kafka/kip664/__fixtures__/hanging-transaction.ts'
import { untilProgress } from '../progress.ts'

const brokers = [inject('kafkaBrokers')]
const appId = `observe-kstreams-${randomUUID().slice(0, 8)}`
const topics = { input: `${appId}-input`, output: `${appId}-output` }
const PARTITIONS = 6
/** A state the application reaches (started, rebalanced): Kafka Streams' own timeouts, on a busy machine. */
const STATE_MS = 240_000
const STALL_MS = 120_000

let conn: KafkaConnection
let feeder: LogProducer
let feeding = true
let feedLoop: Promise<void> = Promise.resolve()
const instances: StreamsProcess[] = []
const stateDirs: string[] = []
let source: KafkaObserveSource
let observer: ApplicationObserver
let last: ApplicationSample | null = null
const sample = async () => (last = await observer.sample())
/** What a wait on the observer watches: its figures without the sample's time, so that a stall shows. */
const figures = async () => {
  const s = await sample()
  return {
    state: s.group.state,
    members: s.group.members.length,
    generation: s.group.generation,
    transactions: s.transactions.length,
    commitMarkers: s.totals.commitMarkers,
    committedInput: s.totals.committedInput,
    notes: s.notes,
  }
}

function startInstance(): StreamsProcess {
  const dir = mkdtempSync(path.join(tmpdir(), 'eoscope-observe-kstreams-'))
  stateDirs.push(dir)
  const y = prepareYardstick()
  if (y.ready !== 'yes') throw new Error(`the Kafka Streams application cannot be built: ${y.reason}`)
  const s = startStreams(y.classPath, { brokers, guarantee: 'exactly_once_v2', commitIntervalMs: 100 }, appId, [
    `-Djava.io.tmpdir=${dir}`,
  ])
  instances.push(s)
  return s
}

beforeAll(async () => {
  const y = prepareYardstick()
  if (y.ready !== 'yes')
    throw new Error(`observe's Kafka test needs the Kafka Streams yardstick (Java and Maven): ${y.reason}`)
  conn = new KafkaConnection({ brokers, clientId: appId })
  await conn.admin().createTopics([
    { topic: topics.input, partitions: PARTITIONS },
    { topic: topics.output, partitions: PARTITIONS },
  ])
  feeder = conn.producer({ clientId: `${appId}-feeder`, idempotent: true })
  let n = 0
  feedLoop = (async () => {
    while (feeding) {
      // The yardstick's input values: integers as decimal text (anything else it skips). A key
      // stays on one partition, as a key-hashing partitioner keeps it (its aggregate is one task's).
      const batch = Array.from({ length: 60 }, (_, i) => ({
        topic: topics.input,
        partition: ((n + i) % 50) % PARTITIONS,
        key: `k${(n + i) % 50}`,
        value: String(((n + i) % 97) + 1),
      }))
      n += batch.length
      await feeder.send(batch)
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  source = kafkaObserveSource({ brokers, clientId: `${appId}-observer` })
  observer = new ApplicationObserver(source, { applicationId: appId, output: [topics.output], input: [topics.input] })
}, STATE_MS)

afterAll(async () => {
  feeding = false
  await feedLoop.catch(() => {})
  for (const s of instances) await s.stop()
  await feeder?.close()
  await source?.close()
  await conn?.close()
  for (const d of stateDirs) rmSync(d, { recursive: true, force: true })
}, STATE_MS)

describe('eoscope observe on a Kafka Streams application (exactly_once_v2)', () => {
  it("shows its group's members and generations, and its transactions committing", {
    timeout: 2 * STATE_MS,
  }, async () => {
    const first = startInstance()
    await untilProgress({
      what: `Kafka Streams RUNNING with ${PARTITIONS} tasks`,
      read: () => ({ state: first.state, tasks: first.activeTasks, failure: first.failure() }),
      done: (x) => x.failure === null && x.state === 'RUNNING' && x.tasks === PARTITIONS,
      stallMs: STALL_MS,
      everyMs: 200,
    })
    await untilProgress({
      what: 'the observer to see 3 members in a generation and COMMIT markers on the output',
      read: figures,
      done: (f) => f.members === 3 && f.generation !== null && f.commitMarkers > 0 && f.committedInput > 0,
      stallMs: STALL_MS,
      everyMs: 500,
    })
    const s1 = last!
    expect(s1.group.state).toBe('Stable')
    expect(s1.group.members.every((m) => m.clientId.startsWith(appId))).toBe(true)
    // Every input partition is assigned to exactly one member.
    const inputs = s1.group.members
      .flatMap((m) => m.assignment.filter((tp) => tp.topic === topics.input).map((tp) => tp.partition))
      .sort()
    expect(inputs).toEqual([0, 1, 2, 3, 4, 5])
    // The generation's record in __consumer_offsets names the same members as DescribeGroups.
    const g1 = s1.group.generations.at(-1)!
    expect('generation' in g1 && g1.generation).toBe(s1.group.generation)
    expect('generation' in g1 && g1.members.map((m) => m.memberId).sort()).toEqual(
      s1.group.members.map((m) => m.memberId).sort(),
    )
    // exactly_once_v2: one transactional id per stream thread, named after the application.
    expect(s1.transactions.length).toBe(3)
    expect(s1.transactions.every((t) => t.transactionalId.startsWith(`${appId}-`))).toBe(true)
    expect(s1.totals.abortMarkers).toBe(0)
    expect(s1.hanging).toEqual([])
    const roles = new Set(s1.partitions.map((p) => p.role))
    expect([...roles].sort()).toEqual(['input', 'internal', 'output'])
    expect(
      s1.partitions
        .filter((p) => p.role === 'internal')
        .every((p) => p.topic.endsWith('-changelog') || p.topic.endsWith('-repartition')),
    ).toBe(true)

    // A second instance joins: the coordinator writes a new generation with 6 members.
    const second = startInstance()
    await untilProgress({
      what: "a new generation with both instances' 6 members",
      read: figures,
      // Each new thread's producer registers its transactional id once it gets an active task.
      done: (f) =>
        f.generation !== null &&
        f.generation > s1.group.generation! &&
        f.members === 6 &&
        f.state === 'Stable' &&
        f.transactions === 6,
      stallMs: STATE_MS,
      everyMs: 500,
    })
    const s2 = last!
    expect(second.failure()).toBeNull()
    const generations = s2.group.generations
      .filter((e) => 'generation' in e)
      .map((e) => ('generation' in e ? e.generation : -1))
    expect(generations).toContain(s1.group.generation)
    expect(generations.at(-1)).toBe(s2.group.generation)
    expect(s2.transactions.length).toBe(6)
    // Its transactions go on committing.
    await untilProgress({
      what: 'more COMMIT markers after the rebalance',
      read: figures,
      done: (f) => f.commitMarkers > s2.totals.commitMarkers,
      stallMs: STALL_MS,
      everyMs: 500,
    })
  })

  it('flags a hanging transaction on its output topic, and the CLI exits 1', { timeout: STATE_MS }, async () => {
    const producerId = 8_000_000 + Math.floor(Math.random() * 1_000_000)
    await writeHangingTransaction(brokers, `${appId}-hanging`, { topic: topics.output, partition: 2 }, producerId)
    await untilProgress({
      what: `observe to flag producer ${producerId} hanging on ${topics.output}-2`,
      read: async () => (await sample()).hanging.map((t) => t.producerId),
      done: (ids) => ids.includes(producerId),
      stallMs: STALL_MS,
      everyMs: 500,
    })
    const s = last!
    const hung = s.hanging.find((t) => t.producerId === producerId)!
    expect(hung).toMatchObject({ topic: topics.output, partition: 2, transactionalId: null, verdict: 'hanging' })
    // Its last stable offset stays at the hanging transaction's first offset.
    expect(s.partitions.find((p) => p.topic === topics.output && p.partition === 2)!.lastStableOffset).toBe(
      hung.currentTxnStartOffset,
    )

    const lines: string[] = []
    const status = await observeCommand(
      {
        'application-id': appId,
        brokers: brokers.join(','),
        output: topics.output,
        input: undefined,
        format: undefined,
        changelog: undefined,
        'dead-letter': undefined,
        'interval-ms': 100,
        samples: 1,
        json: true,
      },
      (l) => lines.push(l),
      { NODE_ENV: 'test' },
    )
    expect(status).toBe(1)
    const printed = JSON.parse(lines[0]!) as ApplicationSample
    expect(printed.hanging.map((t) => t.producerId)).toContain(producerId)
    // Left as found: the hanging transaction aborted (the observer itself writes nothing).
    await source.transactions.abortTransaction(hung)
    await untilProgress({
      what: 'no hanging transaction after the abort',
      read: async () => (await sample()).hanging.length,
      done: (n) => n === 0,
      stallMs: STALL_MS,
      everyMs: 500,
    })
    expect(last!.notes.filter((n) => !n.startsWith('topic '))).toEqual([])
  })
  const validatesObservedTopics =
    'runs the validator on its topics when told their format: nothing doubled or lost under exactly_once_v2; a ' +
    'copy appended to its output is caught, and the CLI exits 1'
  it(validatesObservedTopics, {
    timeout: 2 * STATE_MS,
  }, async () => {
    const target = {
      format: 'eoscope',
      input: topics.input,
      output: topics.output,
      changelog: changelogTopic(appId),
      deadLetter: null,
    } as const
    const validating = new ApplicationObserver(source, {
      applicationId: appId,
      output: [topics.output],
      input: [topics.input],
      validation: target,
    })
    let v: ObservedValidation | null = null
    const read = async () => {
      const s = await validating.sample()
      v = s.validation
      return {
        input: v?.inputRecords ?? null,
        output: v?.outputRecords ?? null,
        duplicates: v?.duplicates ?? null,
        notes: s.notes,
      }
    }
    // The group's offset commit can become visible a moment before the same transaction's COMMIT
    // marker reaches every output partition (the coordinator writes the markers in parallel), so
    // one check may read an input ahead of its outputs; the validator decides those at a later
    // check, and the test waits for one where the outputs have caught up.
    await untilProgress({
      what: 'the validator to decide 2,000 input records, every output read',
      read,
      done: (x) => (x.input ?? 0) >= 2_000 && (x.output ?? 0) >= (x.input ?? 0),
      stallMs: STALL_MS,
      everyMs: 500,
    })
    expect(v!).toMatchObject({
      judgedAs: 'exactly-once',
      duplicates: 0,
      lost: 0,
      abortedReads: 0,
      stateMismatches: 0,
      violations: [],
      unavailable: [],
    })

    // A committed output record copied outside any transaction: what a retried, non-idempotent write leaves.
    const inspector = conn.inspector()
    const original = (await inspector.readRaw({ topic: topics.output, partition: 0 }, 0, 200, 200)).find(
      (r) => r.control === null && r.txnOutcome === 'committed',
    )!
    const copier = conn.producer({ clientId: `${appId}-copier`, idempotent: false })
    try {
      await copier.send([{ topic: topics.output, partition: 0, key: original.key, value: original.value }])
    } finally {
      await copier.close()
    }
    await untilProgress({
      what: 'the validator to count the copy',
      read,
      done: (x) => (x.duplicates ?? 0) > 0,
      stallMs: STALL_MS,
      everyMs: 500,
    })
    expect(v!).toMatchObject({
      duplicates: 1,
      lost: 0,
      stateMismatches: 0,
      violations: [{ row: 'duplicates', value: 1 }],
    })

    const lines: string[] = []
    const status = await observeCommand(
      {
        'application-id': appId,
        brokers: brokers.join(','),
        output: topics.output,
        input: topics.input,
        format: 'eoscope',
        changelog: undefined,
        'dead-letter': undefined,
        'interval-ms': 100,
        samples: 1,
        json: false,
      },
      (l) => lines.push(l),
      { NODE_ENV: 'test' },
    )
    expect(status).toBe(1)
    const text = lines.join('\n')
    expect(text).toMatch(/duplicates 1, lost 0, aborted reads 0, state mismatches 0/)
    expect(text).toContain('VIOLATED: duplicates 1')
  })
})
