import { describe, expect, it } from 'vitest'
import { brokerViews, type ClusterFacts } from './broker-map.ts'

// Three local brokers; broker 2 was SIGKILLed and fenced: its leaderships and coordinators moved.
const AFTER_KILL: ClusterFacts = {
  metadataBrokers: [
    { nodeId: 3, host: '127.0.0.1', port: 26194 },
    { nodeId: 1, host: '127.0.0.1', port: 26192 },
  ],
  partitions: [
    { topic: 'app-input', partition: 1, leader: 3 },
    { topic: 'app-input', partition: 0, leader: 1 },
    { topic: 'app-output', partition: 0, leader: 3 },
    { topic: 'other', partition: 0, leader: 1 },
  ],
  groupCoordinator: 3,
  transactionCoordinators: [
    { transactionalId: 'app-w2', nodeId: 1 },
    { transactionalId: 'app-w1', nodeId: 1 },
    { transactionalId: 'app-w3', nodeId: 3 },
  ],
  quorumLeader: 1,
  localBrokers: [
    { id: 1, address: '127.0.0.1:26192', pid: 101 },
    { id: 2, address: '127.0.0.1:26193', pid: null },
    { id: 3, address: '127.0.0.1:26194', pid: 103 },
  ],
}

describe('brokerViews', () => {
  it('maps every broker to the partitions it leads and what it coordinates, sorted, a killed local broker down', () => {
    expect(brokerViews(AFTER_KILL)).toEqual([
      {
        id: 1,
        address: '127.0.0.1:26192',
        up: true,
        pid: 101,
        controllerLeader: true,
        leaderOf: ['app-input-0', 'other-0'],
        groupCoordinator: false,
        transactionCoordinatorOf: ['app-w1', 'app-w2'],
      },
      {
        id: 2,
        address: '127.0.0.1:26193',
        up: false,
        pid: null,
        controllerLeader: false,
        leaderOf: [],
        groupCoordinator: false,
        transactionCoordinatorOf: [],
      },
      {
        id: 3,
        address: '127.0.0.1:26194',
        up: true,
        pid: 103,
        controllerLeader: false,
        leaderOf: ['app-input-1', 'app-output-0'],
        groupCoordinator: true,
        transactionCoordinatorOf: ['app-w3'],
      },
    ])
  })

  it('shows a local broker whose process runs but that the controller fenced as down', () => {
    const facts = { ...AFTER_KILL, localBrokers: AFTER_KILL.localBrokers.map((b) => ({ ...b, pid: b.pid ?? 102 })) }
    expect(brokerViews(facts).find((b) => b.id === 2)).toMatchObject({ up: false, pid: 102 })
  })

  const noControllerLeaderUnasked =
    'knows no controller leader when the quorum could not be asked, and brokers of a remote cluster by metadata ' +
    'only'
  it(noControllerLeaderUnasked, () => {
    const views = brokerViews({ ...AFTER_KILL, quorumLeader: null, localBrokers: [], groupCoordinator: null })
    expect(views.map((b) => [b.id, b.up, b.pid, b.controllerLeader, b.groupCoordinator])).toEqual([
      [1, true, null, null, false],
      [3, true, null, null, false],
    ])
  })
})
