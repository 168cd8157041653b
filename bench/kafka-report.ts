// What bench:kafka reports: one row per engine, guarantee and commit interval (the median of the
// completed runs with min and max, each run's window, transactions, load average and failure), then
// per interval eoscope/Kafka Streams and each engine's transaction overhead, and the notes that say
// what bounds the figures. Writes bench/results/kafka.json.

import { cpus } from 'node:os'
import type { ProcessingGuarantee } from '../lib/streams-config.ts'
import { type Spread, spread, writeResult } from './figures.ts'
import type { RunRecord, Validated } from './kafka-window.ts'
import { KAFKAJS_PATCH, kafkajsPatchesMissing } from '../server/log/kafka/kafkajs-patches.ts'
import { createRequire } from 'node:module'

const KAFKAJS_VERSION = (createRequire(import.meta.url)('kafkajs/package.json') as { version: string }).version

export type Engine = 'eoscope' | 'kafka-streams'

export interface Row {
  engine: Engine
  guarantee: ProcessingGuarantee
  commitIntervalMs: number
  records: number
  /** Repetitions asked for; the spread is over those that completed. */
  runs: number
  /** Over the completed runs; null when none completed (see failures) or the engine was skipped. */
  throughputPerSec: Spread | null
  /** Each repetition's throughput in run order, null where that run failed (for figures paired by repetition). */
  throughputPerRun: (number | null)[]
  windowMs: number[]
  /**
   * Microseconds of CPU time per record committed in the window, over the completed runs that could tell (null: none
   * could): the engine's own processes, and the local broker.
   */
  cpuPerRecordUs: { engine: Spread | null; broker: Spread | null }
  transactionsPerRun: (number | null)[]
  /** The validator's figures of each completed run (both engines' topics, read_committed). */
  validatedPerRun: Validated[]
  /** os.loadavg() (1, 5, 15 min) before and after each run, in run order. */
  loadAverage: { before: number[][]; after: number[][] }
  /** Runs that did not complete, with the reason (never counted as a throughput of 0). */
  failures: { run: number; reason: string }[]
  /** Why this engine did not run at all (e.g. no java/mvn). */
  skipped?: string
}

/**
 * The median of an even count is the mean of two samples: rounded, so 5.16 and 5.15 give 5.155, not 5.154999999999999.
 */
const round4 = (n: number) => Number(n.toFixed(4))

const spreadOfKnown = (xs: (number | null)[]): Spread | null => {
  const known = xs.filter((x): x is number => x !== null)
  return known.length > 0 ? spread(known, round4) : null
}

export function rowOf(
  engine: Engine,
  guarantee: ProcessingGuarantee,
  commitIntervalMs: number,
  records: number,
  runs: number,
  records$: RunRecord[],
): Row {
  const done = records$.flatMap((r) => ('failure' in r.outcome ? [] : [r.outcome]))
  return {
    engine,
    guarantee,
    commitIntervalMs,
    records,
    runs,
    throughputPerSec: done.length > 0 ? spread(done.map((d) => d.throughputPerSec)) : null,
    throughputPerRun: records$.map((r) => ('failure' in r.outcome ? null : r.outcome.throughputPerSec)),
    windowMs: done.map((d) => d.windowMs),
    cpuPerRecordUs: {
      engine: spreadOfKnown(done.map((d) => d.cpuPerRecordUs.engine)),
      broker: spreadOfKnown(done.map((d) => d.cpuPerRecordUs.broker)),
    },
    transactionsPerRun: done.map((d) => d.transactions),
    validatedPerRun: done.map((d) => d.validated),
    loadAverage: { before: records$.map((r) => r.loadBefore), after: records$.map((r) => r.loadAfter) },
    failures: records$.flatMap((r, i) => ('failure' in r.outcome ? [{ run: i + 1, reason: r.outcome.failure }] : [])),
  }
}

export function skippedRow(
  engine: Engine,
  guarantee: ProcessingGuarantee,
  commitIntervalMs: number,
  records: number,
  runs: number,
  reason: string,
): Row {
  return { ...rowOf(engine, guarantee, commitIntervalMs, records, runs, []), skipped: reason }
}

/** Which spread of a row a figure is taken from. */
type Figure = (r: Row) => Spread | null
const throughputOf: Figure = (r) => r.throughputPerSec

const medianOf = (
  rows: Row[],
  engine: Engine,
  guarantee: ProcessingGuarantee,
  commitIntervalMs: number,
  figure: Figure = throughputOf,
): number | null => {
  const row = rows.find(
    (r) => r.engine === engine && r.guarantee === guarantee && r.commitIntervalMs === commitIntervalMs,
  )
  return row ? (figure(row)?.median ?? null) : null
}

const ratio = (a: number | null, b: number | null): number | null =>
  a === null || b === null || b === 0 ? null : Number((a / b).toFixed(3))
/** docs/measures.md's transaction overhead: 1 - exactly-once median / at_least_once median. */
const overheadOf = (eos: number | null, alos: number | null): number | null =>
  eos === null || alos === null || alos === 0 ? null : Number((1 - eos / alos).toFixed(3))

export interface IntervalFigures {
  commitIntervalMs: number
  /** Transaction overhead per engine and exactly-once mode, each named by its guarantee (no unnamed headline). */
  eoscope: { exactly_once: number | null; exactly_once_v2: number | null }
  kafkaStreams: { exactly_once_v2: number | null }
  /**
   * The same overhead within each repetition (1 - that repetition's exactly-once run / its
   * at_least_once run, measured one after the other), over the repetitions where both completed:
   * the spread a second benchmark's figure is to be read against.
   */
  byRepetition: {
    eoscope: { exactly_once: Spread | null; exactly_once_v2: Spread | null }
    kafkaStreams: { exactly_once_v2: Spread | null }
  }
}

const rowFor = (rows: Row[], engine: Engine, guarantee: ProcessingGuarantee, ms: number) =>
  rows.find((r) => r.engine === engine && r.guarantee === guarantee && r.commitIntervalMs === ms)

/** Each repetition's overhead of one engine's exactly-once row against its at_least_once row. */
function overheadByRepetition(rows: Row[], engine: Engine, guarantee: ProcessingGuarantee, ms: number): Spread | null {
  const eos = rowFor(rows, engine, guarantee, ms)?.throughputPerRun ?? []
  const alos = rowFor(rows, engine, 'at_least_once', ms)?.throughputPerRun ?? []
  return spreadOfKnown(eos.map((e, i) => overheadOf(e, alos[i] ?? null)))
}

export function overheads(rows: Row[], intervals: number[]): IntervalFigures[] {
  return intervals.map((ms) => {
    const alos = medianOf(rows, 'eoscope', 'at_least_once', ms)
    const eos = overheadOf(medianOf(rows, 'eoscope', 'exactly_once', ms), alos)
    const v2 = overheadOf(medianOf(rows, 'eoscope', 'exactly_once_v2', ms), alos)
    const ks = overheadOf(
      medianOf(rows, 'kafka-streams', 'exactly_once_v2', ms),
      medianOf(rows, 'kafka-streams', 'at_least_once', ms),
    )
    const byRepetition = {
      eoscope: {
        exactly_once: overheadByRepetition(rows, 'eoscope', 'exactly_once', ms),
        exactly_once_v2: overheadByRepetition(rows, 'eoscope', 'exactly_once_v2', ms),
      },
      kafkaStreams: { exactly_once_v2: overheadByRepetition(rows, 'kafka-streams', 'exactly_once_v2', ms) },
    }
    return {
      commitIntervalMs: ms,
      eoscope: { exactly_once: eos, exactly_once_v2: v2 },
      kafkaStreams: { exactly_once_v2: ks },
      byRepetition,
    }
  })
}

/**
 * eoscope median / Kafka Streams median of one figure: at_least_once against at_least_once,
 * both exactly-once modes against exactly_once_v2.
 */
function pairedRatios(rows: Row[], ms: number, figure: Figure) {
  const ksAlos = medianOf(rows, 'kafka-streams', 'at_least_once', ms, figure)
  const ksEos = medianOf(rows, 'kafka-streams', 'exactly_once_v2', ms, figure)
  return {
    at_least_once: ratio(medianOf(rows, 'eoscope', 'at_least_once', ms, figure), ksAlos),
    exactly_once: ratio(medianOf(rows, 'eoscope', 'exactly_once', ms, figure), ksEos),
    exactly_once_v2: ratio(medianOf(rows, 'eoscope', 'exactly_once_v2', ms, figure), ksEos),
  }
}

/** eoscope's throughput / Kafka Streams', paired as pairedRatios says. */
export function versusKafkaStreams(rows: Row[], intervals: number[]) {
  return intervals.map((ms) => ({ commitIntervalMs: ms, ...pairedRatios(rows, ms, throughputOf) }))
}

/**
 * eoscope's CPU per record / Kafka Streams' (above 1: eoscope spends more CPU on a record), paired
 * the same way; for the engine's processes, and for the broker serving it.
 */
export function cpuVersusKafkaStreams(rows: Row[], intervals: number[]) {
  return intervals.map((ms) => ({
    commitIntervalMs: ms,
    engine: pairedRatios(rows, ms, (r) => r.cpuPerRecordUs.engine),
    broker: pairedRatios(rows, ms, (r) => r.cpuPerRecordUs.broker),
  }))
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`)
const times = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2))

export function printSummary(rows: Row[], intervals: number[]): void {
  const vs = versusKafkaStreams(rows, intervals)
  for (const o of overheads(rows, intervals)) {
    const v = vs.find((x) => x.commitIntervalMs === o.commitIntervalMs)!
    process.stdout.write(
      `${o.commitIntervalMs} ms: overhead eoscope exactly_once ${pct(o.eoscope.exactly_once)}, exactly_once_v2 ` +
        `${pct(o.eoscope.exactly_once_v2)}, Kafka Streams exactly_once_v2 ${pct(o.kafkaStreams.exactly_once_v2)}; ` +
        `eoscope/Kafka Streams at_least_once ${times(v.at_least_once)}, exactly_once ${times(v.exactly_once)}, ` +
        `exactly_once_v2 ${times(v.exactly_once_v2)}\n`,
    )
    const range = (x: Spread | null) => (x === null ? 'n/a' : `${pct(x.median)} (${pct(x.min)} to ${pct(x.max)})`)
    const b = o.byRepetition
    process.stdout.write(
      `${o.commitIntervalMs} ms: overhead by repetition, median (min to max): eoscope exactly_once ` +
        `${range(b.eoscope.exactly_once)}, exactly_once_v2 ${range(b.eoscope.exactly_once_v2)}, Kafka Streams ` +
        `exactly_once_v2 ${range(b.kafkaStreams.exactly_once_v2)}\n`,
    )
  }
  for (const r of rows) {
    const cpu = r.cpuPerRecordUs
    if (cpu.engine || cpu.broker)
      process.stdout.write(
        `${r.engine} ${r.guarantee} ${r.commitIntervalMs} ms: CPU per record ${cpu.engine?.median ?? 'n/a'} us ` +
          `engine, ${cpu.broker?.median ?? 'n/a'} us broker (medians)\n`,
      )
    if (r.skipped) process.stdout.write(`${r.engine} ${r.guarantee} ${r.commitIntervalMs} ms: ${r.skipped}\n`)
    for (const f of r.failures)
      process.stdout.write(`${r.engine} ${r.guarantee} ${r.commitIntervalMs} ms run ${f.run} FAILED: ${f.reason}\n`)
  }
}

export interface ReportContext {
  brokers: string[]
  workers: number
  partitions: number
  maxPollRecords: number
  kafkaStreams: Record<string, unknown>
  /** The unmeasured runs before the measured ones, and why they are there. */
  warmUp: {
    definition: string
    records: number
    runs: { engine: Engine; guarantee: ProcessingGuarantee; outcome: string }[]
  }
  notes: string[]
  /** CPU hogs beside the runs (--hogs), with the cores' worth of CPU they took over the whole benchmark. */
  hogs?: { count: number; what: string; coresTaken: number | null; note: string }
}

export function writeKafkaResult(file: string, rows: Row[], intervals: number[], ctx: ReportContext): void {
  writeResult(file, {
    benchmark: 'kafka',
    definition:
      'processed throughput: records/s by which the group committed input offsets advance, over the window ' +
      'from 10% of the records committed (and every input partition owned by a running member) to 90% (the ' +
      'whole input written before the engine starts, so it runs on a backlog); transaction overhead = 1 - ' +
      'exactly-once median / at_least_once median of the same engine at the same commit.interval.ms; ' +
      'versusKafkaStreams = eoscope median / Kafka Streams median (at_least_once against at_least_once, ' +
      'exactly_once and exactly_once_v2 against exactly_once_v2); cpuPerRecordUs = microseconds of CPU time ' +
      "(user + system, /proc/<pid>/stat) used over the same window by the engine's own processes (eoscope: its " +
      '3 worker processes; Kafka Streams: its JVM) and by the local broker, divided by the records committed ' +
      'in the window; cpuVersusKafkaStreams = eoscope median / Kafka Streams median of it, paired as ' +
      'versusKafkaStreams (above 1: eoscope spends more CPU per record); every engine and guarantee ' +
      'alternating within each repetition, each run on a fresh application id and freshly written input of the ' +
      'same size',
    broker: {
      brokers: ctx.brokers,
      note: 'the local single-node KRaft broker of scripts/kafka-broker.sh, on the same machine as the engines',
    },
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version },
    at: new Date().toISOString(),
    workers: ctx.workers,
    partitions: ctx.partitions,
    maxPollRecords: ctx.maxPollRecords,
    kafkajs: { version: KAFKAJS_VERSION, patch: KAFKAJS_PATCH, patchedFilesMissing: kafkajsPatchesMissing() },
    kafkaStreams: ctx.kafkaStreams,
    warmUp: ctx.warmUp,
    rows,
    overhead: overheads(rows, intervals),
    versusKafkaStreams: versusKafkaStreams(rows, intervals),
    cpuVersusKafkaStreams: cpuVersusKafkaStreams(rows, intervals),
    notes: ctx.notes,
    ...(ctx.hogs ? { hogs: ctx.hogs } : {}),
  })
}
