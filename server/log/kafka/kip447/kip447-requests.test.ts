// OffsetFetch v7's wire format (KIP-447), checked without a broker: the request against the bytes
// Kafka's message spec gives, responses decoded from bytes built field by field (TxnOffsetCommit
// v3 is the kafkajs patch's: kafkajs-api.test.ts). kip447.test.ts sends them to a real broker.

import { describe, expect, it } from 'vitest'
import { Encoder } from '../raw-protocol.ts'
import { offsetFetchV7 } from './kip447-requests.ts'

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
