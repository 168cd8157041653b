// What each sweep chart shows (its definition) and what to read from it, in two sentences.

export const READING_GUIDE = {
  throughput: {
    title: 'Processed throughput',
    definition: 'records/s by which committed input offsets advance, saturated input; median line, min–max band',
    read: 'Each commit under exactly_once ends a transaction (EndTxn, markers), so short intervals spend much of their time committing and the exactly_once line sits well below at_least_once. As the interval grows the commit cost is spread over more records and exactly_once approaches at_least_once: the gap left is the transaction overhead.',
  },
  recovery: {
    title: 'Recovery time by phase',
    definition: 't1 − t0 after one kill under steady load: detection, rebalance, fence/abort, restore, catch-up',
    read: 'Detection is set by session.timeout.ms and does not move with the interval; catch-up does, because the survivors must redo everything since the last commit and then commit it. The longer the interval, the more work a failure throws away.',
  },
  latency: {
    title: 'End-to-end latency',
    definition: 'input append → output visible to a read_committed consumer, steady load; p50 solid, p99 dotted',
    read: 'Under exactly_once a record becomes visible only when its transaction commits, so latency tracks the commit interval (p50 about half of it, p99 about all of it). Under at_least_once output is visible as soon as it is written, whatever the interval.',
  },
  tradeoff: {
    title: 'Trade-off',
    definition: 'median throughput (y) against median recovery time (x); each point is one commit.interval.ms',
    read: 'Moving right along a line buys throughput with recovery time (and, for exactly_once, latency). There is no best point, only the one whose price you can afford.',
  },
  duplicates: {
    title: 'Duplicates per kill',
    definition: 'at_least_once: committed output records whose provenance appears more than once, after one kill (validator)',
    read: 'At-least-once replays everything after the last committed offset, and each replayed record that had already produced output is a duplicate. So duplicates grow in proportion to the interval (times the input rate); exactly_once stays at zero.',
  },
} as const
