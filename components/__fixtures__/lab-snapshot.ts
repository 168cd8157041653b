// A representative LabSnapshot for component tests: three workers (one killed and recovered),
// six tasks, a minute of chart points, transactions of every outcome and a recovery in progress.

import type { PartitionRow } from '../../lib/partition-table.ts'
import type {
  ChartPoint,
  DuplicateLedgerEntry,
  LabSnapshot,
  LogCell,
  PartitionLogView,
  ProducerTimeline,
  RecordTrace,
  ScenarioView,
  TaskView,
  TxnView,
} from '../../lib/lab-protocol.ts'

const T0 = 1_764_400_000_000

function tasks(): TaskView[] {
  return Array.from({ length: 6 }, (_, p) => ({
    taskId: `0_${p}`,
    partition: p,
    workerId: `worker-${(p % 2) + 1}`,
    state: p === 4 ? 'restoring' : 'running',
    steps: {
      consumed: 12_000 + p * 10,
      processed: 11_990 + p * 10,
      produced: 11_980 + p * 10,
      acked: 11_970 + p * 10,
      committed: 11_900 + p * 10,
    },
    position: 12_000 + p * 10,
    committedOffset: p === 5 ? null : 11_900 + p * 10,
    lag: 100 + p,
  }))
}

function series(): ChartPoint[] {
  return Array.from({ length: 60 }, (_, i) => ({
    t: T0 + i * 1000,
    processedPerSec: 1000 + (i % 7) * 20,
    visibleOutputPerSec: 990 + (i % 5) * 20,
    latencyP50Ms: 60 + (i % 3),
    latencyP99Ms: i === 30 ? null : 140 + (i % 4) * 5,
    latencyMaxMs: i === 30 ? null : 210 + (i % 6) * 10,
  }))
}

function transactions(): TxnView[] {
  const out: TxnView[] = []
  for (let i = 0; i < 12; i++) {
    const outcome = i === 11 ? 'open' : i === 4 ? 'aborted' : 'committed'
    out.push({
      id: `txn-${100 + i}`,
      transactionalId: `eoscope-0_${i % 3}`,
      producerId: 1000 + (i % 3),
      epoch: i === 4 ? 1 : 2,
      partitions: ['output-0', 'eoscope-aggregates-changelog-0'],
      outputRecords: 95 + i,
      changelogRecords: 95 + i,
      offsetsCommitted: 1,
      beginMs: T0 + 50_000 + i * 800,
      endMs: outcome === 'open' ? null : T0 + 50_000 + i * 800 + 100,
      outcome,
      abortReason: outcome === 'aborted' ? 'fenced' : null,
    })
  }
  return out
}

function traces(): RecordTrace[] {
  return [
    {
      id: 'r-1',
      key: 'k7',
      partition: 0,
      offset: 11_999,
      workerId: 'worker-1',
      steps: [
        { step: 1, atMs: T0 + 59_000 },
        { step: 2, atMs: T0 + 59_010 },
      ],
      crashedAtStep: null,
      outcome: 'in-flight',
    },
    {
      id: 'r-2',
      key: 'k3',
      partition: 1,
      offset: 12_005,
      workerId: 'worker-2',
      steps: [1, 2, 3, 4, 5].map((s) => ({ step: s as 1, atMs: T0 + 58_000 + s * 20 })),
      crashedAtStep: null,
      outcome: 'committed',
    },
    {
      id: 'r-3',
      key: 'k1',
      partition: 4,
      offset: 12_031,
      workerId: 'worker-3',
      steps: [1, 2, 3].map((s) => ({ step: s as 1, atMs: T0 + 58_500 + s * 20 })),
      crashedAtStep: 3,
      outcome: 'aborted',
    },
  ]
}

/**
 * output-0 around a kill: committed transactions of 6 records and a COMMIT marker each, one
 * aborted by the fence (ABORT marker), a non-transactional record, and an open transaction at the end.
 */
function partitionLog(): PartitionLogView {
  const cells: LogCell[] = []
  let offset = 4_000
  let seq = 0
  const txn = (producerId: number, epoch: number, records: number, outcome: 'committed' | 'aborted' | 'pending') => {
    for (let i = 0; i < records; i++) {
      cells.push({
        offset,
        key: `k${offset % 9}`,
        producerId,
        epoch,
        sequence: seq++,
        control: null,
        outcome,
        source: { partition: 0, offset: 11_000 + offset - 4_000 },
      })
      offset++
    }
    if (outcome !== 'pending')
      cells.push({
        offset: offset++,
        key: null,
        producerId,
        epoch,
        sequence: -1,
        control: outcome === 'committed' ? 'COMMIT' : 'ABORT',
        outcome,
        source: null,
      })
  }
  for (let t = 0; t < 10; t++) txn(1000, 2, 6, 'committed')
  txn(1000, 2, 5, 'aborted')
  cells.push({
    offset: offset++,
    key: 'k0',
    producerId: -1,
    epoch: -1,
    sequence: -1,
    control: null,
    outcome: null,
    source: null,
  })
  for (let t = 0; t < 5; t++) txn(1000, 3, 6, 'committed')
  txn(1000, 3, 4, 'pending')
  const lastStableOffset = offset - 4
  return {
    topic: 'output',
    partition: 0,
    logStartOffset: 0,
    lastStableOffset,
    highWatermark: offset,
    cells: cells.slice(-120),
    readCommittedPosition: lastStableOffset,
    readUncommittedPosition: offset,
  }
}

/**
 * Every partition of a 6-partition lab: input with lag (one not committed yet), output-0 as the partition log
 * shows it (an open transaction), a changelog partition held by a producer the lab does not know, the group's
 * offsets partition.
 */
function partitions(): PartitionRow[] {
  const log = partitionLog()
  const rows: PartitionRow[] = []
  for (let p = 0; p < 6; p++) {
    const hw = 12_000 + p * 10
    const committed = p === 5 ? null : 11_900 + p * 10
    rows.push({
      topic: 'input',
      partition: p,
      role: 'input',
      logStartOffset: 0,
      lastStableOffset: hw,
      highWatermark: hw,
      open: { count: 0, holders: [] },
      committed,
      lag: committed === null ? null : hw - committed,
    })
  }
  for (let p = 0; p < 6; p++) {
    if (p === 0) {
      rows.push({
        topic: 'output',
        partition: 0,
        role: 'output',
        logStartOffset: log.logStartOffset,
        lastStableOffset: log.lastStableOffset,
        highWatermark: log.highWatermark,
        open: {
          count: 1,
          holders: [{ producerId: 1000, epoch: 3, transactionalId: 'eoscope-0_0', firstOffset: log.lastStableOffset }],
        },
      })
    } else
      rows.push({
        topic: 'output',
        partition: p,
        role: 'output',
        logStartOffset: 0,
        lastStableOffset: 11_000 + p,
        highWatermark: 11_000 + p,
        open: { count: 0, holders: [] },
      })
  }
  for (let p = 0; p < 6; p++) {
    const open: PartitionRow['open'] =
      p === 3
        ? {
            count: 2,
            holders: [
              { producerId: 1001, epoch: 2, transactionalId: 'eoscope-0_1', firstOffset: 8_010 },
              { producerId: 1207, epoch: 0, transactionalId: null, firstOffset: 8_014 },
            ],
          }
        : p === 4
          ? { count: 1, atLeast: true, holders: [] }
          : { count: 0, holders: [] }
    rows.push({
      topic: 'changelog',
      partition: p,
      role: 'changelog',
      logStartOffset: 2_000 + p,
      lastStableOffset: 8_010 + p,
      highWatermark: 8_020 + p,
      open,
    })
    if (open.count === 0) rows[rows.length - 1]!.lastStableOffset = rows[rows.length - 1]!.highWatermark
  }
  rows.push({
    topic: '__consumer_offsets',
    partition: 0,
    role: 'offsets',
    logStartOffset: 0,
    lastStableOffset: 3_400,
    highWatermark: 3_403,
    open: { count: 1, holders: [{ producerId: 1000, epoch: 3, transactionalId: 'eoscope-0_0', firstOffset: 3_400 }] },
  })
  return rows
}

function producers(): ProducerTimeline[] {
  return [
    {
      transactionalId: 'eoscope-0_0',
      producerId: 1000,
      epochs: [
        { epoch: 0, atMs: T0 + 1_000 },
        { epoch: 1, atMs: T0 + 20_500 },
        { epoch: 2, atMs: T0 + 41_300 },
      ],
      fencings: [{ atMs: T0 + 41_300, reason: 'epoch 1 fenced by initTransactions of worker-1 (epoch 2)' }],
      lastSequence: [
        { partition: 'output-0', sequence: 5_811 },
        { partition: 'eoscope-aggregates-changelog-0', sequence: 5_790 },
      ],
    },
    {
      transactionalId: 'eoscope-0_1',
      producerId: 1001,
      epochs: [{ epoch: 0, atMs: T0 + 1_000 }],
      fencings: [],
      lastSequence: [{ partition: 'output-1', sequence: 6_020 }],
    },
  ]
}

function duplicateLedger(): DuplicateLedgerEntry[] {
  return [
    { key: 'k4', duplicates: 3, doubleApplied: 3, causes: ['kill worker-3 (rec-1)'] },
    {
      key: 'k1',
      duplicates: 1,
      doubleApplied: 0,
      causes: ['retried produce after a lost ack (producer 1002, sequence 311)'],
    },
  ]
}

const scenarioRun: ScenarioView = {
  name: 'crash-before-commit-eos',
  title: 'Crash before commit, exactly_once',
  summary:
    'Output, changelog and offsets are one transaction. The crash leaves it open; the new owner fences it (ABORT ' +
    'markers), restores state from the committed changelog and redoes the records: nothing is visible twice.',
  status: 'passed',
  narrative: [
    { atMs: 0, text: 'Three workers under exactly_once, commit.interval.ms=1000.' },
    { atMs: 1_800, text: 'worker-2 dies after step 4 (broker ack), before step 5 (commit offsets).' },
    { atMs: 4_900, text: 'The new owner fenced the open transaction: 1 ABORT marker per partition it touched.' },
  ],
  expectations: [
    { claim: 'at least 1 transaction aborted', holds: true },
    { claim: '0 duplicates', holds: true },
    { claim: '0 state mismatches', holds: true },
  ],
  conclusion:
    'The crash aborted its open transaction; nothing it wrote became visible, and the redone records were written ' +
    'once.',
  error: null,
  startedAtMs: T0 + 30_000,
}

export const fixtureSnapshot: LabSnapshot = {
  seq: 600,
  atMs: T0 + 60_000,
  startedAtMs: T0,
  backend: 'embedded',
  notes: ['exactly_once_v2 runs on the embedded log with group-generation fencing (KIP-447).'],
  config: {
    'processing.guarantee': 'exactly_once',
    'commit.interval.ms': 100,
    'transaction.timeout.ms': 10_000,
    'session.timeout.ms': 1_000,
    'enable.idempotence': true,
    inputRatePerSec: 1000,
    workers: 3,
    partitions: 6,
    latencyModel: 'default',
    'default.deserialization.exception.handler': 'log-and-continue',
  },
  kafkaStreamsDefaults: {
    commitIntervalMs: { at_most_once: 30_000, at_least_once: 30_000, exactly_once: 100, exactly_once_v2: 100 },
  },
  workers: [
    {
      id: 'worker-1',
      memberId: 'm-1',
      state: 'running',
      taskIds: ['0_0', '0_2', '0_4'],
      producers: [{ transactionalId: 'eoscope-0_0', producerId: 1000, epoch: 2 }],
      startedAtMs: T0,
    },
    {
      id: 'worker-2',
      memberId: 'm-2',
      state: 'paused',
      taskIds: ['0_1', '0_3', '0_5'],
      producers: [{ transactionalId: 'eoscope-0_1', producerId: 1001, epoch: 2 }],
      startedAtMs: T0,
    },
    { id: 'worker-3', memberId: null, state: 'killed', taskIds: [], producers: [], startedAtMs: T0 },
  ],
  tasks: tasks(),
  series: series(),
  markers: [
    { t: T0 + 20_000, kind: 'config', label: 'exactly_once' },
    { t: T0 + 40_000, kind: 'kill', label: 'kill worker-3' },
    { t: T0 + 41_000, kind: 'rebalance', label: 'rebalance' },
  ],
  transactions: transactions(),
  txnTotals: { committed: 540, aborted: 3, open: 1 },
  recoveries: [
    {
      id: 'rec-1',
      workerId: 'worker-3',
      guarantee: 'exactly_once',
      t0: T0 + 40_000,
      t1: T0 + 42_400,
      recoveryMs: 2400,
      phases: { detection: 1000, rebalance: 300, fence: 150, restore: 650, catchUp: 300 },
      phaseEnds: {
        detection: T0 + 41_000,
        rebalance: T0 + 41_300,
        fence: T0 + 41_450,
        restore: T0 + 42_100,
        catchUp: T0 + 42_400,
      },
      partitions: [4, 5],
      redone: 180,
      duplicates: 0,
    },
    {
      id: 'rec-2',
      workerId: 'worker-4',
      guarantee: 'exactly_once',
      t0: T0 + 58_000,
      t1: null,
      recoveryMs: null,
      phases: { detection: 1000, rebalance: 250, fence: null, restore: null, catchUp: null },
      phaseEnds: { detection: T0 + 59_000, rebalance: T0 + 59_250, fence: null, restore: null, catchUp: null },
      partitions: [2],
      redone: 40,
      duplicates: null,
    },
  ],
  correctness: {
    duplicates: 0,
    lost: 0,
    abortedReads: 0,
    abortedReadsUncommitted: 212,
    stateMismatches: 0,
    openTransactions: 1,
    allowed: {
      duplicates: 'exactly_once: must be 0',
      lost: 'must be 0 under every guarantee',
      abortedReads: 'must be 0 (read_committed)',
      stateMismatches: 'exactly_once: must be 0',
      openTransactions: 'may be open while running; 0 when the run has finished',
    },
    duplicateKeys: [],
    checkedAtMs: T0 + 59_500,
    inputChecked: 71_900,
  },
  traces: traces(),
  partitionLog: partitionLog(),
  producers: producers(),
  duplicateLedger: duplicateLedger(),
  partitions: partitions(),
  scenario: scenarioRun,
  scenarios: [
    {
      name: 'crash-before-commit',
      title: 'Crash before commit, at_least_once',
      summary:
        'A worker dies between step 4 (broker ack) and step 5 (commit offsets). The next owner starts from the last ' +
        'committed offset and redoes the records: duplicates and inflated counts.',
    },
    { name: scenarioRun.name, title: scenarioRun.title, summary: scenarioRun.summary },
  ],
  totals: { inputRecords: 72_000, committedInput: 71_900, outputRecords: 71_950, kills: 1, droppedAcks: 0, fenced: 1 },
}

/** The fixture under at_least_once after a kill: duplicates counted. */
export const fixtureAtLeastOnce: LabSnapshot = {
  ...fixtureSnapshot,
  config: {
    ...fixtureSnapshot.config,
    'processing.guarantee': 'at_least_once',
    'commit.interval.ms': 1000,
    'enable.idempotence': false,
  },
  correctness: { ...fixtureSnapshot.correctness!, duplicates: 37, stateMismatches: 12, duplicateKeys: ['k1', 'k4'] },
}

/** The Kafka backend during a broker outage: what it cannot do, and the cluster unreachable for 12 s. */
export const fixtureKafkaOutage: LabSnapshot = {
  ...fixtureSnapshot,
  backend: 'kafka',
  applicationId: 'eoscope-lab-mx1abc',
  notes: [
    'The cluster (127.0.0.1:19092) does not answer since 2026-01-01T00:00:48.000Z: Connection error: connect ' +
      'ECONNREFUSED 127.0.0.1:19092. Workers retry; figures resume when it is back.',
    'Workers are operating-system processes (eoscope worker): kill is SIGKILL, pause is SIGSTOP and resume SIGCONT.',
  ],
  unavailable: {
    exactlyOnceV2:
      'exactly_once_v2 is unavailable on the Kafka backend: it needs the consumer group generation and member id on ' +
      'the transactional offset commit (KIP-447, TxnOffsetCommit v3)',
    dropAcks:
      'dropping an ack is unavailable on the Kafka backend: a real broker cannot be made to drop a produce ' +
      'acknowledgement',
    scenarios: 'guided scenarios run on the embedded log',
  },
  health: {
    reachable: false,
    sinceMs: T0 + 48_000,
    error: 'Connection error: connect ECONNREFUSED 127.0.0.1:19092',
    outages: 1,
    lastOutage: null,
  },
  workers: fixtureSnapshot.workers.map((w, i) => ({ ...w, pid: 4000 + i, host: 'node-a', remote: i === 2 })),
  scenarios: [],
  scenario: null,
}
