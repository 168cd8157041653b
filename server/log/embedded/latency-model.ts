// The embedded log's latency model: what a request to a broker costs in time, so that throughput
// against commit.interval.ms has the shape it has on a real cluster. `off` gives raw speed.
//
// Defaults are the medians measured against a single local Kafka broker (see LATENCY.md beside
// this file): one request round trip, plus the cost of ending a transaction, which grows with
// the number of partitions that get a COMMIT or ABORT marker.
//
// On the system clock a record's processing costs what the machine takes (recordMs 0). In virtual
// time (MockTime) nothing costs anything unless it is charged, so the model's runs (`eoscope sweep
// --model`, headless scenarios) charge a fixed CPU cost per record consumed as well: MODEL_COSTS.

export interface LatencyModel {
  readonly name: string
  /** One request/response round trip (produce, fetch, offset commit, AddPartitionsToTxn, ...). */
  requestMs: number
  /** EndTxn's fixed cost beyond the round trip (the coordinator's PrepareCommit/CompleteCommit writes). */
  endTxnMs: number
  /** Extra cost per control marker written when a transaction ends. */
  markerMs: number
  /**
   * CPU time per record consumed (deserialise, process and update state, serialise the output),
   * charged to the consumer when its fetch returns. 0 on the system clock, where the CPU is real.
   */
  recordMs?: number
  /**
   * How long a consumer whose fetch returned nothing waits before the next (default 2 ms; fetch.max.wait.ms's role).
   */
  emptyFetchWaitMs?: number
}

export const LATENCY_OFF: LatencyModel = Object.freeze({ name: 'off', requestMs: 0, endTxnMs: 0, markerMs: 0 })

export const LATENCY_DEFAULT: LatencyModel = Object.freeze({
  name: 'default',
  requestMs: 1,
  endTxnMs: 0.5,
  markerMs: 0.25,
})

/**
 * The cost model of runs in virtual time: the default request and transaction costs, and 1 ms of
 * one core per record (about 1,000 records/s per worker at most). The per-record cost is a choice,
 * not a measurement: high enough that a simulated minute of saturated load is a few tens of
 * thousands of records, computed in a second or two, and that a transaction's cost (a few ms) is
 * the same order as a short commit interval's processing (see LATENCY.md, "The model in virtual time").
 */
export const MODEL_COSTS: LatencyModel = Object.freeze({
  name: 'model',
  requestMs: 1,
  endTxnMs: 0.5,
  markerMs: 0.25,
  recordMs: 1,
})

/**
 * max.poll.records in the model: a poll holds the worker's thread for recordMs per record, so a
 * poll must stay short beside a short commit interval (5 records: 5 ms), or commits wait for it.
 */
export const MODEL_MAX_POLL_RECORDS = 5

export function latencyModel(
  name: 'default' | 'off',
  overrides: Partial<Omit<LatencyModel, 'name'>> = {},
): LatencyModel {
  const base = name === 'off' ? LATENCY_OFF : LATENCY_DEFAULT
  return { ...base, ...overrides }
}

export function endTxnCostMs(model: LatencyModel, markers: number): number {
  return model.requestMs + model.endTxnMs + model.markerMs * markers
}

/** The CPU cost of processing `records` consumed records (0 without a per-record cost). */
export function recordsCostMs(model: LatencyModel, records: number): number {
  return (model.recordMs ?? 0) * records
}
