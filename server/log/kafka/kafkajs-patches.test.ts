// The kafkajs patch (patches/kafkajs+2.2.4.patch) changes how the produce path computes, never
// what goes on the wire. These tests hold the patched code to the original's results: the
// grouping against the original reduce, varlongs against kafkajs's own Long path (which the patch
// keeps for large values), and whole produce requests decoded back with kafkajs's own decoders.

import { createRequire } from 'node:module'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { kafkajsPatchesMissing } from './kafkajs-patches.ts'

const require = createRequire(import.meta.url)

interface KafkajsEncoder {
  writeVarLong(v: unknown): KafkajsEncoder
  writeVarInt(v: number): KafkajsEncoder
  size(): number
  buffer: Buffer
}
interface KafkajsDecoder {
  readVarLong(): { toString(): string }
  readVarInt(): number
  readString(): string
  readInt16(): number
  readInt32(): number
  readArray<T>(f: (d: KafkajsDecoder) => T): T[]
}
const Encoder = require('kafkajs/src/protocol/encoder.js') as { new (size?: number): KafkajsEncoder; sizeOfVarLong(v: unknown): number }
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (b: Buffer) => KafkajsDecoder
const Long = require('kafkajs/src/utils/long.js') as { fromValue(v: number | string): unknown }
type Grouping = (o: { topic: string; partitionMetadata: unknown[]; messages: { partition: number }[]; partitioner: (o: { message: { partition: number } }) => number }) => Record<number, { partition: number }[]>
const groupMessagesPerPartition = require('kafkajs/src/producer/groupMessagesPerPartition.js') as Grouping
type ProduceRequest = (o: Record<string, unknown>) => { encode(): Promise<KafkajsEncoder> }
const produceV3 = require('kafkajs/src/protocol/requests/produce/v3/request.js') as ProduceRequest
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as (d: KafkajsDecoder) => Promise<{
  firstTimestamp: string
  maxTimestamp: string
  records: { key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer>; timestamp: string; offset: string }[]
}>

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

  it('groups a call\'s messages by partition as the original did, in the caller\'s order', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ partition: fc.integer({ min: 0, max: 7 }), id: fc.nat() }), { maxLength: 300 }), fc.boolean(), (messages, noMetadata) => {
        const args = { topic: 't', partitionMetadata: noMetadata ? [] : [{}], messages, partitioner: ({ message }: { message: { partition: number } }) => message.partition }
        expect(groupMessagesPerPartition(args)).toEqual(originalGrouping(args))
      }),
    )
  })

  it('writes a number\'s varlong byte for byte as kafkajs\'s Long path does, at any safe integer', () => {
    const edges = [0, 1, -1, 63, 64, -64, -65, 0x3fffffff, -0x40000000, 0x40000000, -0x40000001, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]
    const check = (v: number) => {
      const fast = new Encoder(1).writeVarLong(v)
      const viaLong = new Encoder(1).writeVarLong(Long.fromValue(v))
      expect(fast.buffer.equals(viaLong.buffer)).toBe(true)
      expect(Encoder.sizeOfVarLong(v)).toBe(viaLong.size())
      expect(new Decoder(fast.buffer).readVarLong().toString()).toBe(String(v))
    }
    edges.forEach(check)
    fc.assert(fc.property(fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), fc.maxSafeInteger().map((x) => x), fc.maxSafeNat().map((x) => -x)), (v) => check(v)))
  })

  it('writes varints in place that decode to the same int32', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 50 }), (vs) => {
        // From the smallest buffer (2 bytes), so that the writes have to grow it.
        const e = new Encoder(1)
        for (const v of vs) e.writeVarInt(v)
        const d = new Decoder(e.buffer)
        expect(vs.map(() => d.readVarInt())).toEqual(vs)
      }),
    )
  })

  it('encodes produce requests that decode to the messages given: keys, values, headers, each timestamp, the first and the max', async () => {
    const message = fc.record(
      {
        key: fc.option(fc.string({ maxLength: 20 }), { nil: null }),
        value: fc.option(fc.string({ maxLength: 200 }), { nil: null }),
        headers: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).map((k) => `h-${k}`), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
        // Timestamps as kafkajs takes them (strings), of different digit counts: the original sorted
        // them as strings, so '999' came after '1000'.
        timestamp: fc.option(fc.integer({ min: 1, max: 2_000_000_000_000 }).map(String), { nil: undefined }),
      },
      { requiredKeys: ['key', 'value'] },
    )
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 40 }), async (messages) => {
        const before = Date.now()
        const request = produceV3({ acks: -1, timeout: 1000, topicData: [{ topic: 'out', partitions: [{ partition: 3, firstSequence: 7, messages }] }] })
        const encoded = await request.encode()
        const after = Date.now()
        const d = new Decoder(encoded.buffer)
        d.readString() // transactional id
        d.readInt16() // acks
        d.readInt32() // timeout
        const topics = d.readArray((t) => ({ topic: t.readString(), partitions: t.readArray((p) => ({ partition: p.readInt32(), size: p.readInt32(), batch: decodeBatch(p) })) }))
        const batch = await topics[0]!.partitions[0]!.batch
        expect(topics[0]!.partitions[0]!.partition).toBe(3)
        const given = messages.map((m) => m.timestamp).filter((t): t is string => t !== undefined).map(Number)
        if (given.length > 0) {
          expect(Number(batch.firstTimestamp)).toBe(Math.min(...given))
          expect(Number(batch.maxTimestamp)).toBe(Math.max(...given))
        }
        expect(batch.records).toHaveLength(messages.length)
        batch.records.forEach((r, i) => {
          const m = messages[i]!
          expect(r.key === null ? null : r.key.toString()).toBe(m.key)
          expect(r.value === null ? null : r.value.toString()).toBe(m.value)
          expect(Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v.toString()]))).toEqual(m.headers ?? {})
          expect(r.offset).toBe(String(i))
          if (m.timestamp !== undefined) expect(r.timestamp).toBe(m.timestamp)
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
})
