// GroupMetadataKey/Value as the coordinator encodes them (versions 0-4), for the decoder's tests.

import type { StoredGroupMetadata } from '../group-metadata-record.ts'

class Writer {
  private readonly parts: Buffer[] = []
  constructor(private readonly flexible: boolean) {}
  int16(v: number) {
    const b = Buffer.alloc(2)
    b.writeInt16BE(v)
    this.parts.push(b)
    return this
  }
  int32(v: number) {
    const b = Buffer.alloc(4)
    b.writeInt32BE(v)
    this.parts.push(b)
    return this
  }
  int64(v: number) {
    const b = Buffer.alloc(8)
    b.writeBigInt64BE(BigInt(v))
    this.parts.push(b)
    return this
  }
  uvarint(v: number) {
    const bytes: number[] = []
    do {
      let b = v & 0x7f
      v >>>= 7
      if (v !== 0) b |= 0x80
      bytes.push(b)
    } while (v !== 0)
    this.parts.push(Buffer.from(bytes))
    return this
  }
  private length(n: number, classic: 'int16' | 'int32') {
    if (this.flexible) return this.uvarint(n + 1)
    return classic === 'int16' ? this.int16(n) : this.int32(n)
  }
  string(s: string | null) {
    if (s === null) return this.length(-1, 'int16')
    const b = Buffer.from(s, 'utf8')
    this.length(b.length, 'int16')
    this.parts.push(b)
    return this
  }
  bytes(b: Buffer) {
    this.length(b.length, 'int32')
    this.parts.push(b)
    return this
  }
  array(n: number) {
    return this.length(n, 'int32')
  }
  /** An empty tagged-field section, or one unknown tag of `size` bytes (which a reader must skip). */
  tags(unknownSize = -1) {
    if (!this.flexible) return this
    if (unknownSize < 0) return this.uvarint(0)
    this.uvarint(1).uvarint(7).uvarint(unknownSize)
    this.parts.push(Buffer.alloc(unknownSize, 0xab))
    return this
  }
  done() {
    return Buffer.concat(this.parts)
  }
}

export function encodeGroupMetadataKey(group: string, type = 2): Buffer {
  return new Writer(false).int16(type).string(group).done()
}

/** `unknownTags`: add an unknown tagged field of that many bytes to each struct (flexible versions). */
export function encodeGroupMetadataValue(m: StoredGroupMetadata, unknownTags = -1): Buffer {
  const v = m.version
  const w = new Writer(v >= 4).int16(v).string(m.protocolType).int32(m.generation).string(m.protocol).string(m.leader)
  if (v >= 2) w.int64(m.currentStateTimestamp ?? -1)
  w.array(m.members.length)
  for (const member of m.members) {
    w.string(member.memberId)
    if (v >= 3) w.string(member.groupInstanceId)
    w.string(member.clientId).string(member.clientHost)
    if (v >= 1) w.int32(member.rebalanceTimeoutMs ?? 0)
    w.int32(member.sessionTimeoutMs)
      .bytes(Buffer.from([0, 1, 2]))
      .bytes(Buffer.from([3, 4]))
      .tags(unknownTags)
  }
  return w.tags(unknownTags).done()
}
