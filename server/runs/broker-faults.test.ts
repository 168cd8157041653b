// eoscope run --kill-broker-every on a fake cluster (no broker): each kill aimed at its role, one
// broker down at a time, restarted after restartAfterMs, listed with its roles; none once the
// fault window closes, and a restart under way is finished first.

import { describe, expect, it } from 'vitest'
import type { BrokerView } from '../../lib/broker-view.ts'
import { MockTime, SeededRandom } from '../log/time.ts'
import { brokerFaultLoop, type RunBrokerKill } from './broker-faults.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'

function fakeCluster(time: MockTime) {
  const up = new Map([
    [1, true],
    [2, true],
    [3, true],
  ])
  const events: string[] = []
  const view = (id: number): BrokerView => ({
    id,
    address: `127.0.0.1:${29191 + id}`,
    up: up.get(id)!,
    pid: up.get(id) ? 1000 + id : null,
    controllerLeader: id === 1,
    leaderOf: id === 2 ? ['app-input-0', 'app-input-1'] : ['app-output-0'],
    groupCoordinator: id === 3,
    transactionCoordinatorOf: id === 1 ? ['app-0_0', 'app-0_1'] : id === 2 ? ['app-0_2'] : [],
  })
  const control = {
    describe: async () => [1, 2, 3].map(view),
    kill: async (id: number) => {
      expect([...up.values()].every(Boolean), 'one broker down at a time').toBe(true)
      up.set(id, false)
      events.push(`kill ${id} at ${time.now()}`)
      return 1000 + id
    },
    restartRefusal: () => null,
    restart: async (id: number) => {
      await time.sleep(3_000)
      up.set(id, true)
      events.push(`up ${id} at ${time.now()}`)
    },
    close: async () => {},
  }
  return { control, events, up }
}

function fakeLab(time: MockTime, control: unknown, open: () => boolean): LabRuntime {
  return {
    time,
    random: new SeededRandom(1),
    groupId: 'app',
    topics: { input: 'app-input', output: 'app-output', changelog: 'app-changelog', deadLetter: 'app-input-dlq' },
    connection: { brokers: () => control },
    faultWindowOpen: open,
  } as unknown as LabRuntime
}

describe('brokerFaultLoop', () => {
  it('cycles: group coordinator, transaction coordinator, input leader, one down at a time', async () => {
    const time = new MockTime(0)
    const { control, events, up } = fakeCluster(time)
    let open = true
    const kills: RunBrokerKill[] = []
    const loop = brokerFaultLoop(
      fakeLab(time, control, () => open),
      { killEveryMs: 15_000, restartAfterMs: 9_000, target: 'cycle' },
      0,
      kills,
      () => false,
    )
    await time.runFor(80_000)
    open = false
    await time.runUntilSettled(loop, 60_000)
    expect(kills.map((k) => [k.brokerId, k.target])).toEqual([
      [3, 'group-coordinator'],
      [1, 'transaction-coordinator'],
      [2, 'input-leader'],
    ])
    expect(kills[0]!.roles).toContain('group coordinator')
    expect(kills[1]!.roles.join('; ')).toContain('transaction coordinator of app-0_0, app-0_1')
    // Killed at 15 s, restarted 9 s later (its restart takes 3 s): the next kill 15 s after that.
    expect(kills.map((k) => [k.t, k.downMs])).toEqual([
      [15_000, 12_000],
      [42_000, 12_000],
      [69_000, 12_000],
    ])
    expect(events.filter((e) => e.startsWith('kill'))).toHaveLength(3)
    expect([...up.values()].every(Boolean), 'no broker left down').toBe(true)
  })

  it('in a cycle, passes over a role no broker has (no transactional ids under at_least_once)', async () => {
    const time = new MockTime(0)
    const { control } = fakeCluster(time)
    const describe = control.describe
    control.describe = async () => (await describe()).map((b) => ({ ...b, transactionCoordinatorOf: [] }))
    let open = true
    const kills: RunBrokerKill[] = []
    const loop = brokerFaultLoop(
      fakeLab(time, control, () => open),
      { killEveryMs: 15_000, restartAfterMs: 9_000, target: 'cycle' },
      0,
      kills,
      () => false,
    )
    await time.runFor(110_000)
    open = false
    await time.runUntilSettled(loop, 60_000)
    expect(kills.map((k) => k.target)).toEqual([
      'group-coordinator',
      'input-leader',
      'group-coordinator',
      'input-leader',
    ])
  })

  it('aims at the role asked for, and kills nothing once the fault window is closed', async () => {
    const time = new MockTime(0)
    const { control } = fakeCluster(time)
    const kills: RunBrokerKill[] = []
    let open = true
    const loop = brokerFaultLoop(
      fakeLab(time, control, () => open),
      { killEveryMs: 10_000, restartAfterMs: 1_000, target: 'input-leader' },
      0,
      kills,
      () => false,
    )
    await time.runFor(30_000)
    open = false
    await time.runUntilSettled(loop, 60_000)
    expect(kills.length).toBeGreaterThanOrEqual(2)
    expect(new Set(kills.map((k) => k.brokerId))).toEqual(new Set([2]))
    const n = kills.length
    await time.runFor(60_000)
    expect(kills).toHaveLength(n)
  })
})
