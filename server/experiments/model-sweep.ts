// The model sweep: the commit-interval sweep on the embedded log in virtual time. The same
// procedure over the same runtime port as the measured sweep (sweep-runner.ts), on a MockTime, with
// MODEL_COSTS (the latency model's request and transaction costs and a CPU cost per record) as the
// only cost. Nothing of the machine enters a figure, so a seed gives the same numbers to the record
// on every run, whatever the load; every figure is the model's, and says so.

import type { ExperimentRecord, SweepRequest, SweepSettings } from '../../lib/experiment-protocol.ts'
import { MODEL_COSTS, MODEL_MAX_POLL_RECORDS, type LatencyModel } from '../log/embedded/latency-model.ts'
import { MockTime } from '../log/time.ts'
import type { Logger } from '../logging.ts'
import { DEFAULT_SWEEP_SETTINGS } from './sweep-settings.ts'
import { runSweep } from './sweep-runner.ts'

/**
 * The model's sweep settings: small polls (a batch takes a few ms of modelled CPU, so a commit is
 * due after every batch only at the shortest intervals), a steady load well below the capacity at
 * the shortest interval, windows of two commit intervals (each partition commits at least twice in one).
 */
/**
 * The sweep's costs: MODEL_COSTS with coarser records (10 ms of CPU each) and a 20 ms wait after an
 * empty fetch, so that the virtual minutes of a long commit interval are a few thousand records and
 * timer wake-ups, computed in a second or so.
 */
export const MODEL_SWEEP_COSTS: LatencyModel = Object.freeze({ ...MODEL_COSTS, recordMs: 10, emptyFetchWaitMs: 20 })

/**
 * Heartbeats every 5 ms: a kill is detected session.timeout.ms after it to within 5 ms, whatever the heartbeats' phase.
 */
export const MODEL_HEARTBEAT_MS = 5

export const MODEL_SWEEP_SETTINGS: SweepSettings = Object.freeze({
  ...DEFAULT_SWEEP_SETTINGS,
  keys: 1_000,
  steadyRatePerSec: 60,
  warmupMs: 500,
  minWindowMs: 1_000,
  windowCommits: 2,
  backlogRecords: 60,
  maxPollRecords: MODEL_MAX_POLL_RECORDS,
  recoveryTimeoutMs: 600_000,
  visibilityPollMs: 20,
  loadLookMs: 20,
})

/** The model's assumptions, stated with every model result (and in LATENCY.md). */
export interface ModelDescription {
  figures: 'model'
  clock: 'virtual'
  costs: { requestMs: number; endTxnMs: number; markerMs: number; recordMs: number }
  assumptions: string[]
}

export function modelDescription(
  costs: LatencyModel = MODEL_SWEEP_COSTS,
  s: SweepSettings = MODEL_SWEEP_SETTINGS,
): ModelDescription {
  const recordMs = costs.recordMs ?? 0
  return {
    figures: 'model',
    clock: 'virtual',
    costs: { requestMs: costs.requestMs, endTxnMs: costs.endTxnMs, markerMs: costs.markerMs, recordMs },
    assumptions: [
      'Virtual time: every figure is simulated time on the embedded log, computed from the costs below; the ' +
        "machine's speed and load do not enter, so a seed gives the same figures on every run.",
      `Each request (fetch, produce, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, offset commit, ` +
        `heartbeat, join) costs ${costs.requestMs} ms; EndTxn costs ${costs.requestMs} + ${costs.endTxnMs} ms + ` +
        `${costs.markerMs} ms per control marker (medians measured on one local Kafka broker).`,
      `Each consumed record costs ${recordMs} ms of its worker's single thread (consume, process and update ` +
        `state, produce): at most ${Math.round(1000 / Math.max(recordMs, 1e-9))} records/s per worker. This ` +
        `figure is chosen, not measured: it sets the scale of throughput, not its shape.`,
      'Under exactly_once one transaction per task and commit interval: its sends, offsets and EndTxn are paid ' +
        'once per interval, so throughput rises with the interval as those costs amortise; under at_least_once ' +
        "one offset commit per worker and interval; under at_most_once (eoscope's teaching mode) one per poll, " +
        'before processing, whatever the interval.',
      `${s.workers} workers, ${s.partitions} partitions, max.poll.records ${s.maxPollRecords}, ` +
        `session.timeout.ms ${s.sessionTimeoutMs}; throughput under saturated input over max(${s.minWindowMs} ` +
        `ms, ${s.windowCommits} × commit.interval.ms); latency and the kill at a steady ${s.steadyRatePerSec} ` +
        `records/s.`,
      "One kill per repetition, at u × commit.interval.ms after one of the killed worker's commits, u uniform " +
        'in [0, 1) from the seed and the same for every interval (common random numbers). Expected redone ' +
        "records: the worker's input rate × commit.interval.ms / 2 (over u), and × u × commit.interval.ms for " +
        'the draw made.',
      'Members heartbeat every 5 ms, so a kill is detected session.timeout.ms after it to within 5 ms; the ' +
        "recovery phases still move by a few ms with the phase of the other members' polls.",
      'Not modelled: network variance, garbage collection, disk, broker load, replication; the broker writes ' +
        'control markers synchronously.',
    ],
  }
}

export interface ModelSweepOptions {
  request: SweepRequest
  /** Where the sweep logs. */
  logger?: Logger
  onProgress?: (record: ExperimentRecord) => void
  signal?: AbortSignal
}

/** Virtual time a model sweep may take before it is given up (a full sweep takes well under one). */
const MAX_VIRTUAL_MS = 24 * 3_600_000

/** Runs a model sweep on a fresh virtual clock; the request's backend must be embedded. */
export async function runModelSweep(o: ModelSweepOptions): Promise<ExperimentRecord> {
  if (o.request.backend !== 'embedded') throw new Error('the model sweep runs on the embedded log only')
  const time = new MockTime()
  const request: SweepRequest = { ...o.request, label: o.request.label ?? 'model (virtual time)' }
  let settled = false
  const running = runSweep({
    request,
    settings: MODEL_SWEEP_SETTINGS,
    time,
    model: { costs: MODEL_SWEEP_COSTS, heartbeatIntervalMs: MODEL_HEARTBEAT_MS },
    signal: o.signal,
    onProgress: o.onProgress,
    logger: o.logger,
  }).finally(() => {
    settled = true
  })
  await Promise.race([time.runUntil(() => settled, MAX_VIRTUAL_MS, 1_000), running])
  return running
}

/**
 * Expected redone records for a kill at a uniformly random moment of the commit cycle: the killed
 * worker's input rate (its share of the partitions of the steady load) × commit.interval.ms / 2;
 * and for the draw made, × the kill's delay after the commit instead.
 */
export function expectedRedone(
  s: SweepSettings,
  commitIntervalMs: number,
  killDelayMs: number | null,
): { meanOverKills: number; atThisKill: number | null } {
  const perWorker = s.steadyRatePerSec / s.workers
  const round = (v: number) => Math.round(v * 10) / 10
  return {
    meanOverKills: round((perWorker * commitIntervalMs) / 2 / 1000),
    atThisKill: killDelayMs === null ? null : round((perWorker * killDelayMs) / 1000),
  }
}
