// Who does what in the cluster, from the answers of Metadata, FindCoordinator, ListTransactions and
// DescribeQuorum, and the local brokers' pid files: one BrokerView per broker. Pure, so the mapping
// is tested from fixtures (broker-map.test.ts).

import type { BrokerView } from '../../../../lib/broker-view.ts'

export interface ClusterFacts {
  /** Brokers in the metadata: registered and not fenced. */
  metadataBrokers: { nodeId: number; host: string; port: number }[]
  /** Each partition of the lab's topics and its leader (-1: no leader). */
  partitions: { topic: string; partition: number; leader: number }[]
  /** The lab's group's coordinator, or null when unknown. */
  groupCoordinator: number | null
  /** Each transactional id and the broker that coordinates it. */
  transactionCoordinators: { transactionalId: string; nodeId: number }[]
  /** The KRaft quorum's leader, or null when it could not be asked. */
  quorumLeader: number | null
  /** Brokers started by scripts/kafka-cluster.sh on this machine: id, address, pid when its process runs. */
  localBrokers: { id: number; address: string; pid: number | null }[]
}

export function brokerViews(f: ClusterFacts): BrokerView[] {
  const ids = new Set<number>([...f.metadataBrokers.map((b) => b.nodeId), ...f.localBrokers.map((b) => b.id)])
  return [...ids]
    .sort((a, b) => a - b)
    .map((id) => {
      const meta = f.metadataBrokers.find((b) => b.nodeId === id)
      const local = f.localBrokers.find((b) => b.id === id)
      return {
        id,
        address: meta ? `${meta.host}:${meta.port}` : local!.address,
        // A local broker is up when its process runs and the cluster has not fenced it.
        up: local ? local.pid !== null && meta !== undefined : meta !== undefined,
        pid: local?.pid ?? null,
        controllerLeader: f.quorumLeader === null ? null : f.quorumLeader === id,
        leaderOf: f.partitions
          .filter((p) => p.leader === id)
          .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
          .map((p) => `${p.topic}-${p.partition}`),
        groupCoordinator: f.groupCoordinator === id,
        transactionCoordinatorOf: f.transactionCoordinators
          .filter((t) => t.nodeId === id)
          .map((t) => t.transactionalId)
          .sort(),
      }
    })
}
