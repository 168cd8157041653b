// What each figure of a headless run counts, carried beside the figures in `eoscope run --json`
// (docs/measures.md has the long form).

import { MARKER_ROUND_MS } from '../runtime/log-transactions.ts'

export const RUN_DEFINITIONS = {
  throughputPerSec:
    "the whole run: committed input records ÷ the run's duration (durationMs), its start, kills, recoveries and " +
    'the wait for the last commit included',
  steadyThroughput:
    'the engine in its steady state, the figure npm run bench:engine reports: the slope of a least-squares line ' +
    "through the group's committed input offsets, sampled while the run goes, between 10% and 90% of the input " +
    'committed (perSec, over windowMs); null with a reason when that window held too few samples or commits',
  network:
    'the delay the proxy between the worker processes and the brokers held each frame for, each way: ' +
    'oneWayLatencyMs plus a jitter drawn from [0, jitterMs), frames kept in order (--network-latency-ms, ' +
    '--network-jitter-ms); absent: the workers reached the brokers directly, or through the proxy with no delay',
  inputRate:
    'the rate the input was fed at, in records per second (perSec; null: as fast as possible), and how it was ' +
    'chosen: given (--rate), as fast as possible, or paced so that about four kills fall within the run ' +
    '(--kill-every without --rate)',
  duplicates: 'extra committed output records for one input record (every copy past the first counted)',
  lost: "committed input records (below the group's committed offset) with no committed output record",
  abortedReads:
    'records of aborted transactions a read_committed reader of the output received (abortedReadsUncommitted: ' +
    'what a read_uncommitted one would)',
  stateMismatches:
    'keys whose state differs from the replay of the committed input, each counted once: a committed output ' +
    '(first copy) whose aggregate differs from the recomputation right after its input record, or a latest ' +
    'committed changelog value that differs from the final recomputation (stateMismatchesBy in validation has ' +
    "each part, in keys; doubleAppliedUpdates the input records whose update reached a key's state twice)",
  openTransactions:
    'partitions of the output, changelog and dead-letter topics whose last stable offset is below the high ' +
    'watermark after the run',
  transactions:
    `transactions the log holds on the output, changelog and dead-letter topics: committed = ended by COMMIT ` +
    `markers, aborted = ended by ABORT markers (those the coordinator wrote for a killed worker's open ` +
    `transaction included), each counted once across its partitions: per producer id and epoch, the markers ` +
    `written within ${MARKER_ROUND_MS} ms of one another on distinct partitions are one transaction`,
  transactionMarkers:
    'COMMIT and ABORT markers on the output, changelog and dead-letter topics, per partition (byTopic, index = ' +
    'partition) and in total: one per partition a transaction touched, as a reader of the partitions counts ' +
    'them (one transaction over six partitions is 1 in transactions and 6 here)',
  transactionsReported:
    'transactions the workers reported ending themselves (committed or aborted through their producer); a ' +
    "killed worker's open transaction is not among them",
  crashes:
    'workers that ended without the run ending them (their process exited, or their engine failed), each with ' +
    'its cause (the error it reported, else its last log line, else its exit code or signal) and its time from ' +
    'the start in ms (t); a crashed worker is replaced after restartAfterMs like a killed one',
  crashHandler:
    "what the run does with a crashed worker, in Kafka Streams' words (StreamsUncaughtExceptionHandler): " +
    'REPLACE_THREAD, a new worker in its slot after restartAfterMs',
  brokerKills:
    'brokers SIGKILLed during the run (--kill-broker-every), one at a time: t from the start in ms, the role aimed ' +
    'at (target), what the broker did for the run then (roles), and downMs until it answered again after its ' +
    'restart; compare t with the recoveries beside it',
  workers:
    'workers the run started with, and live at its end (a slot killed or crashed just before counts once its ' +
    'replacement has started); fewer at the end is said in warnings',
  stalled:
    'set when the group committed no input for max(60 s, 12 × session.timeout.ms) while input remained: the ' +
    'run stopped there, and its correctness figures are null',
} as const
