// Kafka Streams' and the Kafka producer's and consumer's own metric names beside eoscope's
// figures: one table, read by the dashboard (tiles' tooltips, the transaction history) and by
// GET /metrics (HELP text), so a name is mapped in one place. A figure is 'same' only where it is
// the same quantity; 'differs' says how it differs; 'not-measured' names a Kafka metric eoscope has
// no figure for, and why. Pure and isomorphic.

export type KafkaMetricGroup =
  | 'stream-metrics'
  | 'stream-thread-metrics'
  | 'producer-metrics'
  | 'consumer-fetch-manager-metrics'

export interface KafkaMetricName {
  /** The metric's name in Kafka (JMX / KafkaStreams#metrics()). */
  kafka: string
  group: KafkaMetricGroup
  relation: 'same' | 'differs' | 'not-measured'
  /** How eoscope's figure relates to it: what is summed, or how it differs. */
  how: string
  /** The dashboard's figures that show it (stat tile ids, 'history:<figure>'). */
  shownOn: readonly string[]
  /** eoscope's /metrics names that carry it in their HELP text. */
  metrics: readonly string[]
}

export const KAFKA_METRIC_NAMES: readonly KafkaMetricName[] = [
  {
    kafka: 'process-rate',
    group: 'stream-thread-metrics',
    relation: 'differs',
    how:
      'process-rate counts records as a thread processes them (a record redone after a kill counts twice); ' +
      "eoscope's processed throughput counts the advance of the group's committed input offsets, each record once",
    shownOn: ['processed'],
    metrics: ['eoscope_processed_records_per_second'],
  },
  {
    kafka: 'process-total',
    group: 'stream-thread-metrics',
    relation: 'differs',
    how:
      'process-total counts records processed, redone ones again; eoscope counts the input records below the ' +
      'committed offsets',
    shownOn: ['committed-input'],
    metrics: ['eoscope_committed_input_records_total'],
  },
  {
    kafka: 'commit-total',
    group: 'stream-thread-metrics',
    relation: 'differs',
    how:
      'commit-total counts commit calls per thread; eoscope counts transactions, one per producer per commit: ' +
      'equal under exactly_once_v2 (a producer per thread), one per task under exactly_once, none under ' +
      'at_least_once',
    shownOn: ['history:committed'],
    metrics: ['eoscope_transactions_committed_total'],
  },
  {
    kafka: 'commit-latency-avg',
    group: 'stream-thread-metrics',
    relation: 'differs',
    how:
      "commit-latency-avg times Streams' whole commit (flush, sendOffsetsToTransaction, commitTransaction); " +
      "eoscope's EndTxn latency is commitTransaction alone (txn-commit-time-ns-total's share), " +
      'sendOffsetsToTransaction is apart',
    shownOn: ['history:endTxnMs'],
    metrics: [],
  },
  {
    kafka: 'records-lag-max',
    group: 'consumer-fetch-manager-metrics',
    relation: 'differs',
    how:
      "records-lag-max is the largest lag of one partition behind the consumer's fetch position; eoscope's lag " +
      "is end offset minus the group's committed offset (kafka-consumer-groups.sh LAG), summed over partitions " +
      '(as records-lag-sum)',
    shownOn: [],
    metrics: ['eoscope_input_lag_records'],
  },
  {
    kafka: 'record-send-rate',
    group: 'producer-metrics',
    relation: 'differs',
    how:
      'record-send-rate counts every record a producer sends (output, changelog, aborted ones); eoscope counts ' +
      'committed output records a read_committed consumer sees',
    shownOn: ['visible'],
    metrics: ['eoscope_visible_output_records_per_second'],
  },
  {
    kafka: 'record-retry-rate',
    group: 'producer-metrics',
    relation: 'differs',
    how:
      'record-retry-rate counts records resent per second for any cause; eoscope counts produce acks it dropped ' +
      'on purpose (each makes the producer resend its batch)',
    shownOn: [],
    metrics: ['eoscope_dropped_acks_total'],
  },
  {
    kafka: 'txn-commit-time-ns-total',
    group: 'producer-metrics',
    relation: 'same',
    how:
      "time spent in the producer's commitTransaction, summed over the lab's producers (this run), from the " +
      'EndTxn latencies the workers measure',
    shownOn: ['history:endTxnMs'],
    metrics: ['eoscope_txn_commit_time_ns_total'],
  },
  {
    kafka: 'txn-abort-time-ns-total',
    group: 'producer-metrics',
    relation: 'same',
    how:
      "time spent in the producer's abortTransaction, summed over the lab's producers (this run); a killed " +
      "worker's transaction, aborted by the coordinator, took none",
    shownOn: ['history:endTxnMs'],
    metrics: ['eoscope_txn_abort_time_ns_total'],
  },
  {
    kafka: 'txn-send-offsets-time-ns-total',
    group: 'producer-metrics',
    relation: 'same',
    how: "time spent in the producer's sendOffsetsToTransaction, summed over the lab's producers (this run)",
    shownOn: ['history:sendOffsetsMs'],
    metrics: ['eoscope_txn_send_offsets_time_ns_total'],
  },
  {
    kafka: 'txn-begin-time-ns-total',
    group: 'producer-metrics',
    relation: 'not-measured',
    how: "beginTransaction changes the producer's state locally, with no request: eoscope does not time it",
    shownOn: [],
    metrics: [],
  },
  {
    kafka: 'failed-stream-threads',
    group: 'stream-metrics',
    relation: 'same',
    how: 'a worker is a StreamThread: workers stopped by an error',
    shownOn: [],
    metrics: ['eoscope_failed_stream_threads'],
  },
]

/** The Kafka names a dashboard figure (a stat tile id, 'history:<figure>') shows. */
export function kafkaNamesShownOn(figure: string): KafkaMetricName[] {
  return KAFKA_METRIC_NAMES.filter((m) => m.shownOn.includes(figure))
}

/** The Kafka names an eoscope /metrics name carries. */
export function kafkaNamesOfMetric(metric: string): KafkaMetricName[] {
  return KAFKA_METRIC_NAMES.filter((m) => m.metrics.includes(metric))
}

/** One line naming the Kafka metrics beside a figure, for a tooltip or a HELP text ('' when none). */
export function kafkaNamesText(names: readonly KafkaMetricName[]): string {
  return names
    .map(
      (m) =>
        `Kafka ${m.group} ${m.kafka}: ` +
        `${m.relation === 'same' ? 'the same quantity' : m.relation === 'differs' ? 'differs' : 'not measured'} ` +
        `(${m.how})`,
    )
    .join('; ')
}
