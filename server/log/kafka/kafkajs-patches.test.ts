// The kafkajs patch (patches/kafkajs+2.2.4.patch) changes how the produce and fetch paths
// compute, never what goes on the wire nor what a consumer is handed. These tests hold the
// patched code to the original's results: the grouping against the original reduce, varlongs
// against kafkajs's own Long path (which the patch keeps for large values), whole produce requests
// decoded back with kafkajs's own decoders, and decoded record batches against offsets and
// timestamps computed with BigInt, at bases and deltas on both sides of the numeric fast path.

import { createRequire } from 'node:module'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Encoder, encodeBatch, encodeRecord, type KafkajsEncoder, Long } from './kafkajs-internals.ts'
import { KafkajsNotPatchedError, kafkajsPatchesMissing, requireKafkajsPatched } from './kafkajs-patches.ts'

const require = createRequire(import.meta.url)

interface KafkajsDecoder {
  offset: number
  readVarLong(): { toString(): string }
  readVarLongNumber(): number | null
  readVarInt(): number
  readString(): string
  readInt16(): number
  readInt32(): number
  readArray<T>(f: (d: KafkajsDecoder) => T): T[]
}
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (b: Buffer) => KafkajsDecoder
type Grouping = (o: {
  topic: string
  partitionMetadata: unknown[]
  messages: { partition: number }[]
  partitioner: (o: { message: { partition: number } }) => number
}) => Record<number, { partition: number }[]>
const groupMessagesPerPartition = require('kafkajs/src/producer/groupMessagesPerPartition.js') as Grouping
type ProduceRequest = (o: Record<string, unknown>) => { encode(): Promise<KafkajsEncoder> }
const produceV3 = require('kafkajs/src/protocol/requests/produce/v3/request.js') as ProduceRequest
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as (d: KafkajsDecoder) => Promise<{
  firstTimestamp: string
  maxTimestamp: string
  records: {
    key: Buffer | null
    value: Buffer | null
    headers: Record<string, Buffer>
    timestamp: string
    offset: string
  }[]
}>

type BatchOfMessages = new (
  topic: string,
  fetchedOffset: string,
  data: {
    partition: number
    highWatermark: string
    messages: { offset: string; isControlRecord?: boolean }[]
    abortedTransactions: unknown[]
  },
) => { messages: { offset: string }[] }
const Batch = require('kafkajs/src/consumer/batch.js') as BatchOfMessages
const crc32C = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as (b: Buffer) => number

/** CRC-32C from its definition, bit by bit (Castagnoli, reflected polynomial 0x82F63B78): no table. */
function crc32cBitwise(bytes: Uint8Array): number {
  let crc = ~0
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0x82f63b78 & -(crc & 1))
  }
  return ~crc >>> 0
}

const INT64_MAX = 2n ** 63n - 1n

/** kafkajs 2.2.4's own grouping, before the patch. */
const originalGrouping: Grouping = ({ partitionMetadata, messages, partitioner }) => {
  if (partitionMetadata.length === 0) return {}
  return messages.reduce<Record<number, { partition: number }[]>>((result, message) => {
    const partition = partitioner({ message })
    const current = result[partition] ?? []
    return Object.assign(result, { [partition]: [...current, message] })
  }, {})
}

describe('the kafkajs patch', () => {
  it('is applied to this install (npm install runs patch-package)', () => {
    expect(kafkajsPatchesMissing()).toEqual([])
  })

  it('is required: a client without it is refused with what to run', () => {
    const missing = ['kafkajs/src/consumer/consumerGroup.js']
    expect(() => requireKafkajsPatched(() => missing)).toThrow(KafkajsNotPatchedError)
    expect(() => requireKafkajsPatched(() => missing)).toThrow(
      /^kafkajs is not patched \(kafkajs\/src\/consumer\/consumerGroup\.js\).*Run `npm install`/,
    )
    expect(() => requireKafkajsPatched(() => [])).not.toThrow()
  })

  it("groups a call's messages by partition as the original did, in the caller's order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ partition: fc.integer({ min: 0, max: 7 }), id: fc.nat() }), { maxLength: 300 }),
        fc.boolean(),
        (messages, noMetadata) => {
          const args = {
            topic: 't',
            partitionMetadata: noMetadata ? [] : [{}],
            messages,
            partitioner: ({ message }: { message: { partition: number } }) => message.partition,
          }
          expect(groupMessagesPerPartition(args)).toEqual(originalGrouping(args))
        },
      ),
    )
  })

  it("writes a number's varlong byte for byte as kafkajs's Long path does, at any safe integer", () => {
    const edges = [
      0,
      1,
      -1,
      63,
      64,
      -64,
      -65,
      0x3fffffff,
      -0x40000000,
      0x40000000,
      -0x40000001,
      2 ** 31,
      -(2 ** 31) - 1,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
    ]
    const check = (v: number) => {
      const fast = new Encoder(1).writeVarLong(v)
      const viaLong = new Encoder(1).writeVarLong(Long.fromValue(v))
      expect(fast.buffer.equals(viaLong.buffer)).toBe(true)
      expect(Encoder.sizeOfVarLong(v)).toBe(viaLong.size())
      expect(new Decoder(fast.buffer).readVarLong().toString()).toBe(String(v))
    }
    edges.forEach(check)
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
          fc.maxSafeInteger().map((x) => x),
          fc.maxSafeNat().map((x) => -x),
        ),
        (v) => check(v),
      ),
    )
  })

  it('writes varints in place that decode to the same int32', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 50 }),
        (vs) => {
          // From the smallest buffer (2 bytes), so that the writes have to grow it.
          const e = new Encoder(1)
          for (const v of vs) e.writeVarInt(v)
          const d = new Decoder(e.buffer)
          expect(vs.map(() => d.readVarInt())).toEqual(vs)
        },
      ),
    )
  })

  it('computes CRC-32C as its definition does, at any length and alignment (the slicing-by-8 patch)', () => {
    expect(crc32C(Buffer.from('123456789'))).toBe(0xe3069283)
    expect(crc32C(Buffer.alloc(0))).toBe(0)
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), (bytes, skip) => {
        // A view that starts anywhere in its backing store, as a batch body inside an encoder does.
        const buf = Buffer.concat([Buffer.alloc(skip), Buffer.from(bytes)]).subarray(skip)
        expect(crc32C(buf)).toBe(crc32cBitwise(buf))
      }),
      { numRuns: 500 },
    )
  })

  const encodesProduceRequests =
    'encodes produce requests that decode to the messages given: keys, values, headers, each timestamp, the ' +
    'first and the max'
  it(encodesProduceRequests, async () => {
    const message = fc.record(
      {
        // Strings (measured once by the patch) and Buffers (written as they are), any UTF-8.
        key: fc.option(
          fc.oneof(
            fc.string({ maxLength: 20, unit: 'grapheme' }),
            fc.string({ maxLength: 20 }).map((k) => Buffer.from(k)),
          ),
          { nil: null },
        ),
        value: fc.option(
          fc.oneof(
            fc.string({ maxLength: 200, unit: 'grapheme' }),
            fc.string({ maxLength: 200, unit: 'grapheme' }).map((v) => Buffer.from(v)),
          ),
          { nil: null },
        ),
        headers: fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }).map((k) => `h-${k}`),
          fc.string({ maxLength: 8 }),
          { maxKeys: 3 },
        ),
        // Timestamps as kafkajs takes them (strings), of different digit counts: the original sorted
        // them as strings, so '999' came after '1000'; and as eoscope hands them over (numbers).
        timestamp: fc.option(
          fc.oneof(
            fc.integer({ min: 1, max: 2_000_000_000_000 }).map(String),
            fc.integer({ min: 1, max: 2_000_000_000_000 }),
          ),
          { nil: undefined },
        ),
      },
      { requiredKeys: ['key', 'value'] },
    )
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 40 }), async (messages) => {
        const before = Date.now()
        const request = produceV3({
          acks: -1,
          timeout: 1000,
          topicData: [{ topic: 'out', partitions: [{ partition: 3, firstSequence: 7, messages }] }],
        })
        const encoded = await request.encode()
        const after = Date.now()
        const d = new Decoder(encoded.buffer)
        d.readString() // transactional id
        d.readInt16() // acks
        d.readInt32() // timeout
        const topics = d.readArray((t) => ({
          topic: t.readString(),
          partitions: t.readArray((p) => ({ partition: p.readInt32(), size: p.readInt32(), batch: decodeBatch(p) })),
        }))
        const batch = await topics[0]!.partitions[0]!.batch
        expect(topics[0]!.partitions[0]!.partition).toBe(3)
        const given = messages
          .map((m) => m.timestamp)
          .filter((t) => t !== undefined)
          .map(Number)
        if (given.length > 0) {
          expect(Number(batch.firstTimestamp)).toBe(Math.min(...given))
          expect(Number(batch.maxTimestamp)).toBe(Math.max(...given))
        }
        expect(batch.records).toHaveLength(messages.length)
        batch.records.forEach((r, i) => {
          const m = messages[i]!
          expect(r.key === null ? null : r.key.toString()).toBe(m.key === null ? null : m.key.toString())
          expect(r.value === null ? null : r.value.toString()).toBe(m.value === null ? null : m.value.toString())
          expect(Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v.toString()]))).toEqual(
            m.headers ?? {},
          )
          expect(r.offset).toBe(String(i))
          if (m.timestamp !== undefined) expect(r.timestamp).toBe(String(m.timestamp))
          else {
            // A message without a timestamp gets the encoding time, as before the patch.
            expect(Number(r.timestamp)).toBeGreaterThanOrEqual(before)
            expect(Number(r.timestamp)).toBeLessThanOrEqual(after)
          }
        })
      }),
      { numRuns: 200 },
    )
  })

  const readsVarlongExactly =
    'reads a varlong as a number exactly when it fits in 7 bytes, and leaves anything longer to the Long path ' +
    'untouched'
  it(readsVarlongExactly, () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: INT64_MAX })
    const nearFastPath = fc.bigInt({ min: -(2n ** 49n), max: 2n ** 49n })
    fc.assert(
      fc.property(fc.oneof(int64, nearFastPath, fc.integer().map(BigInt)), (v) => {
        const bytes = new Encoder(1).writeVarLong(Long.fromString(String(v))).buffer
        const fast = new Decoder(bytes)
        const n = fast.readVarLongNumber()
        const viaLong = new Decoder(bytes)
        const expected = viaLong.readVarLong().toString()
        if (v >= -(2n ** 48n) && v < 2n ** 48n) {
          expect(String(n)).toBe(expected)
          expect(fast.offset).toBe(viaLong.offset)
        } else {
          expect(n).toBeNull()
          expect(fast.offset).toBe(0)
        }
      }),
    )
    // A varlong cut short gives no number (and no made-up value).
    const cut = new Decoder(Buffer.from([0x80, 0x80]))
    expect(cut.readVarLongNumber()).toBeNull()
    expect(cut.offset).toBe(0)
  })

  const decodesRecordBatches =
    'decodes record batches to the offsets, timestamps, keys, values and headers BigInt arithmetic gives, on ' +
    'either side of the fast path'
  it(decodesRecordBatches, async () => {
    // Bases up to int64's range (the fast path takes them up to 2^52); deltas up to ±2^50 (it takes them under 2^48).
    const base = fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 40n }),
      fc.bigInt({ min: 2n ** 52n - 100n, max: 2n ** 52n + 100n }),
      fc.bigInt({ min: 2n ** 53n, max: 2n ** 62n }),
    )
    const timestampBase = fc.oneof(
      fc.constant(-1n),
      fc.bigInt({ min: 0n, max: 2n ** 41n }),
      fc.bigInt({ min: 2n ** 52n - 10n, max: 2n ** 60n }),
    )
    const delta = fc.oneof(
      fc.integer({ min: -1000, max: 100_000 }).map(BigInt),
      fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }),
    )
    const header = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.array(fc.string({ maxLength: 6 }), { minLength: 2, maxLength: 3 }),
    )
    const record = fc.record({
      key: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
      value: fc.option(fc.string({ maxLength: 80 }), { nil: null }),
      timestampDelta: delta,
      headers: fc.dictionary(fc.constantFrom('a', 'b', 'trace'), header, { maxKeys: 2 }),
    })
    await fc.assert(
      fc.asyncProperty(
        base,
        timestampBase,
        fc.array(record, { minLength: 1, maxLength: 30 }),
        async (firstOffset, firstTimestamp, records) => {
          const encoded = await encodeBatch({
            firstOffset: Long.fromString(String(firstOffset)),
            firstTimestamp: String(firstTimestamp),
            maxTimestamp: String(firstTimestamp),
            lastOffsetDelta: records.length - 1,
            records: records.map((r, i) =>
              encodeRecord({
                offsetDelta: i,
                timestampDelta: Long.fromString(String(r.timestampDelta)),
                key: r.key,
                value: r.value,
                headers: r.headers,
              }),
            ),
          })
          const batch = await decodeBatch(new Decoder(encoded.buffer))
          expect(batch.records).toHaveLength(records.length)
          batch.records.forEach((got, i) => {
            const r = records[i]!
            expect(got.offset).toBe(String(firstOffset + BigInt(i)))
            expect(got.timestamp).toBe(String(firstTimestamp + r.timestampDelta))
            expect(got.key === null ? null : got.key.toString()).toBe(r.key)
            expect(got.value === null ? null : got.value.toString()).toBe(r.value)
            const headers = Object.fromEntries(
              Object.entries(got.headers).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)]),
            )
            expect(headers).toEqual(r.headers)
          })
        },
      ),
      { numRuns: 300 },
    )
  })

  const pendingCheckAtLeast1Ms =
    "schedules the request queue's pending check with a delay of at least 1 ms (Node 24 warns on a negative " +
    "one), and still at the throttle's end"
  it(pendingCheckAtLeast1Ms, () => {
    const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as new (
      o: Record<string, unknown>,
    ) => { throttledUntil: number; pending: unknown[]; scheduleCheckPendingRequests(): void; destroy(): void }
    const delays: number[] = []
    const realSetTimeout = globalThis.setTimeout
    globalThis.setTimeout = ((_callback: () => void, ms: number) => {
      delays.push(ms)
      return realSetTimeout(() => {}, 0)
    }) as typeof setTimeout
    try {
      const unthrottled = new RequestQueue({
        maxInFlightRequests: 1,
        requestTimeout: 1000,
        enforceRequestTimeout: true,
        clientId: 'c',
        broker: 'b',
        logger: { debug() {}, info() {}, warn() {}, error() {} },
      })
      unthrottled.scheduleCheckPendingRequests()
      unthrottled.destroy()
      const throttled = new RequestQueue({
        maxInFlightRequests: 1,
        requestTimeout: 1000,
        enforceRequestTimeout: true,
        clientId: 'c',
        broker: 'b',
        logger: { debug() {}, info() {}, warn() {}, error() {} },
      })
      throttled.throttledUntil = Date.now() + 5_000
      throttled.scheduleCheckPendingRequests()
      throttled.destroy()
    } finally {
      globalThis.setTimeout = realSetTimeout
    }
    expect(delays).toHaveLength(2)
    expect(delays[0]).toBe(1)
    expect(delays[1]).toBeGreaterThan(4_000)
    expect(delays[1]).toBeLessThanOrEqual(5_000)
  })

  it('keeps the messages at or past the fetched offset, as Long comparison does, at any int64 offset', () => {
    const offset = fc.oneof(
      fc.bigInt({ min: 0n, max: 2000n }),
      fc.bigInt({ min: 2n ** 53n - 5n, max: 2n ** 53n + 5n }),
      fc.bigInt({ min: 0n, max: INT64_MAX }),
    )
    fc.assert(
      fc.property(offset, fc.array(offset, { maxLength: 20 }), (fetched, offsets) => {
        const messages = offsets.map((o) => ({ offset: String(o) }))
        const batch = new Batch('t', String(fetched), {
          partition: 0,
          highWatermark: '0',
          messages,
          abortedTransactions: [],
        })
        expect(batch.messages.map((m) => m.offset)).toEqual(offsets.filter((o) => o >= fetched).map(String))
      }),
    )
  })
})
