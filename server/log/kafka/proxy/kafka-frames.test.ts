// The proxy's protocol reading, checked against kafkajs's own encoders and decoders: a rewritten
// Metadata or FindCoordinator response must decode in kafkajs with only the addresses changed.

import { createRequire } from 'node:module'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  FrameSplitter,
  parseProduceRequest,
  parseProduceResponse,
  requestHeader,
  rewriteFindCoordinatorResponse,
  rewriteMetadataResponse,
} from './kafka-frames.ts'

const require = createRequire(import.meta.url)
type Enc = {
  writeInt16(n: number): Enc
  writeInt32(n: number): Enc
  writeInt64(n: number | string): Enc
  writeString(s: string | null): Enc
  writeBoolean(b: boolean): Enc
  writeArray(a: unknown[], type?: string): Enc
  writeEncoder(e: Enc): Enc
  size(): number
  buffer: Buffer
}
const Encoder = require('kafkajs/src/protocol/encoder') as new () => Enc
const encodeRequest = require('kafkajs/src/protocol/request') as (r: {
  correlationId: number
  clientId: string
  request: unknown
}) => Promise<Enc>
const Long = require('kafkajs/src/utils/long') as { fromInt(n: number): unknown; fromNumber(n: number): unknown }

function frame(correlationId: number, body: Enc): Buffer {
  const payload = new Encoder().writeInt32(correlationId).writeEncoder(body)
  return new Encoder().writeInt32(payload.size()).writeEncoder(payload).buffer
}

const BROKERS = [
  { nodeId: 1, host: 'kafka-1.cluster.example', port: 9092, rack: null },
  { nodeId: 2, host: 'k2', port: 19093, rack: 'rack-b' },
]
const mapped = async (a: { host: string; port: number }) => ({ host: '127.0.0.1', port: a.port + 30_000 })

function metadataBody(version: number): Enc {
  const e = new Encoder()
  if (version >= 3) e.writeInt32(7) // throttle
  e.writeArray(
    BROKERS.map((b) => {
      const be = new Encoder().writeInt32(b.nodeId).writeString(b.host).writeInt32(b.port)
      if (version >= 1) be.writeString(b.rack)
      return be
    }),
  )
  if (version >= 2) e.writeString('cluster-xyz')
  if (version >= 1) e.writeInt32(2) // controller
  const partition = new Encoder()
    .writeInt16(0)
    .writeInt32(0)
    .writeInt32(1)
    .writeArray([1], 'int32')
    .writeArray([1], 'int32')
  if (version >= 5) partition.writeArray([], 'int32')
  const topic = new Encoder().writeInt16(0).writeString('eoscope-output')
  if (version >= 1) topic.writeBoolean(false)
  topic.writeArray([partition])
  e.writeArray([topic])
  return e
}

describe('Metadata responses', () => {
  for (let version = 0; version <= 6; version++) {
    it(`v${version}: kafkajs decodes the rewritten response with only the broker addresses changed`, async () => {
      const { decode } = require(`kafkajs/src/protocol/requests/metadata/v${version}/response`) as {
        decode(
          b: Buffer,
        ): Promise<{ brokers: { nodeId: number; host: string; port: number }[]; topicMetadata: unknown[] }>
      }
      const original = frame(42, metadataBody(version))
      const rewritten = await rewriteMetadataResponse(original, version, mapped)
      expect(rewritten.readInt32BE(0)).toBe(rewritten.length - 4)
      expect(rewritten.readInt32BE(4)).toBe(42)
      const before = await decode(original.subarray(8))
      const after = await decode(rewritten.subarray(8))
      expect(after.brokers.map((b) => [b.nodeId, b.host, b.port])).toEqual([
        [1, '127.0.0.1', 39_092],
        [2, '127.0.0.1', 49_093],
      ])
      expect({ ...after, brokers: null }).toEqual({ ...before, brokers: null })
    })
  }
})

describe('FindCoordinator responses', () => {
  for (let version = 0; version <= 2; version++) {
    it(`v${version}: the coordinator's address is the proxy's`, async () => {
      const { decode } = require(`kafkajs/src/protocol/requests/findCoordinator/v${version}/response`) as {
        decode(b: Buffer): Promise<{ coordinator: { nodeId: number; host: string; port: number } }>
      }
      const body = new Encoder()
      if (version >= 1) body.writeInt32(0)
      body.writeInt16(0)
      if (version >= 1) body.writeString(null)
      body.writeInt32(2).writeString('k2').writeInt32(19_093)
      const rewritten = await rewriteFindCoordinatorResponse(frame(9, body), version, mapped)
      expect((await decode(rewritten.subarray(8))).coordinator).toEqual({ nodeId: 2, host: '127.0.0.1', port: 49_093 })
    })
  }

  it('an error response passes unchanged', async () => {
    const body = new Encoder()
      .writeInt32(0)
      .writeInt16(15)
      .writeString('coordinator not available')
      .writeInt32(-1)
      .writeString('')
      .writeInt32(-1)
    const original = frame(3, body)
    expect(await rewriteFindCoordinatorResponse(original, 1, mapped)).toBe(original)
  })
})

describe('Produce requests and responses', () => {
  const readsProduceFields =
    "reads acks, the transactional id and each batch's producer id, epoch, base sequence and count (kafkajs's " +
    'own encoding)'
  it(readsProduceFields, async () => {
    const produce = require('kafkajs/src/protocol/requests/produce/v3/request') as (o: unknown) => unknown
    const request = produce({
      acks: -1,
      timeout: 30_000,
      transactionalId: 'eoscope-0_2',
      producerId: Long.fromNumber(4001),
      producerEpoch: 3,
      topicData: [
        {
          topic: 'eoscope-output',
          partitions: [
            {
              partition: 2,
              firstSequence: 17,
              messages: [
                { key: 'a', value: '1' },
                { key: 'b', value: '2' },
                { key: 'c', value: '3' },
              ],
            },
          ],
        },
      ],
    })
    const bytes = (await encodeRequest({ correlationId: 77, clientId: 'worker-1', request })).buffer
    const h = requestHeader(bytes)!
    expect(h).toMatchObject({ apiKey: 0, apiVersion: 3, correlationId: 77 })
    expect(parseProduceRequest(bytes, h)).toEqual({
      transactionalId: 'eoscope-0_2',
      acks: -1,
      batches: [{ topic: 'eoscope-output', partition: 2, producerId: 4001, epoch: 3, baseSequence: 17, count: 3 }],
    })
  })

  it('reads the base offset and error code per partition (v3 and v5 layouts)', () => {
    for (const version of [3, 5]) {
      const p = new Encoder().writeInt32(2).writeInt16(0).writeInt64(1234).writeInt64(-1)
      if (version >= 5) p.writeInt64(0)
      const body = new Encoder().writeArray([new Encoder().writeString('eoscope-output').writeArray([p])]).writeInt32(0)
      expect(parseProduceResponse(frame(77, body), version)).toEqual([
        { topic: 'eoscope-output', partition: 2, errorCode: 0, baseOffset: 1234 },
      ])
    }
  })
})

describe('FrameSplitter', () => {
  it('gives back exactly the frames sent, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 10 }),
        (bodies, cuts) => {
          const frames = bodies.map((b) => {
            const f = Buffer.alloc(4 + b.length)
            f.writeInt32BE(b.length)
            Buffer.from(b).copy(f, 4)
            return f
          })
          const stream = Buffer.concat(frames)
          const splitter = new FrameSplitter()
          const out: Buffer[] = []
          for (let at = 0, i = 0; at < stream.length; i++) {
            const n = cuts[i % cuts.length]!
            out.push(...splitter.push(stream.subarray(at, at + n)).map((f) => Buffer.from(f)))
            at += n
          }
          expect(out).toEqual(frames)
        },
      ),
    )
  })

  it('refuses a negative frame size', () => {
    const bad = Buffer.alloc(4)
    bad.writeInt32BE(-5)
    expect(() => new FrameSplitter().push(bad)).toThrow(/negative size/)
  })
})
