// The API the kafkajs patch states (patches/kafkajs+2.2.4.patch, typed in its types/index.d.ts),
// checked without a broker: TxnOffsetCommit v3 on the wire as Kafka's message spec gives it, the
// group's generation in GROUP_JOIN, a producer's identity, a public cluster and sendRequest, and
// the protocol's encoder, decoder and errors. kip447.test.ts sends the offsets to a real broker.

import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import kafkajs, { Kafka, logLevel, type ProtocolEncoder, type ProtocolRequest } from 'kafkajs'

const require = createRequire(import.meta.url)
const { Encoder } = kafkajs.protocol

type TxnOffsetCommitArgs = Record<string, unknown>
const txnOffsetCommit = require('kafkajs/src/protocol/requests/txnOffsetCommit/index.js') as {
  versions: string[]
  protocol(o: { version: number }): (args: TxnOffsetCommitArgs) => ProtocolRequest<{
    topics: { topic: string; partitions: { partition: number; errorCode: number }[] }[]
  }>
}
const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as new (
  o: Record<string, unknown>,
) => { joinAndSync(): Promise<void> }
const { MemberAssignment } = require('kafkajs').AssignerProtocol as {
  MemberAssignment: { encode(o: { version: number; assignment: object; userData: Buffer }): Buffer }
}

const tagged = (e: ProtocolEncoder) => e.writeUVarInt(0)

describe('TxnOffsetCommit v3 (KIP-447), as the patched kafkajs sends it', () => {
  const v3 = txnOffsetCommit.protocol({ version: 3 })
  const req = v3({
    transactionalId: 'app-0_1',
    groupId: 'app',
    producerId: 7,
    producerEpoch: 2,
    topics: [{ topic: 'in', partitions: [{ partition: 1, offset: '42' }] }],
    generationId: 5,
    memberId: 'm-1',
    groupInstanceId: null,
  })

  it('is a version kafkajs offers, beside v0 and v1', () => {
    expect(txnOffsetCommit.versions).toEqual(['0', '1', '3'])
  })

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

  it('sends generation -1 and no member when none is given: the coordinator then checks no generation', async () => {
    const body = (
      await v3({ transactionalId: 't', groupId: 'g', producerId: 1, producerEpoch: 0, topics: [] }).request.encode()
    ).buffer
    const expected = new Encoder()
      .writeUVarInt(0)
      .writeUVarIntString('t')
      .writeUVarIntString('g')
      .writeInt64('1')
      .writeInt16(0)
      .writeInt32(-1)
      .writeUVarIntString('')
      .writeUVarIntString(null)
      .writeUVarInt(1)
      .writeUVarInt(0).buffer
    expect(body.equals(expected)).toBe(true)
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
    expect(ok).toMatchObject({ topics: [{ topic: 'in', partitions: [{ partition: 1, errorCode: 0 }] }] })
    await expect(req.response.parse(ok)).resolves.toBe(ok)
    // 22: ILLEGAL_GENERATION
    await expect(req.response.parse(await req.response.decode(response(22)))).rejects.toThrow(/generation/i)
  })
})

describe("the patched kafkajs's API", () => {
  const kafka = new Kafka({ brokers: ['127.0.0.1:1'], clientId: 'api-test', logLevel: logLevel.NOTHING })

  it("names the generation a join made in GROUP_JOIN's payload", async () => {
    const events: Record<string, unknown>[] = []
    const coordinator = {
      joinGroup: async () => ({
        generationId: 17,
        leaderId: 'leader',
        memberId: 'me',
        members: [],
        groupProtocol: 'RoundRobinAssigner',
      }),
      syncGroup: async () => ({
        memberAssignment: MemberAssignment.encode({ version: 0, assignment: {}, userData: Buffer.alloc(0) }),
      }),
    }
    const logger = { namespace: () => logger, debug() {}, info() {}, warn() {}, error() {} }
    const group = new ConsumerGroup({
      retry: { retries: 0 },
      cluster: {
        findGroupCoordinator: async () => coordinator,
        findTopicPartitionMetadata: () => [],
        committedOffsets: () => ({}),
      },
      groupId: 'g',
      topics: [],
      topicConfigurations: {},
      logger,
      instrumentationEmitter: { emit: (_type: string, payload: Record<string, unknown>) => events.push(payload) },
      assigners: [{ name: 'RoundRobinAssigner', protocol: () => ({ name: 'RoundRobinAssigner', metadata: null }) }],
      sessionTimeout: 10_000,
      rebalanceTimeout: 10_000,
    })
    await group.joinAndSync()
    expect(events).toEqual([expect.objectContaining({ groupId: 'g', generationId: 17, memberId: 'me' })])
  })

  it("gives a producer's identity as null before its first InitProducerId", () => {
    expect(kafka.producer({ idempotent: true, transactionalId: 't' }).identity()).toBeNull()
    expect(kafka.producer().identity()).toBeNull()
  })

  it('makes a cluster without a client around it, and sends requests it has no method for', () => {
    const cluster = kafka.createCluster({ metadataMaxAge: 60_000 })
    for (const m of ['connect', 'findBroker', 'findGroupCoordinator', 'getNodeIds', 'findTopicPartitionMetadata'])
      expect(typeof (cluster as unknown as Record<string, unknown>)[m], m).toBe('function')
    const Broker = require('kafkajs/src/broker/index.js') as { prototype: Record<string, unknown> }
    expect(typeof Broker.prototype.sendRequest).toBe('function')
  })

  it("exports the protocol's encoder, decoder and errors", () => {
    const { Decoder, createErrorFromCode, failure } = kafkajs.protocol
    const bytes = new Encoder().writeInt32(7).writeUVarIntString('x').buffer
    const d = new Decoder(bytes)
    expect([d.readInt32(), d.readUVarIntString()]).toEqual([7, 'x'])
    expect(failure(22)).toBe(true)
    expect(failure(0)).toBe(false)
    expect(createErrorFromCode(22).type).toBe('ILLEGAL_GENERATION')
  })
})
