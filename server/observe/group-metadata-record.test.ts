import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeGroupMetadataKey, encodeGroupMetadataValue } from './__fixtures__/group-metadata-encoder.ts'
import {
  decodeGroupMetadataKey,
  decodeGroupMetadataValue,
  GroupMetadataDecodeError,
  offsetsPartitionOf,
  type StoredGroupMetadata,
} from './group-metadata-record.ts'

function metadata(version: number, generation = 3): StoredGroupMetadata {
  return {
    version,
    protocolType: 'consumer',
    generation,
    protocol: 'stream',
    leader: 'app-1-StreamThread-1-consumer-abc',
    currentStateTimestamp: version >= 2 ? 1_796_000_000_123 : null,
    members: [
      {
        memberId: 'app-1-StreamThread-1-consumer-abc',
        groupInstanceId: version >= 3 ? 'static-1' : null,
        clientId: 'app-1-StreamThread-1-consumer',
        clientHost: '/127.0.0.1',
        rebalanceTimeoutMs: version >= 1 ? 300_000 : null,
        sessionTimeoutMs: 45_000,
      },
      {
        memberId: 'app-1-StreamThread-2-consumer-def',
        groupInstanceId: null,
        clientId: 'app-1-StreamThread-2-consumer',
        clientHost: '/127.0.0.1',
        rebalanceTimeoutMs: version >= 1 ? 300_000 : null,
        sessionTimeoutMs: 45_000,
      },
    ],
  }
}

describe("the group coordinator's GroupMetadata records", () => {
  it.each([0, 1, 2, 3, 4])('decodes GroupMetadataValue version %i as encoded', (version) => {
    const m = metadata(version)
    expect(decodeGroupMetadataValue(encodeGroupMetadataValue(m))).toEqual(m)
  })

  it('skips tagged fields it does not know in the flexible version', () => {
    const m = metadata(4)
    expect(decodeGroupMetadataValue(encodeGroupMetadataValue(m, 5))).toEqual(m)
  })

  it('a tombstone (null value) is a deleted group; a truncated or unknown version is an error, not a guess', () => {
    expect(decodeGroupMetadataValue(null)).toBeNull()
    const full = encodeGroupMetadataValue(metadata(3))
    expect(() => decodeGroupMetadataValue(full.subarray(0, full.length - 3))).toThrow(GroupMetadataDecodeError)
    const v9 = Buffer.from(full)
    v9.writeInt16BE(9, 0)
    expect(() => decodeGroupMetadataValue(v9)).toThrow(/version 9/)
  })

  it('the key names the group only for record type 2 (offset commits are 0 and 1)', () => {
    expect(decodeGroupMetadataKey(encodeGroupMetadataKey('word-count'))).toBe('word-count')
    expect(decodeGroupMetadataKey(encodeGroupMetadataKey('word-count', 1))).toBeNull()
    expect(decodeGroupMetadataKey(null)).toBeNull()
  })

  it('finds the group on the partition the coordinator hashes it to', () => {
    expect(offsetsPartitionOf('eoscope-lab-mx5cpckg', 8)).toBe(5)
  })

  it('property: any members and generation of any version round-trip', () => {
    const member = (version: number) =>
      fc.record({
        memberId: fc.string({ minLength: 1, maxLength: 40 }),
        groupInstanceId: version >= 3 ? fc.option(fc.string({ maxLength: 20 })) : fc.constant(null),
        clientId: fc.string({ maxLength: 40 }),
        clientHost: fc.string({ maxLength: 20 }),
        rebalanceTimeoutMs: version >= 1 ? fc.integer({ min: 0, max: 2 ** 31 - 1 }) : fc.constant(null),
        sessionTimeoutMs: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      })
    const value = fc.integer({ min: 0, max: 4 }).chain((version) =>
      fc.record({
        version: fc.constant(version),
        protocolType: fc.string({ maxLength: 10 }),
        generation: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        protocol: fc.option(fc.string({ maxLength: 10 })),
        leader: fc.option(fc.string({ maxLength: 40 })),
        currentStateTimestamp: version >= 2 ? fc.option(fc.integer({ min: 0, max: 2 ** 50 })) : fc.constant(null),
        members: fc.array(member(version), { maxLength: 5 }),
      }),
    )
    fc.assert(
      fc.property(value, (m) => {
        expect(decodeGroupMetadataValue(encodeGroupMetadataValue(m))).toEqual(m)
      }),
      { seed: 17, numRuns: 300 },
    )
  })
})
