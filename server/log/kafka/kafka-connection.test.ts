// KafkaConnection against a real broker (npm run test:kafka starts one). Each test uses its own
// topics and ids, so a rerun against the same broker starts clean.

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { LogError, isLogError } from '../errors.ts'
import type {
  ConsumedRecord,
  ConsumerGroupMetadata,
  ControlType,
  LogConsumer,
  ProduceRecord,
  RebalanceListener,
  TopicPartition,
} from '../types.ts'
import { tpKey } from '../types.ts'
import { describeConsumerPositionContract } from '../consumer-contract.ts'
import { KafkaConnection } from './kafka-connection.ts'

// Provided by broker-global-setup.ts (vitest.kafka.config.ts); the plain unit run excludes this file.
const brokers = inject('kafkaBrokers')

const run = randomUUID().slice(0, 8)
const name = (what: string) => `eoscope-test-${what}-${run}`
const NO_GROUP: ConsumerGroupMetadata = { groupId: '', memberId: '', generationId: -1 }

function records(topic: string, partition: number, values: string[]): ProduceRecord[] {
  return values.map((v, i) => ({ topic, partition, key: `k${i}`, value: v }))
}

async function readAll(
  conn: KafkaConnection,
  tp: TopicPartition,
  isolation: 'read_committed' | 'read_uncommitted',
): Promise<ConsumedRecord[]> {
  const reader = conn.reader()
  const out: ConsumedRecord[] = []
  let offset = 0
  for (let i = 0; i < 100; i++) {
    const r = await reader.read(tp, offset, 1000, isolation)
    out.push(...r.records)
    if (r.nextOffset === offset) break
    offset = r.nextOffset
  }
  return out
}

class RecordingListener implements RebalanceListener {
  readonly events: { kind: 'assigned' | 'revoked' | 'lost'; partitions: string[] }[] = []
  private log(kind: 'assigned' | 'revoked' | 'lost', tps: TopicPartition[]) {
    this.events.push({ kind, partitions: tps.map((tp) => tpKey(tp.topic, tp.partition)).sort() })
  }
  async onPartitionsAssigned(tps: TopicPartition[]) {
    this.log('assigned', tps)
  }
  async onPartitionsRevoked(tps: TopicPartition[]) {
    this.log('revoked', tps)
  }
  async onPartitionsLost(tps: TopicPartition[]) {
    this.log('lost', tps)
  }
}

/** Polls the consumers in turn until the condition holds; returns what each one received. */
async function pollUntil(
  consumers: LogConsumer[],
  done: (received: ConsumedRecord[][]) => boolean,
  timeoutMs = 30_000,
): Promise<ConsumedRecord[][]> {
  const received: ConsumedRecord[][] = consumers.map(() => [])
  const deadline = Date.now() + timeoutMs
  while (!done(received)) {
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${timeoutMs} ms; received ${received.map((r) => r.length).join('/')} records`,
      )
    for (let i = 0; i < consumers.length; i++) received[i]!.push(...(await consumers[i]!.poll(500)))
  }
  return received
}

/**
 * EndTxn returns once the coordinator logged PrepareCommit/PrepareAbort; the markers reach the
 * partitions (and the offsets topic) a moment later. Reads after an end of transaction wait for them
 * (a state reached: generous for a busy machine).
 */
const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 60_000, interval: 20 })

const sorted = (tps: TopicPartition[]) => tps.map((tp) => tpKey(tp.topic, tp.partition)).sort()

describe('KafkaConnection against a broker', () => {
  let conn: KafkaConnection

  beforeAll(() => {
    if (!brokers)
      throw new Error('no Kafka broker: run these tests with npm run test:kafka (vitest.kafka.config.ts starts one)')
    conn = new KafkaConnection({ brokers: [brokers!], clientId: `eoscope-test-${run}` })
  })
  afterAll(async () => {
    await conn?.close()
  })

  describeConsumerPositionContract('kafka', { connection: () => conn, name, timeoutMs: 30_000 })

  /** A one-partition topic written by one transactional producer: each transaction's values, then its end. */
  async function transactionsIn(what: string, txn: string, transactions: [string[], ControlType][]) {
    const topic = name(what)
    await conn.admin().createTopics([{ topic, partitions: 1 }])
    const producer = conn.producer({ clientId: 'feeder', idempotent: true, transactionalId: name(`txn-${txn}`) })
    await producer.initTransactions()
    for (const [values, end] of transactions) {
      producer.beginTransaction()
      await producer.send(records(topic, 0, values))
      if (end === 'COMMIT') await producer.commitTransaction()
      else await producer.abortTransaction()
    }
    return { topic, producer }
  }

  /** A zombie with a transaction open (one record written), and a successor whose init fenced it. */
  async function zombieAndSuccessor(what: string, zombieValue: string) {
    const output = name(`${what}-out`)
    const transactionalId = name(`txn-${what}`)
    await conn.admin().createTopics([{ topic: output, partitions: 1 }])
    const first = conn.producer({ clientId: 'zombie', idempotent: true, transactionalId })
    const firstId = await first.initTransactions()
    first.beginTransaction()
    await first.send(records(output, 0, [zombieValue]))
    const second = conn.producer({ clientId: 'successor', idempotent: true, transactionalId })
    const secondId = await second.initTransactions()
    return { output, first, firstId, second, secondId }
  }

  it('creates topics, refuses a different partition count, and lists them', async () => {
    const topic = name('admin')
    await conn.admin().createTopics([{ topic, partitions: 3 }])
    await conn.admin().createTopics([{ topic, partitions: 3 }]) // already there: fine
    await expect(conn.admin().createTopics([{ topic, partitions: 2 }])).rejects.toSatisfy((e) =>
      isLogError(e, 'TOPIC_ALREADY_EXISTS'),
    )
    const topics = await conn.inspector().topics()
    expect(topics).toContainEqual({ topic, partitions: 3 })
    await conn.admin().deleteTopics([topic, name('never-created')])
  })

  it('an idempotent producer writes in order, with its producer id and sequences', async () => {
    const topic = name('idempotent')
    await conn.admin().createTopics([{ topic, partitions: 2 }])
    const producer = conn.producer({ clientId: 'idem', idempotent: true })
    const sent = await producer.send([...records(topic, 0, ['a', 'b', 'c']), ...records(topic, 1, ['x'])])
    expect(sent).toEqual([
      { topic, partition: 0, baseOffset: 0, records: 3 },
      { topic, partition: 1, baseOffset: 0, records: 1 },
    ])
    const more = await producer.send(records(topic, 0, ['d']))
    expect(more).toEqual([{ topic, partition: 0, baseOffset: 3, records: 1 }])
    const identity = producer.identity()
    expect(identity).not.toBeNull()
    expect(identity!.producerId).toBeGreaterThanOrEqual(0)
    expect(identity!.transactionalId).toBeNull()

    const seen = await readAll(conn, { topic, partition: 0 }, 'read_committed')
    expect(seen.map((r) => r.value)).toEqual(['a', 'b', 'c', 'd'])
    const raw = await conn.inspector().readRaw({ topic, partition: 0 }, 0, 10, 10)
    expect(raw.map((r) => r.sequence)).toEqual([0, 1, 2, 3])
    expect(
      raw.every(
        (r) => r.producerId === identity!.producerId && !r.transactional && r.control === null && r.txnOutcome === null,
      ),
    ).toBe(true)
    const offsets = await conn.reader().offsets({ topic, partition: 0 })
    expect(offsets).toEqual({ logStartOffset: 0, lastStableOffset: 4, highWatermark: 4 })
    await producer.close()
  })

  it('a committed transaction makes its outputs and its offsets visible together to read_committed', async () => {
    const output = name('commit-out')
    const input = name('commit-in')
    const groupId = name('commit-group')
    await conn.admin().createTopics([
      { topic: output, partitions: 1 },
      { topic: input, partitions: 1 },
    ])
    const producer = conn.producer({ clientId: 'txn-commit', idempotent: true, transactionalId: name('txn-commit') })
    const identity = await producer.initTransactions()
    expect(identity.producerId).toBeGreaterThanOrEqual(0)

    producer.beginTransaction()
    await producer.send(records(output, 0, ['o1', 'o2', 'o3']))
    await producer.sendOffsetsToTransaction([{ topic: input, partition: 0, offset: 7 }], { ...NO_GROUP, groupId })
    // Open: read_uncommitted sees the outputs, read_committed stops at the last stable offset, no offsets yet.
    const tp = { topic: output, partition: 0 }
    expect((await readAll(conn, tp, 'read_uncommitted')).map((r) => r.value)).toEqual(['o1', 'o2', 'o3'])
    expect(await readAll(conn, tp, 'read_committed')).toEqual([])
    const open = await conn.reader().offsets(tp)
    expect(open.lastStableOffset).toBe(0)
    expect(open.highWatermark).toBe(3)
    expect(await conn.inspector().committedOffsets(groupId)).toEqual([])

    await producer.commitTransaction()
    await eventually(async () => {
      expect((await readAll(conn, tp, 'read_committed')).map((r) => r.value)).toEqual(['o1', 'o2', 'o3'])
      expect(await conn.inspector().committedOffsets(groupId)).toEqual([{ topic: input, partition: 0, offset: 7 }])
    })
    const closed = await conn.reader().offsets(tp)
    expect(closed.lastStableOffset).toBe(4) // three records and the COMMIT marker
    const raw = await conn.inspector().readRaw(tp, 0, 100, 100)
    expect(raw.map((r) => r.control ?? r.value)).toEqual(['o1', 'o2', 'o3', 'COMMIT'])
    expect(
      raw.every((r) => r.transactional && r.txnOutcome === 'committed' && r.producerId === identity.producerId),
    ).toBe(true)
    await producer.close()
  })

  const abortedHiddenFromReadCommitted =
    'an aborted transaction is hidden from read_committed, seen by read_uncommitted, and commits no offsets'
  it(abortedHiddenFromReadCommitted, async () => {
    const output = name('abort-out')
    const groupId = name('abort-group')
    await conn.admin().createTopics([{ topic: output, partitions: 1 }])
    const producer = conn.producer({ clientId: 'txn-abort', idempotent: true, transactionalId: name('txn-abort') })
    await producer.initTransactions()
    producer.beginTransaction()
    await producer.send(records(output, 0, ['gone1', 'gone2']))
    await producer.sendOffsetsToTransaction([{ topic: output, partition: 0, offset: 2 }], { ...NO_GROUP, groupId })
    await producer.abortTransaction()
    producer.beginTransaction()
    await producer.send(records(output, 0, ['kept']))
    await producer.commitTransaction()

    const tp = { topic: output, partition: 0 }
    await eventually(async () =>
      expect((await readAll(conn, tp, 'read_committed')).map((r) => r.value)).toEqual(['kept']),
    )
    expect((await readAll(conn, tp, 'read_uncommitted')).map((r) => r.value)).toEqual(['gone1', 'gone2', 'kept'])
    expect(await conn.inspector().committedOffsets(groupId)).toEqual([])
    const raw = await conn.inspector().readRaw(tp, 0, 100, 100)
    expect(raw.map((r) => `${r.control ?? r.value}:${r.txnOutcome}`)).toEqual([
      'gone1:aborted',
      'gone2:aborted',
      'ABORT:aborted',
      'kept:committed',
      'COMMIT:committed',
    ])
    // readRaw bounded by `to` still resolves outcomes from markers past it.
    const head = await conn.inspector().readRaw(tp, 0, 1, 100)
    expect(head.map((r) => r.txnOutcome)).toEqual(['aborted'])
    await producer.close()
  })

  it('a second producer with the same transactional id fences the first and aborts its open transaction', async () => {
    const { output, first, firstId, second, secondId } = await zombieAndSuccessor('fence', 'zombie-1')
    expect(secondId.producerId).toBe(firstId.producerId)
    expect(secondId.epoch).toBeGreaterThan(firstId.epoch)

    // The broker refuses the old epoch; the fenced producer stays unusable.
    const sendError = await first.send(records(output, 0, ['zombie-2'])).catch((e: unknown) => e)
    expect(sendError).toBeInstanceOf(LogError)
    expect((sendError as LogError).code).toBe('PRODUCER_FENCED')
    await expect(first.commitTransaction()).rejects.toSatisfy((e) => isLogError(e, 'PRODUCER_FENCED'))

    second.beginTransaction()
    await second.send(records(output, 0, ['successor']))
    await second.commitTransaction()
    const tp = { topic: output, partition: 0 }
    await eventually(async () =>
      expect((await readAll(conn, tp, 'read_committed')).map((r) => r.value)).toEqual(['successor']),
    )
    const raw = await conn.inspector().readRaw(tp, 0, 100, 100)
    expect(raw.find((r) => r.value === 'zombie-1')?.txnOutcome).toBe('aborted')
    await first.close()
    await second.close()
  })

  it('a fenced producer that tries to commit gets PRODUCER_FENCED from the broker', async () => {
    const { output, first, second } = await zombieAndSuccessor('fence-commit', 'z')
    const error = await first.commitTransaction().catch((e: unknown) => e)
    expect(isLogError(error, 'PRODUCER_FENCED')).toBe(true)
    expect((error as LogError).cause).toBeDefined() // the kafkajs error is kept
    await expect(first.abortTransaction()).rejects.toSatisfy((e) => isLogError(e, 'PRODUCER_FENCED'))
    expect(await readAll(conn, { topic: output, partition: 0 }, 'read_committed')).toEqual([])
    await first.close()
    await second.close()
  })

  it('refuses transactional calls out of order', async () => {
    const producer = conn.producer({ clientId: 'order', idempotent: true, transactionalId: name('txn-order') })
    expect(() => producer.beginTransaction()).toThrow(/INVALID_TXN_STATE/)
    await producer.initTransactions()
    await expect(producer.commitTransaction()).rejects.toSatisfy((e) => isLogError(e, 'INVALID_TXN_STATE'))
    expect(() => conn.producer({ clientId: 'bad', idempotent: false, transactionalId: 'x' })).toThrow(
      /must be idempotent/,
    )
    await producer.close()
  })

  it('a consumer reads committed data only, seeks, commits offsets and reads them back', async () => {
    const groupId = name('consume-group')
    const { topic, producer } = await transactionsIn('consume', 'feeder', [
      [['c1', 'c2'], 'COMMIT'],
      [['a1'], 'ABORT'],
      [['c3'], 'COMMIT'],
    ])
    const consumer = conn.consumer({
      groupId,
      clientId: 'reader',
      isolationLevel: 'read_committed',
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
    })
    const listener = new RecordingListener()
    await consumer.subscribe([topic], listener)
    const [got] = await pollUntil([consumer], ([r]) => r!.length >= 3)
    expect(got!.map((r) => r.value)).toEqual(['c1', 'c2', 'c3'])
    expect(listener.events[0]).toEqual({ kind: 'assigned', partitions: [`${topic}-0`] })
    const tp = { topic, partition: 0 }
    expect(consumer.position(tp)).toBe(got![2]!.offset + 1)
    expect(consumer.groupMetadata().generationId).toBeGreaterThan(0)
    expect(consumer.groupMetadata().memberId).not.toBe('')

    expect(await consumer.committed([tp])).toEqual(new Map([[tpKey(topic, 0), null]]))
    await consumer.commitOffsets([{ topic, partition: 0, offset: 2 }])
    expect(await consumer.committed([tp])).toEqual(new Map([[tpKey(topic, 0), 2]]))

    consumer.seek(tp, 1)
    const [again] = await pollUntil([consumer], ([r]) => r!.length >= 2)
    expect(again!.map((r) => r.value)).toEqual(['c2', 'c3'])
    await consumer.close()
    await producer.close()
  })

  it('read_uncommitted consumers see aborted records too', async () => {
    const { topic, producer } = await transactionsIn('uncommitted', 'uncommitted', [
      [['aborted'], 'ABORT'],
      [['committed'], 'COMMIT'],
    ])
    const consumer = conn.consumer({
      groupId: name('uncommitted-group'),
      clientId: 'dirty',
      isolationLevel: 'read_uncommitted',
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
    })
    await consumer.subscribe([topic], new RecordingListener())
    const [got] = await pollUntil([consumer], ([r]) => r!.length >= 2)
    expect(got!.map((r) => r.value)).toEqual(['aborted', 'committed'])
    await consumer.close()
    await producer.close()
  })

  it('two consumers of a group split the partitions, and the survivor gets them all back', async () => {
    const topic = name('group')
    const groupId = name('group-group')
    await conn.admin().createTopics([{ topic, partitions: 4 }])
    const options = {
      groupId,
      isolationLevel: 'read_committed' as const,
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 200,
    }
    const a = conn.consumer({ ...options, clientId: 'member-a' })
    const b = conn.consumer({ ...options, clientId: 'member-b' })
    const la = new RecordingListener()
    const lb = new RecordingListener()
    await a.subscribe([topic], la)
    await pollUntil([a], () => a.assignment().length === 4)
    expect(la.events).toEqual([
      { kind: 'assigned', partitions: sorted([0, 1, 2, 3].map((partition) => ({ topic, partition }))) },
    ])

    // b joins while a keeps polling; the group splits the partitions.
    const joined = b.subscribe([topic], lb)
    await pollUntil([a], () => a.assignment().length < 4, 30_000)
    await joined
    await pollUntil([a, b], () => a.assignment().length === 2 && b.assignment().length === 2 && lb.events.length > 0)
    const all = sorted([...a.assignment(), ...b.assignment()])
    expect(all).toEqual(sorted([0, 1, 2, 3].map((partition) => ({ topic, partition }))))
    expect(
      la.events
        .filter((e) => e.kind === 'revoked')
        .flatMap((e) => e.partitions)
        .sort(),
    ).toEqual(sorted(b.assignment()))
    expect(lb.events).toEqual([{ kind: 'assigned', partitions: sorted(b.assignment()) }])

    // Each member reads the partitions it owns.
    const producer = conn.producer({ clientId: 'group-feeder', idempotent: true })
    await producer.send([0, 1, 2, 3].flatMap((p) => records(topic, p, [`p${p}`])))
    const got = await pollUntil([a, b], ([ra, rb]) => ra!.length + rb!.length >= 4)
    expect(got[0]!.every((r) => a.assignment().some((tp) => tp.partition === r.partition))).toBe(true)
    expect(got[1]!.every((r) => b.assignment().some((tp) => tp.partition === r.partition))).toBe(true)
    expect([...got[0]!, ...got[1]!].map((r) => r.value).sort()).toEqual(['p0', 'p1', 'p2', 'p3'])

    // b leaves cleanly: a is assigned its partitions.
    await b.close()
    await pollUntil([a], () => a.assignment().length === 4, 30_000)
    expect(la.events.at(-1)!.kind).toBe('assigned')
    expect(la.events.at(-1)!.partitions).toEqual(lb.events[0]!.partitions)
    await a.close()
    await producer.close()
  })

  const v2CannotCommitRevoked =
    "exactly_once_v2 on kafkajs: a transaction cannot commit a revoked partition's offsets under the generation " +
    'that revoked it'
  it(v2CannotCommitRevoked, async () => {
    // kafkajs rejoins on its own; the revocation reaches the worker in its next poll(). Until then
    // the member's group metadata stays at the old generation, so a commit of a partition that is
    // already someone else's is refused (found as 70 duplicates, both copies committed, in
    // e2e/kafka/cluster-kafka.test.ts when the new generation was used).
    const input = name('gen-in')
    const output = name('gen-out')
    const groupId = name('gen-group')
    await conn.admin().createTopics([
      { topic: input, partitions: 2 },
      { topic: output, partitions: 1 },
    ])
    const options = {
      groupId,
      isolationLevel: 'read_committed' as const,
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 200,
    }
    const a = conn.consumer({ ...options, clientId: 'gen-a' })
    const b = conn.consumer({ ...options, clientId: 'gen-b' })
    const la = new RecordingListener()
    const producer = conn.producer({ clientId: 'gen-txn', idempotent: true, transactionalId: name('txn-gen') })
    try {
      await a.subscribe([input], la)
      await pollUntil([a], () => a.assignment().length === 2)
      const before = a.groupMetadata()
      expect(before.generationId).toBeGreaterThan(0)
      await producer.initTransactions()
      producer.beginTransaction()
      await producer.send(records(output, 0, ['processed under the old generation']))

      // b joins; a's kafkajs rejoins without a poll() from us, and the group forms a new generation.
      await b.subscribe([input], new RecordingListener())
      await pollUntil([b], () => b.assignment().length === 1, 120_000)
      const taken = b.assignment()[0]!
      const refused = await producer
        .sendOffsetsToTransaction([{ topic: input, partition: taken.partition, offset: 5 }], a.groupMetadata())
        .then(
          () => null,
          (e: unknown) => e,
        )
      expect(
        isLogError(refused, 'ILLEGAL_GENERATION'),
        `sendOffsetsToTransaction under generation ${before.generationId}: ${String(refused)}`,
      ).toBe(true)
      expect(a.groupMetadata()).toEqual(before)
      await producer.abortTransaction().catch(() => {})
      expect(await conn.inspector().committedOffsets(groupId)).toEqual([])

      // The revocation is delivered in a's next poll(); from then on its commits carry the new generation.
      await pollUntil([a], () => la.events.some((e) => e.kind === 'revoked'))
      expect(a.groupMetadata().generationId).toBeGreaterThan(before.generationId)
      const kept = a.assignment()[0]!
      expect(kept.partition).not.toBe(taken.partition)
      const next = conn.producer({ clientId: 'gen-txn-2', idempotent: true, transactionalId: name('txn-gen-2') })
      try {
        await next.initTransactions()
        next.beginTransaction()
        await next.send(records(output, 0, ['processed under the new generation']))
        await next.sendOffsetsToTransaction([{ topic: input, partition: kept.partition, offset: 3 }], a.groupMetadata())
        await next.commitTransaction()
        await eventually(async () =>
          expect(await conn.inspector().committedOffsets(groupId)).toEqual([
            { topic: input, partition: kept.partition, offset: 3 },
          ]),
        )
      } finally {
        await next.close()
      }
    } finally {
      await producer.close()
      await b.close()
      await a.close()
    }
  })

  it('a member that stops polling is dropped from the group and reports its partitions lost', async () => {
    const topic = name('lost')
    await conn.admin().createTopics([{ topic, partitions: 2 }])
    const producer = conn.producer({ clientId: 'lost-feeder', idempotent: true })
    await producer.send([...records(topic, 0, ['a', 'b', 'c']), ...records(topic, 1, ['d', 'e', 'f'])])
    // A full buffer and no poll for longer than maxPollIntervalMs: the member stops heartbeating.
    const slow = new KafkaConnection(
      { brokers: [brokers!], clientId: `eoscope-test-slow-${run}` },
      { maxBufferedRecords: 1, maxPollIntervalMs: 200 },
    )
    try {
      const consumer = slow.consumer({
        groupId: name('lost-group'),
        clientId: 'sleeper',
        isolationLevel: 'read_committed',
        sessionTimeoutMs: 1_000,
        heartbeatIntervalMs: 100,
      })
      const listener = new RecordingListener()
      await consumer.subscribe([topic], listener)
      await pollUntil([consumer], ([r]) => r!.length >= 1)
      const memberBefore = consumer.groupMetadata().memberId
      // the fault: no poll past the 1 s session timeout (then waits on the group's events)
      await new Promise((r) => setTimeout(r, 2_500))
      await pollUntil(
        [consumer],
        () => listener.events.some((e) => e.kind === 'lost') && consumer.assignment().length === 2,
        120_000,
      )
      const kinds = listener.events.map((e) => e.kind)
      expect(kinds.slice(0, 1)).toEqual(['assigned'])
      expect(kinds.slice(kinds.indexOf('lost'))).toEqual(['lost', 'assigned'])
      expect(listener.events.find((e) => e.kind === 'lost')!.partitions).toEqual([`${topic}-0`, `${topic}-1`])
      expect(consumer.groupMetadata().memberId).not.toBe(memberBefore)
    } finally {
      await slow.close()
      await producer.close()
    }
  })
})
