// The group coordinator's own record of a classic group, as it stores it in __consumer_offsets:
// the GroupMetadataKey (record type 2, the group id) and GroupMetadataValue (versions 0-4, flexible
// from 4): protocol type, generation, protocol, leader, the time of the last state change and the
// members. DescribeGroups answers a classic group without its generation; this record has it, so
// an observer that reads the group's __consumer_offsets partition sees every generation the
// coordinator wrote, with its members, without joining or touching the group.

import { internalPartitionFor } from '../log/internal-partition.ts'

/** GroupMetadataKey's record type; offset commits are 0 and 1. */
export const GROUP_METADATA_KEY_TYPE = 2

export interface StoredGroupMember {
  memberId: string
  groupInstanceId: string | null
  clientId: string
  clientHost: string
  rebalanceTimeoutMs: number | null
  sessionTimeoutMs: number
}

export interface StoredGroupMetadata {
  version: number
  protocolType: string
  generation: number
  protocol: string | null
  leader: string | null
  /** When the group last changed state (v2+), ms since the epoch; null before v2 or when unset (-1). */
  currentStateTimestamp: number | null
  members: StoredGroupMember[]
}

export class GroupMetadataDecodeError extends Error {
  override readonly name = 'GroupMetadataDecodeError'
}

/** Reads Kafka's classic (v0-3) or flexible (v4) encodings of one buffer, bounds-checked. */
class Reader {
  private at = 0
  constructor(
    private readonly buf: Buffer,
    private readonly flexible: boolean,
  ) {}

  private need(n: number): void {
    if (n < 0 || this.at + n > this.buf.length)
      throw new GroupMetadataDecodeError(`record truncated: ${n} byte(s) wanted at ${this.at} of ${this.buf.length}`)
  }
  int16(): number {
    this.need(2)
    const v = this.buf.readInt16BE(this.at)
    this.at += 2
    return v
  }
  int32(): number {
    this.need(4)
    const v = this.buf.readInt32BE(this.at)
    this.at += 4
    return v
  }
  int64(): number {
    this.need(8)
    const v = Number(this.buf.readBigInt64BE(this.at))
    this.at += 8
    return v
  }
  uvarint(): number {
    let value = 0
    for (let shift = 0; shift <= 28; shift += 7) {
      this.need(1)
      const b = this.buf[this.at++]!
      value |= (b & 0x7f) << shift
      if ((b & 0x80) === 0) return value >>> 0
    }
    throw new GroupMetadataDecodeError('unsigned varint longer than 5 bytes')
  }
  /** A length: int16/int32 in the classic encodings, uvarint(n+1) in the flexible one; -1 is null. */
  private length(classic: 'int16' | 'int32'): number {
    if (this.flexible) return this.uvarint() - 1
    return classic === 'int16' ? this.int16() : this.int32()
  }
  nullableString(): string | null {
    const n = this.length('int16')
    if (n < 0) return null
    this.need(n)
    const s = this.buf.toString('utf8', this.at, this.at + n)
    this.at += n
    return s
  }
  string(what: string): string {
    const s = this.nullableString()
    if (s === null) throw new GroupMetadataDecodeError(`${what} is null`)
    return s
  }
  skipBytes(): void {
    const n = this.length('int32')
    if (n < 0) return
    this.need(n)
    this.at += n
  }
  arrayLength(): number {
    const n = this.length('int32')
    if (n < 0) throw new GroupMetadataDecodeError('array is null')
    return n
  }
  /** A flexible struct's tagged fields: skipped (none is known to this reader). */
  taggedFields(): void {
    if (!this.flexible) return
    const count = this.uvarint()
    for (let i = 0; i < count; i++) {
      this.uvarint()
      const size = this.uvarint()
      this.need(size)
      this.at += size
    }
  }
}

/** The group id when the key is a GroupMetadataKey; null for any other record (offset commits). */
export function decodeGroupMetadataKey(key: Buffer | null): string | null {
  if (!key || key.length < 2 || key.readInt16BE(0) !== GROUP_METADATA_KEY_TYPE) return null
  return new Reader(key.subarray(2), false).string('group')
}

/** A GroupMetadataValue of version 0-4; null for a tombstone (the group was deleted). */
export function decodeGroupMetadataValue(value: Buffer | null): StoredGroupMetadata | null {
  if (value === null) return null
  if (value.length < 2) throw new GroupMetadataDecodeError(`value of ${value.length} byte(s)`)
  const version = value.readInt16BE(0)
  if (version < 0 || version > 4)
    throw new GroupMetadataDecodeError(`GroupMetadataValue version ${version} is not one of 0-4`)
  const r = new Reader(value.subarray(2), version >= 4)
  const protocolType = r.string('protocolType')
  const generation = r.int32()
  const protocol = r.nullableString()
  const leader = r.nullableString()
  const timestamp = version >= 2 ? r.int64() : -1
  const count = r.arrayLength()
  const members: StoredGroupMember[] = []
  for (let i = 0; i < count; i++) {
    const memberId = r.string('memberId')
    const groupInstanceId = version >= 3 ? r.nullableString() : null
    const clientId = r.string('clientId')
    const clientHost = r.string('clientHost')
    const rebalanceTimeoutMs = version >= 1 ? r.int32() : null
    const sessionTimeoutMs = r.int32()
    r.skipBytes() // subscription
    r.skipBytes() // assignment
    r.taggedFields()
    members.push({ memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs, sessionTimeoutMs })
  }
  r.taggedFields()
  return {
    version,
    protocolType,
    generation,
    protocol,
    leader,
    currentStateTimestamp: timestamp >= 0 ? timestamp : null,
    members,
  }
}

/** The __consumer_offsets partition that holds a group (Utils.abs(groupId.hashCode()) % partitions). */
export function offsetsPartitionOf(groupId: string, partitions: number): number {
  return internalPartitionFor(groupId, partitions)
}
