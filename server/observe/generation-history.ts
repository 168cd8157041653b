// A classic group's generations as its coordinator wrote them to __consumer_offsets: read from the
// group's partition (offsetsPartitionOf) and folded in offset order. The log is compacted, so a
// fresh reader sees the generations the cleaner has not yet removed (at least the latest); from
// then on every new generation is seen as it is written. Read-only: a Fetch, no group membership.

import { decodeGroupMetadataKey, decodeGroupMetadataValue, type StoredGroupMember } from './group-metadata-record.ts'

export interface OffsetsTopicRecord {
  offset: number
  /** The record's timestamp: when the coordinator wrote it. */
  timestamp: number
  key: Buffer | null
  value: Buffer | null
}

export interface ObservedGeneration {
  generation: number
  protocolType: string
  protocol: string | null
  leader: string | null
  members: StoredGroupMember[]
  /** When the coordinator wrote this generation's record (its timestamp), ms since the epoch. */
  writtenAtMs: number
  /** The record's offset in the group's __consumer_offsets partition. */
  offset: number
}

/** A group deleted (a tombstone for its key): its generations start again from 0. */
export interface GroupDeleted {
  deletedAtMs: number
  offset: number
}

const KEEP = 100

export class GenerationHistory {
  private readonly entries: (ObservedGeneration | GroupDeleted)[] = []
  private position = 0
  /** Records of other groups and offset commits passed over: what a reader of a shared partition skips. */
  skipped = 0

  constructor(readonly groupId: string) {}

  /** Folds records of the group's partition, in offset order; those below the reader's position are ignored. */
  fold(records: readonly OffsetsTopicRecord[]): void {
    for (const r of records) {
      if (r.offset < this.position) continue
      this.position = r.offset + 1
      if (decodeGroupMetadataKey(r.key) !== this.groupId) {
        this.skipped++
        continue
      }
      const value = decodeGroupMetadataValue(r.value)
      if (value === null) this.push({ deletedAtMs: r.timestamp, offset: r.offset })
      else {
        const last = this.latestEntry()
        // The coordinator writes the group again without a new generation (a member's static id, an
        // empty group expiring offsets): the same generation with the same members is one entry.
        const same =
          last &&
          'generation' in last &&
          last.generation === value.generation &&
          sameMembers(last.members, value.members)
        if (!same)
          this.push({
            generation: value.generation,
            protocolType: value.protocolType,
            protocol: value.protocol,
            leader: value.leader,
            members: value.members,
            writtenAtMs: r.timestamp,
            offset: r.offset,
          })
      }
    }
  }

  /** Moves the reader past offsets it read that hold no data record (control markers). */
  passTo(offset: number): void {
    this.position = Math.max(this.position, offset)
  }

  /** Where the next read starts. */
  nextOffset(): number {
    return this.position
  }

  /** The entries folded, oldest first (the last 100). */
  history(): readonly (ObservedGeneration | GroupDeleted)[] {
    return this.entries
  }

  /** The latest generation, or null when none was seen (or the group was deleted since). */
  current(): ObservedGeneration | null {
    const last = this.latestEntry()
    return last && 'generation' in last ? last : null
  }

  private latestEntry(): ObservedGeneration | GroupDeleted | undefined {
    return this.entries[this.entries.length - 1]
  }

  private push(e: ObservedGeneration | GroupDeleted): void {
    this.entries.push(e)
    if (this.entries.length > KEEP) this.entries.shift()
  }
}

function sameMembers(a: readonly StoredGroupMember[], b: readonly StoredGroupMember[]): boolean {
  if (a.length !== b.length) return false
  const ids = new Set(a.map((m) => m.memberId))
  return b.every((m) => ids.has(m.memberId))
}
