// The kafkajs patch's one-pass record batch (encodeUncompressedPartition in the Produce request):
// byte for byte what kafkajs's own Record and RecordBatch encoders give for the same partition, on
// keys, values and headers of every kind it takes, timestamp deltas up to its bound, and any
// producer id, epoch, sequence and transactional flag; anything it does not take goes back to them.

import { createRequire } from 'node:module'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Encoder, encodeBatch, encodeRecord, type KafkajsEncoder, Long } from './kafkajs-internals.ts'

const require = createRequire(import.meta.url)
type Value = string | Buffer | null
type Headers = Record<string, string | Buffer | (string | Buffer)[]>
interface Message {
  key: Value
  value: Value
  headers?: Headers
  timestamp?: string | number
}

const { encodeUncompressedPartition } = require('kafkajs/src/protocol/requests/produce/v3/request.js') as {
  encodeUncompressedPartition: (o: Record<string, unknown>) => KafkajsEncoder | null
}

interface Batch {
  partition: number
  messages: Message[]
  dateNow: number
  producerId: number
  producerEpoch: number
  firstSequence: number
  transactional: boolean
}

/** First and max timestamps as the patched request finds them (messages without one count as now). */
function timestamps(b: Batch) {
  const given = b.messages
    .map((m) => m.timestamp)
    .filter((t) => t != null)
    .map(Number)
  return given.length ? { first: Math.min(...given), max: Math.max(...given) } : { first: b.dateNow, max: b.dateNow }
}

/** The partition entry from kafkajs's own encoders: a Record per message, RecordBatch over them. */
async function original(b: Batch): Promise<Buffer> {
  const { first, max } = timestamps(b)
  const records = b.messages.map((m, i) =>
    encodeRecord({
      key: m.key,
      value: m.value,
      headers: m.headers,
      offsetDelta: i,
      timestampDelta: (m.timestamp ? Number(m.timestamp) : b.dateNow) - first,
    }),
  )
  const batch = await encodeBatch({
    compression: 0,
    records,
    firstTimestamp: first,
    maxTimestamp: max,
    producerId: Long.fromValue(b.producerId),
    producerEpoch: b.producerEpoch,
    firstSequence: b.firstSequence,
    transactional: b.transactional,
    lastOffsetDelta: records.length - 1,
  })
  return new Encoder().writeInt32(b.partition).writeInt32(batch.size()).writeEncoder(batch).buffer
}

function onePass(b: Batch): Buffer | null {
  const { first, max } = timestamps(b)
  const e = encodeUncompressedPartition({
    partition: b.partition,
    messages: b.messages,
    dateNow: b.dateNow,
    firstTimestamp: first,
    firstTimestampNumber: first,
    maxTimestamp: max,
    producerId: Long.fromValue(b.producerId),
    producerEpoch: b.producerEpoch,
    firstSequence: b.firstSequence,
    transactional: b.transactional,
  })
  return e === null ? null : e.buffer
}

const text = fc.string({ maxLength: 150, unit: 'grapheme' })
const value: fc.Arbitrary<Value> = fc.oneof(
  text,
  text.map((s) => Buffer.from(s)),
  fc.constant(null),
  fc.constant(''),
)
const headerValue = fc.oneof(
  fc.string({ maxLength: 10, unit: 'grapheme' }),
  fc.string({ maxLength: 10 }).map((s) => Buffer.from(s)),
)
const headers: fc.Arbitrary<Headers> = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }),
  fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })),
  { maxKeys: 3 },
)
const NOW = 1_764_000_000_000
/** Deltas from now on both sides, up to just inside the one-pass bound (+-2^30). */
const delta = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.integer({ min: -(2 ** 30) + 1, max: 2 ** 30 - 1 }).map((d) => Math.trunc(d / 2)),
)
const message: fc.Arbitrary<Message> = fc.record(
  {
    key: value,
    value,
    headers,
    timestamp: fc.option(
      fc.oneof(
        delta.map((d) => NOW + d),
        delta.map((d) => String(NOW + d)),
      ),
      { nil: undefined },
    ),
  },
  { requiredKeys: ['key', 'value'] },
)
const batch: fc.Arbitrary<Batch> = fc.record({
  partition: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  messages: fc.array(message, { minLength: 1, maxLength: 25 }),
  dateNow: fc.constant(NOW),
  producerId: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 ** 40 })),
  producerEpoch: fc.integer({ min: 0, max: 32_767 }),
  firstSequence: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  transactional: fc.boolean(),
})

describe('the one-pass record batch of the kafkajs patch', () => {
  it("writes byte for byte what kafkajs's Record and RecordBatch write, CRC included", async () => {
    await fc.assert(
      fc.asyncProperty(batch, async (b) => {
        const fast = onePass(b)
        expect(fast).not.toBeNull()
        expect(fast!.toString('hex')).toBe((await original(b)).toString('hex'))
      }),
      { numRuns: 400 },
    )
  })

  const handsBackToKafkajs =
    "hands back to kafkajs's encoders what it does not take: a number key, a null header value, a delta of 2^30"
  it(handsBackToKafkajs, () => {
    const base: Batch = {
      partition: 1,
      messages: [],
      dateNow: NOW,
      producerId: 5,
      producerEpoch: 0,
      firstSequence: 0,
      transactional: false,
    }
    expect(onePass({ ...base, messages: [{ key: 7 as unknown as string, value: 'v' }] })).toBeNull()
    expect(
      onePass({ ...base, messages: [{ key: 'k', value: 'v', headers: { h: null as unknown as string } }] }),
    ).toBeNull()
    expect(
      onePass({
        ...base,
        messages: [
          { key: 'k', value: 'v', timestamp: NOW },
          { key: 'k', value: 'v', timestamp: NOW + 2 ** 30 },
        ],
      }),
    ).toBeNull()
    expect(
      onePass({
        ...base,
        messages: [
          { key: 'k', value: 'v', timestamp: NOW },
          { key: 'k', value: 'v', timestamp: NOW + 2 ** 30 - 1 },
        ],
      }),
    ).not.toBeNull()
  })
})
