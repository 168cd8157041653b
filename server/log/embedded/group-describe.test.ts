import { describe, expect, it } from 'vitest'
import { MockTime } from '../time.ts'
import { ClientFaults, EmbeddedConnection } from './embedded-connection.ts'
import { EmbeddedCluster } from './embedded-cluster.ts'
import { GroupCoordinator, type OffsetsLogWriter } from './group-coordinator.ts'
import { ProcessHandle } from './process-handle.ts'

const log: OffsetsLogWriter = {
  appendOffsets: () => {},
  offsetsPartition: () => ({ topic: '__consumer_offsets', partition: 0 }),
}
const tps = (n: number) => Array.from({ length: n }, (_, partition) => ({ topic: 'in', partition }))
/** Each member's assignment as partition numbers. */
const assigned = (g: GroupCoordinator) =>
  Object.fromEntries(g.describe().members.map((m) => [m.memberId, m.assignment.map((tp) => tp.partition)]))

describe('the embedded group coordinator described', () => {
  it('walks Empty, CompletingRebalance, Stable, PreparingRebalance as members join, take up and rejoin', () => {
    const g = new GroupCoordinator('app', log, () => 0)
    g.setPartitions(tps(4))
    expect(g.describe()).toMatchObject({
      groupId: 'app',
      state: 'Empty',
      generationId: 1,
      protocolType: 'consumer',
      members: [],
    })

    const a = g.join('w1', 10_000).memberId
    expect(g.describe()).toMatchObject({ state: 'CompletingRebalance', generationId: 2 })
    g.heartbeat(a)
    expect(g.describe().state).toBe('Stable')
    expect(assigned(g)).toEqual({ [a]: [0, 1, 2, 3] })

    const b = g.join('w2', 10_000).memberId
    // a has not yet seen generation 3.
    expect(g.describe()).toMatchObject({ state: 'PreparingRebalance', generationId: 3 })
    const hb = g.heartbeat(a)
    expect(g.describe().state).toBe('CompletingRebalance')
    g.release(a, hb.revoke)
    g.heartbeat(b)
    expect(g.describe().state).toBe('Stable')
    expect(assigned(g)).toEqual({ [a]: [0, 1], [b]: [2, 3] })
    expect(g.describe().members.map((m) => ({ clientId: m.clientId, host: m.host }))).toEqual([
      { clientId: 'w1', host: null },
      { clientId: 'w2', host: null },
    ])
  })

  it('after a member’s session expires shows the next generation with its partitions on the survivor', () => {
    let now = 0
    const g = new GroupCoordinator('app', log, () => now)
    g.setPartitions(tps(4))
    const a = g.join('w1', 1_000).memberId
    const b = g.join('w2', 1_000).memberId
    for (const m of [a, b, a, b]) {
      const hb = g.heartbeat(m)
      g.release(m, hb.revoke)
    }
    expect(g.describe()).toMatchObject({ state: 'Stable', generationId: 3 })
    now = 900
    g.touch(a)
    now = 1_500 // b silent for 1.5 s: expired
    g.expireMembers()
    expect(g.describe()).toMatchObject({ generationId: 4, members: [{ memberId: a, assignment: tps(4) }] })
  })

  it('is read without side effects: describing never expires a silent member', () => {
    let now = 0
    const g = new GroupCoordinator('app', log, () => now)
    g.setPartitions(tps(1))
    g.join('w1', 100)
    now = 10_000
    expect(g.describe().members).toHaveLength(1)
    expect(g.describe().members).toHaveLength(1)
  })

  it('answers Dead with no member for a group the cluster does not know, through the inspector', async () => {
    const cluster = new EmbeddedCluster(new MockTime(0))
    const inspector = new EmbeddedConnection(cluster, new ProcessHandle('p'), new ClientFaults()).inspector()
    expect(await inspector.describeGroup!('nobody')).toEqual({
      groupId: 'nobody',
      state: 'Dead',
      generationId: null,
      protocolType: '',
      protocol: '',
      members: [],
    })
    cluster.group('app').setPartitions(tps(2))
    expect(await inspector.describeGroup!('app')).toMatchObject({ groupId: 'app', state: 'Empty', generationId: 1 })
  })
})
