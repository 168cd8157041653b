// A broker of the lab's Kafka cluster as the dashboard shows it (broker cards): which partitions of
// the lab's topics it leads, whether it coordinates the lab's group and which of the lab's
// transactional ids, and whether eoscope may kill and restart it (a broker started by
// scripts/kafka-cluster.sh on this machine).

export interface BrokerView {
  id: number
  /** host:port of its client listener. */
  address: string
  /** In the cluster's metadata (registered and not fenced) or, for a local broker, its process runs. */
  up: boolean
  /** Its process id when it is a local broker started by scripts/kafka-cluster.sh, else null. */
  pid: number | null
  /** The KRaft quorum's leader (the active controller); null when the quorum could not be asked. */
  controllerLeader: boolean | null
  /** The partitions of the lab's topics it leads, as `topic-partition`, sorted. */
  leaderOf: string[]
  /** The group coordinator of the lab's consumer group (application.id). */
  groupCoordinator: boolean
  /** The lab's transactional ids it coordinates (their transaction state log partition's leader), sorted. */
  transactionCoordinatorOf: string[]
}

declare module './lab-protocol.ts' {
  interface LabSnapshot {
    /** Kafka: the cluster's brokers as the broker cards show them (absent on the embedded log). */
    brokers?: BrokersView
  }
}

export interface BrokersView {
  brokers: BrokerView[]
  /** Why Kill and Restart are unavailable on this lab, or null when they are offered. */
  faultsUnavailable: string | null
  /** When this was read (the lab's clock). */
  atMs: number
  /** The last read's error, if it failed (the previous brokers are kept). */
  error: string | null
}

/**
 * Whether `topicPartition` (as BrokerView.leaderOf writes it, `topic-N`) is a
 * partition of `topic`, and not of `topic-dlq`.
 */
export function isPartitionOf(topicPartition: string, topic: string): boolean {
  return topicPartition.startsWith(`${topic}-`) && /^\d+$/.test(topicPartition.slice(topic.length + 1))
}

/** What a broker does for the lab, in a journal line: "leader of input-0, group coordinator". */
export function brokerRoles(b: BrokerView | undefined): string[] {
  if (!b) return []
  return [
    ...(b.controllerLeader ? ['active controller'] : []),
    ...(b.leaderOf.length ? [`leader of ${b.leaderOf.join(', ')}`] : []),
    ...(b.groupCoordinator ? ['group coordinator'] : []),
    ...(b.transactionCoordinatorOf.length
      ? [`transaction coordinator of ${b.transactionCoordinatorOf.join(', ')}`]
      : []),
  ]
}
