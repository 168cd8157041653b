// The KIP-447 requests' wire format, checked without a broker: requests against the bytes Kafka's
// message specs give (TxnOffsetCommitRequest v3, OffsetFetchRequest v7), responses decoded from
// bytes built field by field. kip447.test.ts sends them to a real broker.

import { describe, expect, it } from 'vitest'
import { Encoder } from '../raw-protocol.ts'
import { offsetFetchV7, txnOffsetCommitV3 } from './kip447-requests.ts'

const tagged = (e: ReturnType<typeof Encoder.prototype.writeUVarInt>) => e.writeUVarInt(0)

describe('TxnOffsetCommit v3', () => {
  const req = txnOffsetCommitV3(
    {
      transactionalId: 'app-0_1',
      groupId: 'app',
      producerId: 7,
      producerEpoch: 2,
      topics: [{ topic: 'in', partitions: [{ partition: 1, offset: '42' }] }],
    },
    { generationId: 5, memberId: 'm-1', groupInstanceId: null },
  )

  it('carries the member: generation, member id and group instance id after the producer', async () => {
    const body = (await req.request.encode()).buffer
    const expected = new Encoder()
      .writeUVarInt(0)
      .writeUVarIntString('app-0_1')
      .writeUVarIntString('app')
      .writeInt64('7')
      .writeInt16(2)
      .writeInt32(5)
      .writeUVarIntString('m-1')
      .writeUVarIntString(null)
      .writeUVarInt(2)
      .writeUVarIntString('in')
      .writeUVarInt(2)
      .writeInt32(1)
      .writeInt64('42')
      .writeInt32(-1)
      .writeUVarIntString(null)
      .writeUVarInt(0)
      .writeUVarInt(0)
      .writeUVarInt(0).buffer
    expect(body.equals(expected)).toBe(true)
    expect(req.request).toMatchObject({ apiKey: 28, apiVersion: 3 })
  })

  it('decodes per-partition errors, and a fenced generation fails the commit', async () => {
    const response = (code: number) =>
      tagged(
        tagged(
          tagged(
            new Encoder()
              .writeUVarInt(0)
              .writeInt32(3)
              .writeUVarInt(2)
              .writeUVarIntString('in')
              .writeUVarInt(2)
              .writeInt32(1)
              .writeInt16(code),
          ),
        ),
      ).buffer
    const ok = await req.response.decode(response(0))
    expect(ok).toEqual({ throttleTime: 3, topics: [{ topic: 'in', partitions: [{ partition: 1, errorCode: 0 }] }] })
    await expect(req.response.parse(ok)).resolves.toBe(ok)
    // 22: ILLEGAL_GENERATION
    await expect(req.response.parse(await req.response.decode(response(22)))).rejects.toThrow(/generation/i)
  })
})

describe('OffsetFetch v7', () => {
  const req = offsetFetchV7('app', [{ topic: 'in', partitions: [0, 3] }], 'require-stable')

  it('asks for the partitions with require_stable set', async () => {
    const body = (await req.request.encode()).buffer
    const expected = new Encoder()
      .writeUVarInt(0)
      .writeUVarIntString('app')
      .writeUVarInt(2)
      .writeUVarIntString('in')
      .writeUVarInt(3)
      .writeInt32(0)
      .writeInt32(3)
      .writeUVarInt(0)
      .writeBoolean(true)
      .writeUVarInt(0).buffer
    expect(body.equals(expected)).toBe(true)
    const lastStable = (await offsetFetchV7('app', [{ topic: 'in', partitions: [0] }], 'last-stable').request.encode())
      .buffer
    expect(lastStable[lastStable.length - 2]).toBe(0)
  })

  it('decodes offsets, skipping leader epoch and metadata; an unstable commit fails the fetch', async () => {
    const response = (code: number) => {
      const e = new Encoder().writeUVarInt(0).writeInt32(0).writeUVarInt(2).writeUVarIntString('in').writeUVarInt(2)
      e.writeInt32(3).writeInt64('99').writeInt32(-1).writeUVarIntString('meta').writeInt16(code).writeUVarInt(0)
      return e.writeUVarInt(0).writeInt16(0).writeUVarInt(0).buffer
    }
    const ok = await req.response.decode(response(0))
    expect(ok).toEqual({
      throttleTime: 0,
      errorCode: 0,
      topics: [{ topic: 'in', partitions: [{ partition: 3, offset: '99', errorCode: 0 }] }],
    })
    // 88: UNSTABLE_OFFSET_COMMIT
    await expect(req.response.parse(await req.response.decode(response(88)))).rejects.toThrow(/unstable/i)
  })
})
