import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { errorCode } from '../fixtures/error-code.ts'
import type { OffsetToCommit, TopicPartition } from '../types.ts'
import { computeAssignment, type GroupEvent, GroupCoordinator, type OffsetsLogWriter } from './group-coordinator.ts'

const parts = (n: number, topic = 't') => Array.from({ length: n }, (_, p) => `${topic}-${p}`)
const asObject = (m: Map<string, string[]>) => Object.fromEntries(m)
/** Current owners as `partition:member` pairs. */
const owners = (spec: string) => new Map(spec.split(' ').map((pair) => pair.split(':') as [string, string]))

describe('computeAssignment', () => {
  it('spreads partitions evenly over members in member-id order when nothing is owned', () => {
    expect(asObject(computeAssignment(parts(5), ['b', 'a'], new Map()))).toEqual({
      a: ['t-0', 't-1', 't-2'],
      b: ['t-3', 't-4'],
    })
  })

  it('orders partitions by topic, then numerically', () => {
    expect(asObject(computeAssignment(['t-10', 't-2', 's-1', 't-1'], ['m'], new Map()))).toEqual({
      m: ['s-1', 't-1', 't-2', 't-10'],
    })
  })

  it('keeps partitions with their owners up to the quota and moves only the surplus (sticky)', () => {
    const current = owners('t-0:b t-1:b t-2:b t-3:a')
    // Five partitions over three members: quotas 2, 2, 1; b holds most and keeps two of its three.
    expect(asObject(computeAssignment(parts(5), ['a', 'b', 'c'], current))).toEqual({
      a: ['t-3', 't-2'],
      b: ['t-0', 't-1'],
      c: ['t-4'],
    })
  })

  it('hands a removed member’s partitions to the survivors and leaves theirs in place', () => {
    const current = owners('t-0:a t-1:b t-2:c t-3:a')
    expect(asObject(computeAssignment(parts(4), ['a', 'c'], current))).toEqual({ a: ['t-0', 't-3'], c: ['t-2', 't-1'] })
  })

  it('gives nothing when there are no members, and an empty list to members beyond the partitions', () => {
    expect(asObject(computeAssignment(parts(3), [], new Map()))).toEqual({})
    expect(asObject(computeAssignment(parts(1), ['a', 'b'], new Map()))).toEqual({ a: ['t-0'], b: [] })
  })

  it('is balanced, complete, sticky within quota and independent of input order (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { minLength: 1, maxLength: 5 }),
        fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'gone'), { maxLength: 12 }),
        fc.integer(),
        (n, members, owners, seed) => {
          const partitions = parts(n)
          const current = new Map<string, string>()
          partitions.forEach((p, i) => {
            if (owners[i] !== undefined) current.set(p, owners[i]!)
          })
          const result = computeAssignment(partitions, members, current)
          const sizes = [...result.values()].map((ps) => ps.length)
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1)
          expect([...result.values()].flat().sort()).toEqual([...partitions].sort())
          // A live owner keeps its partitions up to its fair share.
          const share = Math.floor(n / members.length)
          for (const m of members) {
            const held = partitions.filter((p) => current.get(p) === m).length
            const kept = result.get(m)!.filter((p) => current.get(p) === m).length
            expect(kept).toBeGreaterThanOrEqual(Math.min(held, share))
          }
          // The same inputs in another order give the same assignment.
          const shuffled = <T>(xs: T[]) =>
            xs
              .map((x, i) => ({ x, k: (i * 7919 + seed) % 101 }))
              .sort((a, b) => a.k - b.k)
              .map((e) => e.x)
          const again = computeAssignment(
            shuffled(partitions),
            shuffled(members),
            new Map(shuffled([...current.entries()])),
          )
          expect(asObject(again)).toEqual(asObject(result))
        },
      ),
      { seed: 42, numRuns: 500 },
    )
  })
})

const SESSION_MS = 1_000
const T0: TopicPartition = { topic: 'in', partition: 0 }
const T1: TopicPartition = { topic: 'in', partition: 1 }

function setup() {
  const clock = { now: 0 }
  const appended: { offsets: readonly OffsetToCommit[]; txn: unknown }[] = []
  const log: OffsetsLogWriter = {
    appendOffsets: (_g, offsets, txn) => void appended.push({ offsets, txn }),
    offsetsPartition: () => ({ topic: '__consumer_offsets', partition: 0 }),
  }
  const group = new GroupCoordinator('app', log, () => clock.now)
  const events: GroupEvent[] = []
  group.onEvent((e) => events.push(e))
  group.setPartitions([T0, T1])
  return { clock, group, events, appended }
}

/** Two members, each owning one partition after their first heartbeats. */
function twoMembers() {
  const s = setup()
  const a = s.group.join('a', SESSION_MS)
  const b = s.group.join('b', SESSION_MS)
  const ha = s.group.heartbeat(a.memberId)
  const hb = s.group.heartbeat(b.memberId)
  return {
    ...s,
    a: { ...a, generationId: ha.generationId },
    b: { ...b, generationId: hb.generationId },
    owned: { a: ha.assign, b: hb.assign },
  }
}

describe('GroupCoordinator sessions', () => {
  it('assigns each of two members one partition', () => {
    const s = twoMembers()
    expect([...s.owned.a, ...s.owned.b]).toHaveLength(2)
    expect(s.group.ownedBy(s.a.memberId)).toEqual(s.owned.a)
  })

  it('removes a member whose session expired and frees its partitions for the survivor', () => {
    const s = twoMembers()
    s.clock.now = SESSION_MS / 2
    s.group.heartbeat(s.b.memberId)
    s.clock.now = SESSION_MS // not yet: the session lasts session.timeout.ms
    s.group.expireMembers()
    expect(s.group.hasMember(s.a.memberId)).toBe(true)
    s.clock.now = SESSION_MS + 1
    s.group.expireMembers()
    expect(s.group.hasMember(s.a.memberId)).toBe(false)
    expect(s.events.filter((e) => e.type === 'member-expired')).toMatchObject([
      { memberId: s.a.memberId, lastHeartbeatMs: 0 },
    ])
    expect(s.group.ownerOf(s.owned.a[0]!)).toBeUndefined()
    const hb = s.group.heartbeat(s.b.memberId)
    expect(hb.assign).toEqual(s.owned.a)
    expect(s.group.ownedBy(s.b.memberId)).toHaveLength(2)
    expect(hb.generationId).toBeGreaterThan(s.b.generationId)
  })

  it('asks an owner to release a partition before the new member gets it', () => {
    const s = setup()
    const a = s.group.join('a', SESSION_MS)
    expect(s.group.heartbeat(a.memberId).assign).toHaveLength(2)
    const b = s.group.join('b', SESSION_MS)
    expect(s.group.heartbeat(b.memberId).assign).toEqual([])
    const ha = s.group.heartbeat(a.memberId)
    expect(ha.revoke).toHaveLength(1)
    s.group.release(a.memberId, ha.revoke)
    expect(s.group.heartbeat(b.memberId).assign).toEqual(ha.revoke)
  })
})

describe('GroupCoordinator fencing of a zombie member', () => {
  it('refuses commitOffsets and txnOffsetCommit from an expired member with UNKNOWN_MEMBER_ID', () => {
    const s = twoMembers()
    s.clock.now = SESSION_MS
    s.group.heartbeat(s.b.memberId)
    s.clock.now = SESSION_MS * 2
    s.group.heartbeat(s.b.memberId)
    expect(s.group.hasMember(s.a.memberId)).toBe(false)
    const offsets = [{ ...s.owned.a[0]!, offset: 10 }]
    expect(errorCode(() => s.group.commitOffsets(s.a.memberId, s.a.generationId, offsets))).toBe('UNKNOWN_MEMBER_ID')
    expect(
      errorCode(() =>
        s.group.txnOffsetCommit(5, 0, offsets, { memberId: s.a.memberId, generationId: s.a.generationId }),
      ),
    ).toBe('UNKNOWN_MEMBER_ID')
    expect(s.appended).toEqual([])
    expect(s.group.fetchCommittedStable([T0, T1])).toEqual(
      new Map([
        ['in-0', null],
        ['in-1', null],
      ]),
    )
  })

  const refusesStaleCommit =
    'refuses a commit for a partition the member no longer owns, or from a generation not yet reached, with ' +
    'ILLEGAL_GENERATION'
  it(refusesStaleCommit, () => {
    const s = twoMembers()
    const theirs = [{ ...s.owned.b[0]!, offset: 3 }]
    expect(errorCode(() => s.group.commitOffsets(s.a.memberId, s.a.generationId, theirs))).toBe('ILLEGAL_GENERATION')
    expect(
      errorCode(() =>
        s.group.txnOffsetCommit(5, 0, theirs, { memberId: s.a.memberId, generationId: s.a.generationId }),
      ),
    ).toBe('ILLEGAL_GENERATION')
    const mine = [{ ...s.owned.a[0]!, offset: 3 }]
    expect(errorCode(() => s.group.commitOffsets(s.a.memberId, s.group.generationId + 1, mine))).toBe(
      'ILLEGAL_GENERATION',
    )
    expect(s.appended).toEqual([])
    s.group.commitOffsets(s.a.memberId, s.a.generationId, mine)
    expect(s.group.fetchCommittedStable([s.owned.a[0]!]).get(`in-${s.owned.a[0]!.partition}`)).toBe(3)
  })

  it('keeps a transactional commit pending until the transaction ends, then applies it only on commit', () => {
    const s = twoMembers()
    const member = { memberId: s.a.memberId, generationId: s.a.generationId }
    const tp = s.owned.a[0]!
    s.group.txnOffsetCommit(5, 0, [{ ...tp, offset: 4 }], member)
    expect(s.group.pendingPartitions()).toEqual([`in-${tp.partition}`])
    s.group.completeTxn(5, 'ABORT')
    expect(s.group.fetchCommittedStable([tp]).get(`in-${tp.partition}`)).toBeNull()
    s.group.txnOffsetCommit(5, 1, [{ ...tp, offset: 6 }], member)
    s.group.completeTxn(5, 'COMMIT')
    expect(s.group.fetchCommittedStable([tp]).get(`in-${tp.partition}`)).toBe(6)
  })
})
