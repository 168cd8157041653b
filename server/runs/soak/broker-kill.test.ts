import { describe, expect, it } from 'vitest'
import type { BrokerView } from '../../../lib/broker-view.ts'
import { MockTime, SeededRandom } from '../../log/time.ts'
import { type BrokerKill, brokerKillFault, brokerKillVictim } from './broker-kill.ts'
import type { FaultContext } from './faults.ts'

const b = (id: number, o: Partial<BrokerView> = {}): BrokerView => ({
  id,
  address: `127.0.0.1:${26191 + id}`,
  up: true,
  pid: 100 + id,
  controllerLeader: id === 1,
  leaderOf: [],
  groupCoordinator: false,
  transactionCoordinatorOf: [],
  ...o,
})
const first = <T>(xs: readonly T[]): T => xs[0]!
const last = <T>(xs: readonly T[]): T => xs[xs.length - 1]!

const CLUSTER = [
  b(1, { leaderOf: ['app-input-0', 'app-output-1'], transactionCoordinatorOf: ['app-w1'] }),
  b(2, { leaderOf: ['app-output-0'], groupCoordinator: true, transactionCoordinatorOf: ['app-w2', 'app-w3'] }),
  b(3, { leaderOf: ['app-input-1'] }),
  b(4, { leaderOf: ['app-input-dlq-0'] }),
]

describe('brokerKillVictim', () => {
  it('aims at the broker coordinating the most transactional ids', () => {
    expect(brokerKillVictim(CLUSTER, 'transaction-coordinator', 'app-input', first)?.id).toBe(2)
  })

  it('aims at a leader of an input partition, drawn among them (not of the dead-letter topic app-input-dlq)', () => {
    expect(brokerKillVictim(CLUSTER, 'input-leader', 'app-input', first)?.id).toBe(1)
    expect(brokerKillVictim(CLUSTER, 'input-leader', 'app-input', last)?.id).toBe(3)
  })

  it("kills nothing while a broker is down or not one of eoscope's own, or when no broker has the role", () => {
    expect(
      brokerKillVictim([CLUSTER[0]!, { ...CLUSTER[1]!, up: false }, CLUSTER[2]!], 'input-leader', 'app-input', first),
    ).toBeNull()
    expect(
      brokerKillVictim([CLUSTER[0]!, CLUSTER[1]!, { ...CLUSTER[2]!, pid: null }], 'input-leader', 'app-input', first),
    ).toBeNull()
    expect(brokerKillVictim(CLUSTER.slice(0, 2), 'input-leader', 'app-input', first)).toBeNull()
    expect(brokerKillVictim([CLUSTER[1]!, CLUSTER[3]!, b(5)], 'input-leader', 'app-input', first)).toBeNull()
    expect(
      brokerKillVictim(
        CLUSTER.map((x) => ({ ...x, transactionCoordinatorOf: [] })),
        'transaction-coordinator',
        'app-input',
        first,
      ),
    ).toBeNull()
  })
})

describe('brokerKillFault', () => {
  it('starts a broker whose restart failed again at its next draw, before killing any other', async () => {
    const time = new MockTime()
    const up = new Map([1, 2, 3].map((id) => [id, true]))
    const restarts: number[] = []
    let failNextRestart = true
    const control = {
      describe: async () =>
        [1, 2, 3].map((id) =>
          b(id, {
            up: up.get(id)!,
            pid: up.get(id) ? 100 + id : null,
            leaderOf: [`app-input-${id}`],
            transactionCoordinatorOf: id === 2 ? ['app-w'] : [],
          }),
        ),
      kill: async (id: number) => {
        up.set(id, false)
        return 100 + id
      },
      restart: async (id: number) => {
        restarts.push(id)
        if (failNextRestart) {
          failNextRestart = false
          throw new Error('port 19193 (broker 2) is in use by a process this script did not start\nmore')
        }
        up.set(id, true)
      },
    }
    const recorded: string[] = []
    const ctx = {
      lab: {
        connection: { capabilities: { backend: 'kafka', unavailable: {} }, brokers: () => control },
        topics: { input: 'app-input' },
        groupId: 'app',
      },
      time,
      rng: new SeededRandom(1),
      elapsedMs: () => time.now() - 1_700_000_000_000,
      record: (kind: string, detail: string) => recorded.push(`${kind}: ${detail}`),
    } as unknown as FaultContext
    const kills: BrokerKill[] = []
    const fault = brokerKillFault(kills)
    await fault.apply(ctx)
    await fault.settled()
    expect(kills).toHaveLength(1)
    const first = kills[0]!
    expect(first.restartError).toBe('port 19193 (broker 2) is in use by a process this script did not start')
    expect(first.downMs).toBeNull()
    // The next draw restarts it: no second kill while it is down.
    await time.runFor(1_000)
    await fault.apply(ctx)
    await fault.settled()
    expect(kills).toHaveLength(1)
    expect(restarts).toEqual([first.brokerId, first.brokerId])
    expect(first.restartAttempts).toBe(2)
    expect(first.restartError).toBeUndefined()
    expect(first.downMs).toBeGreaterThanOrEqual(1_000)
    // All three up again: the draw after that kills.
    await fault.apply(ctx)
    await fault.settled()
    expect(kills).toHaveLength(2)
    expect(recorded.filter((r) => r.startsWith('brokerKill'))).toHaveLength(2)
  })
})
