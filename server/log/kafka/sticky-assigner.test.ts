import fc from 'fast-check'
import { AssignerProtocol } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import type { TopicPartition } from '../types.ts'
import {
  decodeClaim,
  encodeClaim,
  type MemberClaim,
  STICKY_ASSIGNER_NAME,
  stickyAssigner,
  stickyGroupAssignment,
} from './sticky-assigner.ts'

const input = (...ps: number[]): TopicPartition[] => ps.map((partition) => ({ topic: 'input', partition }))
const SIX = input(0, 1, 2, 3, 4, 5)
const claim = (memberId: string, generation: number, ...ps: number[]): MemberClaim => ({
  memberId,
  claim: { generation, partitions: input(...ps) },
})
const asObject = (m: Map<string, TopicPartition[]>) =>
  Object.fromEntries([...m].map(([k, v]) => [k, v.map((tp) => tp.partition).sort((a, b) => a - b)]))

describe('stickyGroupAssignment', () => {
  it("a dead member's partitions move; the survivors keep theirs (RoundRobin moved them too)", () => {
    const after = stickyGroupAssignment(SIX, [claim('w1', 4, 0, 3), claim('w3', 4, 2, 5)])
    const o = asObject(after)
    expect(o.w1).toEqual(expect.arrayContaining([0, 3]))
    expect(o.w3).toEqual(expect.arrayContaining([2, 5]))
    expect(o.w1!.length + o.w3!.length).toBe(6)
    expect(o.w1).toHaveLength(3)
  })

  it('a newcomer takes only its share, from the members above quota', () => {
    const o = asObject(
      stickyGroupAssignment(SIX, [claim('a', 2, 0, 1, 2), claim('b', 2, 3, 4, 5), { memberId: 'c', claim: null }]),
    )
    expect(o.c).toHaveLength(2)
    const kept = [...o.a!.filter((p) => [0, 1, 2].includes(p)), ...o.b!.filter((p) => [3, 4, 5].includes(p))]
    expect(kept).toHaveLength(4)
  })

  it('two claims on one partition: the later generation wins (a dropped member rejoining with its old claim)', () => {
    const o = asObject(
      stickyGroupAssignment(SIX, [claim('zombie', 3, 0, 1), claim('a', 5, 0, 1, 2), claim('b', 5, 3, 4, 5)]),
    )
    expect(o.a).toEqual(expect.arrayContaining([0, 1]))
    expect(o.a).not.toContain(2)
  })

  it('claims on partitions that no longer exist are ignored; no claims at all gives a balanced deal', () => {
    expect(asObject(stickyGroupAssignment(input(0, 1), [claim('a', 1, 7, 8), { memberId: 'b', claim: null }]))).toEqual(
      { a: [0], b: [1] },
    )
  })

  const assignmentProperty =
    'property: every partition to exactly one member, balanced within one, and each member keeps min(claimed, ' +
    'its fair share) of its uncontested claims'
  it(assignmentProperty, () => {
    const arb = fc.record({
      partitions: fc.integer({ min: 0, max: 12 }),
      members: fc.integer({ min: 1, max: 5 }),
      owners: fc.array(fc.integer({ min: -1, max: 4 }), { maxLength: 12 }),
    })
    fc.assert(
      fc.property(arb, ({ partitions, members, owners }) => {
        const ids = Array.from({ length: members }, (_, i) => `m${i}`)
        const all = input(...Array.from({ length: partitions }, (_, i) => i))
        const claimed = ids.map((memberId, m) => ({
          memberId,
          claim: { generation: 1, partitions: all.filter((tp) => owners[tp.partition] === m) },
        }))
        const result = stickyGroupAssignment(all, claimed)
        const given = [...result.values()]
          .flat()
          .map((tp) => tp.partition)
          .sort((a, b) => a - b)
        expect(given).toEqual(all.map((tp) => tp.partition))
        const sizes = ids.map((id) => result.get(id)!.length)
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1)
        const base = Math.floor(partitions / members)
        for (const c of claimed) {
          const kept = result
            .get(c.memberId)!
            .filter((tp) => c.claim.partitions.some((p) => p.partition === tp.partition)).length
          expect(kept).toBeGreaterThanOrEqual(Math.min(c.claim.partitions.length, base))
        }
      }),
    )
  })
})

describe('the claim in JoinGroup user data', () => {
  it('round-trips, and unreadable bytes are no claim (never an error)', () => {
    expect(decodeClaim(encodeClaim({ generation: 9, partitions: input(1, 4) }))).toEqual({
      generation: 9,
      partitions: input(1, 4),
    })
    for (const bad of [
      Buffer.alloc(0),
      Buffer.from('not json'),
      Buffer.from('{"generation":"x","partitions":[]}'),
      Buffer.from('[1,2]'),
      null,
      undefined,
    ])
      expect(decodeClaim(bad)).toBeNull()
    expect(decodeClaim(Buffer.from('{"generation":2,"partitions":[["t",1],["t","x"],5]}'))).toEqual({
      generation: 2,
      partitions: [{ topic: 't', partition: 1 }],
    })
  })

  it("the kafkajs assigner reads the members' claims from their metadata and encodes kafkajs assignments", async () => {
    const cluster = {
      findTopicPartitionMetadata: (topic: string) =>
        topic === 'input' ? SIX.map((tp) => ({ partitionId: tp.partition })) : [],
    }
    const owned = { generation: 4, partitions: input(0, 3) }
    const assigner = stickyAssigner(() => owned)({ cluster, groupId: 'g', logger: console } as never)
    const mine = assigner.protocol({ topics: ['input'] })
    expect(mine.name).toBe(STICKY_ASSIGNER_NAME)
    const other = AssignerProtocol.MemberMetadata.encode({
      version: 0,
      topics: ['input'],
      userData: encodeClaim({ generation: 4, partitions: input(2, 5) }),
    })
    const out = await assigner.assign({
      members: [
        { memberId: 'w1', memberMetadata: mine.metadata },
        { memberId: 'w3', memberMetadata: other },
      ],
      topics: ['input'],
    })
    const decoded = Object.fromEntries(
      out.map((a) => [
        a.memberId,
        AssignerProtocol.MemberAssignment.decode(a.memberAssignment)!.assignment.input!.sort(),
      ]),
    )
    expect(decoded.w1).toEqual(expect.arrayContaining([0, 3]))
    expect(decoded.w3).toEqual(expect.arrayContaining([2, 5]))
    expect(decoded.w1!.length + decoded.w3!.length).toBe(6)
  })
})
