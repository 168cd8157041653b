import { describe, expect, it } from 'vitest'
import type { BrokerView } from '../../../lib/broker-view.ts'
import { brokerKillVictim } from './broker-kill.ts'

const b = (id: number, o: Partial<BrokerView> = {}): BrokerView => ({ id, address: `127.0.0.1:${26191 + id}`, up: true, pid: 100 + id, controllerLeader: id === 1, leaderOf: [], groupCoordinator: false, transactionCoordinatorOf: [], ...o })
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

  it('kills nothing while a broker is down or not one of eoscope\'s own, or when no broker has the role', () => {
    expect(brokerKillVictim([CLUSTER[0]!, { ...CLUSTER[1]!, up: false }, CLUSTER[2]!], 'input-leader', 'app-input', first)).toBeNull()
    expect(brokerKillVictim([CLUSTER[0]!, CLUSTER[1]!, { ...CLUSTER[2]!, pid: null }], 'input-leader', 'app-input', first)).toBeNull()
    expect(brokerKillVictim(CLUSTER.slice(0, 2), 'input-leader', 'app-input', first)).toBeNull()
    expect(brokerKillVictim([CLUSTER[1]!, CLUSTER[3]!, b(5)], 'input-leader', 'app-input', first)).toBeNull()
    expect(brokerKillVictim(CLUSTER.map((x) => ({ ...x, transactionCoordinatorOf: [] })), 'transaction-coordinator', 'app-input', first)).toBeNull()
  })
})
