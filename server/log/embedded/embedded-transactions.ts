// The embedded broker's answers to KIP-664's admin requests: its transaction coordinator's view of
// each transactional id (DescribeTransactions), each partition's producer state (DescribeProducers),
// and the ABORT marker an operator writes for a hanging transaction (WriteTxnMarkers). And the
// fault that makes one: a transactional batch of a producer id no coordinator knows, as a Kafka
// broker takes it when its partition verification (KIP-890) is off.

import { LogError } from '../errors.ts'
import type {
  CoordinatorTransaction,
  PartitionProducer,
  ProducerToAbort,
  TopicPartition,
  TransactionsFilter,
  TransactionsRead,
} from '../types.ts'
import type { EmbeddedCluster } from './embedded-cluster.ts'
import type { TxnMetadata } from './transaction-coordinator.ts'
import { isTransactionOpen } from '../transaction-states.ts'

function coordinatorView(m: Readonly<TxnMetadata>): CoordinatorTransaction {
  const open = isTransactionOpen(m.state)
  return {
    transactionalId: m.transactionalId,
    producerId: m.producerId,
    epoch: m.epoch,
    state: m.state,
    timeoutMs: m.timeoutMs,
    startTimeMs: open ? m.startMs : -1,
    lastUpdateMs: m.updatedMs ?? null,
    partitions: open ? [...m.partitions.values()].map((tp) => ({ topic: tp.topic, partition: tp.partition })) : [],
  }
}

/**
 * The coordinator's transactional ids the filter keeps (and any holding a producer of
 * the partitions), and the partitions' producers.
 */
export function readEmbeddedTransactions(
  cluster: EmbeddedCluster,
  partitions: readonly TopicPartition[],
  filter: TransactionsFilter = {},
): TransactionsRead {
  const producers: PartitionProducer[] = partitions.flatMap((tp) =>
    cluster
      .partitionLog(tp)
      .producerStates()
      .map((p) => ({ topic: tp.topic, partition: tp.partition, ...p, lastTimestampMs: -1, coordinatorEpoch: 0 })),
  )
  const holders = new Set(producers.map((p) => p.producerId))
  const prefix = filter.transactionalIdPrefix
  const coordinators = cluster.txnCoordinator
    .all()
    .filter((m) => prefix === undefined || m.transactionalId.startsWith(prefix) || holders.has(m.producerId))
    .map(coordinatorView)
    .sort((a, b) => a.transactionalId.localeCompare(b.transactionalId))
  return { coordinators, producers }
}

/** WriteTxnMarkers ABORT at the partition's leader: the producer's open transaction there ends aborted. */
export function abortEmbeddedTransaction(cluster: EmbeddedCluster, p: ProducerToAbort): void {
  const log = cluster.partitionLog(p)
  if (!log.hasOngoingTxn(p.producerId))
    throw new LogError(
      'INVALID_TXN_STATE',
      `producer ${p.producerId} holds no open transaction on ${p.topic}-${p.partition}`,
    )
  log.writeMarker(p.producerId, p.epoch, 'ABORT', cluster.time.now())
}

/**
 * Fault injection: one transactional record of a fresh producer id, appended to the partition
 * without its coordinator (no AddPartitionsToTxn): nothing will ever write its marker.
 */
export function writeHangingTransaction(
  cluster: EmbeddedCluster,
  tp: TopicPartition,
): { producerId: number; epoch: number; firstOffset: number } {
  const log = cluster.partitionLog(tp)
  const producerId = cluster.txnCoordinator.allocateProducerId()
  const now = cluster.time.now()
  const { baseOffset } = log.append(
    { producerId, producerEpoch: 0, baseSequence: 0, transactional: true },
    [{ key: 'hanging', value: null, timestamp: now }],
    now,
  )
  return { producerId, epoch: 0, firstOffset: baseOffset }
}
