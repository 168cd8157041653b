// The broker seam of a lab on Kafka: what each broker does for the lab (partition leaders of its
// topics, its group's coordinator, its transactional ids' coordinators, the active controller) and,
// for brokers started by scripts/kafka-cluster.sh on this machine, Kill (SIGKILL) and Restart.

import type { Kafka } from 'kafkajs'
import type { BrokerView } from '../../../../lib/broker-view.ts'
import { createCluster, createKafka, type KafkaClientConfig, type KafkajsCluster } from '../kafka-client.ts'
import { sender } from '../raw-protocol.ts'
import { listTransactions } from '../kip664/kip664-requests.ts'
import { brokerViews, type ClusterFacts } from './broker-map.ts'
import { describeQuorum } from './describe-quorum.ts'
import { BrokerControlRefused, type BrokerControl, type BrokerScope } from '../../broker-control.ts'
import { LOCAL_BROKERS_UNSET } from '../capabilities.ts'
import type { LocalBrokers } from './local-brokers.ts'

type ClusterInternals = KafkajsCluster & {
  getNodeIds(): number[]
  findGroupCoordinatorMetadata(a: {
    groupId: string
    coordinatorType: number
  }): Promise<{ coordinator: { nodeId: number } }>
  brokerPool: {
    metadata: {
      brokers: { nodeId: number; host: string; port: number }[]
      topicMetadata: { topic: string; partitionMetadata: { partitionId: number; leader: number }[] }[]
    } | null
  }
}

export class KafkaBrokerControl implements BrokerControl {
  private readonly kafka: Kafka
  private cluster: ClusterInternals | null = null

  constructor(
    config: KafkaClientConfig,
    private readonly local: LocalBrokers | null,
  ) {
    this.kafka = createKafka(config, `${config.clientId}-brokers`)
  }

  private async connected(): Promise<ClusterInternals> {
    this.cluster ??= createCluster(this.kafka) as ClusterInternals
    const c = this.cluster
    await c.connect()
    return c
  }

  async describe(scope: BrokerScope): Promise<BrokerView[]> {
    const c = await this.connected()
    for (const t of scope.topics) await c.addTargetTopic(t).catch(() => {})
    await c.refreshMetadata()
    const meta = c.brokerPool.metadata
    const facts: ClusterFacts = {
      metadataBrokers: (meta?.brokers ?? []).map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })),
      partitions: (meta?.topicMetadata ?? [])
        .filter((t) => scope.topics.includes(t.topic))
        .flatMap((t) =>
          t.partitionMetadata.map((p) => ({ topic: t.topic, partition: p.partitionId, leader: p.leader })),
        ),
      groupCoordinator: await c
        .findGroupCoordinatorMetadata({ groupId: scope.groupId, coordinatorType: 0 })
        .then((m) => m.coordinator.nodeId)
        .catch(() => null),
      transactionCoordinators: [],
      quorumLeader: null,
      localBrokers: this.local?.list() ?? [],
    }
    for (const b of facts.metadataBrokers) {
      const broker = await c.findBroker({ nodeId: b.nodeId }).catch(() => null)
      if (broker === null) continue
      const listed = await sender(broker)(listTransactions()).catch(() => null)
      for (const t of listed?.transactions ?? [])
        if (t.transactionalId.startsWith(scope.transactionalIdPrefix))
          facts.transactionCoordinators.push({ transactionalId: t.transactionalId, nodeId: b.nodeId })
      if (facts.quorumLeader === null)
        facts.quorumLeader = await sender(broker)(describeQuorum())
          .then((q) => q.partitions[0]?.leaderId ?? null)
          .catch(() => null)
    }
    return brokerViews(facts)
  }

  async kill(id: number): Promise<number> {
    return this.requireLocal().kill(id)
  }

  restartRefusal(id: number): string | null {
    if (this.local === null) return LOCAL_BROKERS_UNSET
    return this.local.restartRefusal(id)
  }

  async restart(id: number): Promise<void> {
    await this.requireLocal().restart(id)
  }

  private requireLocal(): LocalBrokers {
    if (this.local === null) throw new BrokerControlRefused(LOCAL_BROKERS_UNSET)
    return this.local
  }

  async close(): Promise<void> {
    await this.cluster?.disconnect().catch(() => {})
    this.cluster = null
  }
}
