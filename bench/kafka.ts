// npm run bench:kafka — processed throughput on the local Kafka broker (scripts/kafka-broker.sh) at
// commit.interval.ms 10, 100 and 1000: eoscope (3 worker processes on 6 partitions) under
// at_least_once, exactly_once and exactly_once_v2, and beside it the Kafka Streams yardstick
// (bench/kafka-streams: Kafka Streams 4.1 doing the same job with 3 stream threads) under
// at_least_once and exactly_once_v2, when java and mvn are here (otherwise its rows say
// "skipped: no java/mvn"). The five alternate within each repetition, each on a fresh application
// id and freshly written input of the same size, so they are measured side by side under the same
// machine load. Median of N runs with min and max, eoscope/Kafka Streams, and each engine's
// transaction overhead as docs/measures.md defines it, and the CPU time each record cost the engine's
// processes and the local broker over the same window (bench/process-cpu.ts). Writes
// bench/results/kafka.json; exits 1 when a run failed (recorded in its row with the reason).
// Flags: --brokers HOST:PORT (default KAFKA_BROKERS or 127.0.0.1:19092), --intervals 10,100,1000,
// --records 300000 (one per interval, or one for all: the window must span many commit intervals,
// since committed offsets advance in steps of one), --runs N (default 3), --bound-s S (default 180:
// a run not caught up by then fails), --warmup-records N (default 300000: one unmeasured run of
// every contender first; 0 for none), --contenders ENGINE/GUARANTEE,... (default all five, e.g.
// eoscope/exactly_once_v2,kafka-streams/exactly_once_v2), --out FILE (default bench/results/kafka.json),
// --hogs N (default 0: busy-looping processes beside every run, to see it complete on a loaded machine).
//
// How a run is measured (bench/kafka-window.ts): the engine runs on a backlog (the input written
// before it starts); the group's committed input offsets are sampled every 50 ms, and the window
// runs from the first sample at or past 10% of the records (every partition owned: no start-up
// rebalance inside it) to the first at or past 90%. Both engines' output then goes through the
// validator: a run that loses records, or duplicates under exactly-once, fails.

import { defaultStreamsConfig, type ProcessingGuarantee } from '../lib/streams-config.ts'
import { coresTaken, HOGS_WHAT, hogsFlag, hogsRampUp, startCpuHogs } from './cpu-hogs.ts'
import { checkFlags, flag } from './figures.ts'
import { PARTITIONS, type RunPlan, runEoscope, WORKERS } from './kafka-eoscope.ts'
import { type Engine, printSummary, type Row, rowOf, skippedRow, writeKafkaResult } from './kafka-report.ts'
import { KAFKA_STREAMS_VERSION, prepareYardstick } from './kafka-streams-build.ts'
import { JAVA_OPTS, runKafkaStreams } from './kafka-streams-runner.ts'
import { recorded, type RunRecord, type RunResult } from './kafka-window.ts'

checkFlags(
  [
    'npm run bench:kafka -- [flags]: eoscope against Kafka Streams on the local broker (scripts/kafka-broker.sh start)',
    '  --brokers HOST:PORT          default KAFKA_BROKERS or 127.0.0.1:19092',
    '  --intervals MS,MS            commit.interval.ms values, default 10,100,1000',
    '  --records N[,N]              records per run, one per interval or one for all, default 300000',
    '  --runs N                     alternating repetitions, default 3',
    '  --bound-s S                  a run not caught up by then fails, default 180',
    '  --warmup-records N           one unmeasured run of every contender first, default 300000 (0: none)',
    '  --contenders E/G,E/G         which to run, default all five: ' +
      'eoscope/{at_least_once,exactly_once,exactly_once_v2}, kafka-streams/{at_least_once,exactly_once_v2}',
    '  --out FILE                   default bench/results/kafka.json',
    '  --hogs N                     busy-looping processes beside every run, to see it complete on a loaded ' +
      'machine (default 0)',
  ].join('\n'),
  ['brokers', 'intervals', 'records', 'runs', 'bound-s', 'warmup-records', 'contenders', 'out', 'hogs'],
)
const brokers = flag('brokers', process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(',')
const runs = Number(flag('runs', '3'))
const intervals = flag('intervals', '10,100,1000').split(',').map(Number)
const recordCounts = flag('records', '300000').split(',').map(Number)
const recordsFor = (i: number) => recordCounts[Math.min(i, recordCounts.length - 1)]!
const boundMs = Number(flag('bound-s', '180')) * 1000
const warmupRecords = Number(flag('warmup-records', '300000'))
const hogCount = hogsFlag(0)

/** What bounds the figures: the mechanism, whatever the figures of a given machine. */
const NOTES = [
  'eoscope exactly_once on Kafka is one transactional producer per task (transactional.id = application.id + ' +
    'task id): 6 tasks on 3 workers means 2 transactions per worker per commit, fenced by producer epoch. ' +
    'eoscope exactly_once_v2 is one transactional producer per worker, its offsets committed with the group ' +
    'generation and member id (TxnOffsetCommit v3, KIP-447), fenced by group generation: one transaction per ' +
    'worker per commit, as in Kafka Streams. at_least_once sends through one idempotent producer per worker and ' +
    'commits all its offsets in one OffsetCommit.',
  'Each transaction costs broker round trips that at_least_once does not pay: AddPartitionsToTxn at its first ' +
    'send, AddOffsetsToTxn and TxnOffsetCommit, and EndTxn, after which the coordinator writes a marker to every ' +
    'partition in it (output, changelog, __consumer_offsets). A transaction adds all the partitions of a send in ' +
    'one AddPartitionsToTxn (patched kafkajs), and an eoscope worker under exactly_once ends the transactions of ' +
    'its tasks all at once, each on its own producer; it neither polls nor processes meanwhile, so the fixed ' +
    'cost per commit is about 4 round trips; its share falls as commit.interval.ms grows. An overhead that does ' +
    'not fall from 10 ms to 1000 ms is bound by something else than this fixed cost.',
  "eoscope's workers produce through kafkajs 2.2.4 with patches/kafkajs+2.2.4.patch applied (the kafkajs field " +
    "lists any patched file an install lacks): it mends the produce path's hot spots (grouping a call's messages " +
    'by partition was quadratic in them; a temporary array and Buffer per varint; a Long per timestamp delta; a ' +
    "zero-filled 512-byte buffer per record; the batch's timestamps sorted as strings; each string key and value " +
    'measured twice; an encoder per record and per header, copied layer by layer into the request, where the ' +
    'record batch is now written in one pass into one buffer of its exact size; CRC-32C a byte at a time, now ' +
    'eight) and of the fetch path (a slice and a Decoder per fetched record, and Longs parsed from strings for ' +
    "every record's offset and timestamp and for the batch's offset filter), the bytes on the wire and the " +
    'messages handed out unchanged. Before it, a profile of a worker under at_least_once showed most of its CPU ' +
    'in those spots and in the garbage they made.',
  'Costs that do not shrink with the commit interval: kafkajs idempotent and transactional producers run with ' +
    'maxInFlightRequests 1, and under eoscope exactly_once each task sends its own produce request per batch ' +
    '(two per worker here); read_committed fetches; and larger transactions at longer intervals.',
  'transactionsPerRun: for eoscope, the transactions its workers ended (committed or aborted); a worker checks ' +
    'the commit interval only after each poll batch (max.poll.records = 1000), so at 10 and 100 ms it is about ' +
    "one per batch and 10 ms is not a 10 ms commit cadence. For Kafka Streams, the stream threads' commit-total " +
    '(one transaction per commit under exactly_once_v2), 0 under at_least_once.',
  'The Kafka Streams yardstick (bench/kafka-streams) is Kafka Streams 4.1 with the Processor API: per key ' +
    'count, sum, min and max in an in-memory store with its changelog (<application.id>-aggregates-changelog), ' +
    "no record cache (statestore.cache.max.bytes 0), one output record per input record, values in eoscope's " +
    "JSON with the input partition and offset as provenance, so eoscope's validator checks its output and " +
    "changelog as it checks eoscope's; 3 stream threads in one JVM, consumer group = application.id, " +
    "at_least_once or exactly_once_v2 and commit.interval.ms as given, every other setting Kafka Streams' " +
    'default. It is settled (its window may open) once it reports RUNNING with all 6 tasks active; its committed ' +
    "offsets are fetched from the broker every 50 ms, where eoscope's also come from its workers' commit events.",
  'The broker, the engines and the load generator share the same machine (2 cores here): the coordinator work ' +
    'for transactions (markers, transaction log writes) competes with the engines for CPU, which a separate ' +
    'broker machine would not. The load average before and after each run is in its row.',
  'A negative or near-zero overhead (exactly-once as fast as at_least_once or faster) means the difference is ' +
    'inside the run-to-run spread at that interval (min and max beside each median), not that transactions are ' +
    'free.',
  'Single runs vary by tens of percent on a shared machine; the medians of alternating runs are the figures to ' +
    'read, with min and max beside them. A run that did not catch up within the bound, or whose output failed ' +
    "the validator, is in its row's failures with the reason and is left out of the median; it is never counted " +
    'as 0.',
  'cpuPerRecordUs counts work, not waiting: the CPU time (user + system, from /proc/<pid>/stat, garbage ' +
    "collector and JIT threads included) the engine's processes and the broker used between the window's two " +
    'marks, per record committed between them. With broker and engines on one 2-core machine, throughput is ' +
    'bound by it: records/s can be at most about 2 cores / (engine + broker CPU per record). It moves less with ' +
    "the machine's load than throughput does, but it moves too (shared caches and cores under contention), so it " +
    "is a spread like the others. A JVM compiles its hot code during the first seconds of a run: Kafka Streams' " +
    'CPU per record falls as it warms up, so a short window flatters eoscope against it; more --records give a ' +
    'figure nearer its steady state.',
  'The whole input is written before the engine starts (prefill), so it runs on a backlog and the load ' +
    'generator does not compete with it for the CPU; the window opens once every partition is owned and 10% of ' +
    "the records are committed, and closes at 90%, so the group's formation and the JVM start are not inside it.",
]

interface Contender {
  engine: Engine
  guarantee: ProcessingGuarantee
  /** How to run it; a string says why it is skipped. */
  run: ((plan: RunPlan) => Promise<RunResult>) | string
}

const yardstick = prepareYardstick()
const streamsRun =
  yardstick.ready === 'yes' ? (plan: RunPlan) => runKafkaStreams(yardstick.classPath, plan) : yardstick.reason
const contenders: Contender[] = [
  { engine: 'eoscope', guarantee: 'at_least_once', run: runEoscope },
  { engine: 'eoscope', guarantee: 'exactly_once', run: runEoscope },
  { engine: 'eoscope', guarantee: 'exactly_once_v2', run: runEoscope },
  { engine: 'kafka-streams', guarantee: 'at_least_once', run: streamsRun },
  { engine: 'kafka-streams', guarantee: 'exactly_once_v2', run: streamsRun },
]
const chosen = flag('contenders', contenders.map((c) => `${c.engine}/${c.guarantee}`).join(',')).split(',')
const unknownContenders = chosen.filter((name) => !contenders.some((c) => `${c.engine}/${c.guarantee}` === name))
if (unknownContenders.length > 0) {
  process.stderr.write(
    `unknown contender ${unknownContenders.join(', ')}; the contenders are ` +
      `${contenders.map((c) => `${c.engine}/${c.guarantee}`).join(', ')}\n`,
  )
  process.exit(2)
}
contenders.splice(0, contenders.length, ...contenders.filter((c) => chosen.includes(`${c.engine}/${c.guarantee}`)))
const outFile = flag('out', 'bench/results/kafka.json')
if (yardstick.ready === 'no') process.stdout.write(`Kafka Streams yardstick ${yardstick.reason}\n`)

const hogs = startCpuHogs(hogCount)
await hogsRampUp(hogs)
const hogsStart = { cpu: hogs.cpuSeconds(), at: Date.now() }

// One unmeasured run of every contender first: without it each contender's first run was its
// slowest (eoscope at_least_once 133.8k against 282.5k and 306.8k records/s), the first work of a
// freshly started broker whose JVM compiles its hot code meanwhile, and the first contender paid for
// it alone.
const warmUp: { engine: Engine; guarantee: ProcessingGuarantee; outcome: string }[] = []
for (const contender of contenders) {
  if (warmupRecords <= 0 || typeof contender.run === 'string') continue
  const run = contender.run
  const r = await recorded(() =>
    run({
      brokers,
      guarantee: contender.guarantee,
      commitIntervalMs: intervals[0]!,
      records: warmupRecords,
      seed: 99,
      boundMs,
    }),
  )
  const outcome = 'failure' in r.outcome ? `failed: ${r.outcome.failure}` : `${r.outcome.throughputPerSec} rec/s`
  warmUp.push({ engine: contender.engine, guarantee: contender.guarantee, outcome })
  process.stdout.write(`warm-up ${contender.engine} ${contender.guarantee}: ${outcome} (not measured)\n`)
}

const rows: Row[] = []
for (const [index, commitIntervalMs] of intervals.entries()) {
  const records = recordsFor(index)
  const samples = contenders.map((): RunRecord[] => [])
  for (let i = 0; i < runs; i++) {
    for (const [c, contender] of contenders.entries()) {
      if (typeof contender.run === 'string') continue
      const run = contender.run
      const r = await recorded(() =>
        run({ brokers, guarantee: contender.guarantee, commitIntervalMs, records, seed: i + 1, boundMs }),
      )
      samples[c]!.push(r)
      const what =
        'failure' in r.outcome
          ? `FAILED: ${r.outcome.failure}`
          : `${r.outcome.throughputPerSec} rec/s over ${r.outcome.windowMs} ms`
      process.stdout.write(
        `${String(commitIntervalMs).padStart(5)} ms  ${contender.engine.padEnd(13)} ` +
          `${contender.guarantee.padEnd(15)} run ${i + 1}: ${what} (load ${r.loadBefore[0]} -> ${r.loadAfter[0]})\n`,
      )
    }
  }
  for (const [c, { engine, guarantee, run }] of contenders.entries()) {
    rows.push(
      typeof run === 'string'
        ? skippedRow(engine, guarantee, commitIntervalMs, records, runs, run)
        : rowOf(engine, guarantee, commitIntervalMs, records, runs, samples[c]!),
    )
  }
}

const hogsTook = coresTaken(hogsStart.cpu, hogs.cpuSeconds(), Date.now() - hogsStart.at)
hogs.stop()
printSummary(rows, intervals)
writeKafkaResult(outFile, rows, intervals, {
  brokers,
  workers: WORKERS,
  partitions: PARTITIONS,
  maxPollRecords: defaultStreamsConfig('exactly_once')['max.poll.records'],
  kafkaStreams:
    yardstick.ready === 'yes'
      ? {
          version: KAFKA_STREAMS_VERSION,
          java: yardstick.java,
          javaOptions: JAVA_OPTS,
          streamThreads: WORKERS,
          application: 'bench/kafka-streams',
        }
      : { version: KAFKA_STREAMS_VERSION, skipped: yardstick.reason },
  warmUp: {
    definition:
      `one unmeasured run of every contender, ${warmupRecords} records at the first interval, before the ` +
      `measured runs (--warmup-records; 0 for none): it warms the broker's JVM, which otherwise made each ` +
      `contender's first measured run its slowest`,
    records: warmupRecords,
    runs: warmUp,
  },
  notes: NOTES,
  ...(hogCount > 0
    ? {
        hogs: {
          count: hogCount,
          what: HOGS_WHAT,
          coresTaken: hogsTook,
          note:
            'the runs shared the machine with these hogs: their figures say whether the engines complete on a ' +
            'loaded machine, not how fast they are',
        },
      }
    : {}),
})
const failed = rows.reduce((n, r) => n + r.failures.length, 0)
if (failed > 0) process.stderr.write(`${failed} run(s) failed: see the failures in ${outFile}\n`)
process.exit(failed > 0 ? 1 : 0)
