// The embedded log's latency model: what a request to a broker costs in time, so that throughput
// against commit.interval.ms has the shape it has on a real cluster. `off` gives raw speed.
//
// Defaults are the medians measured against a single local Kafka broker (see LATENCY.md beside
// this file): one request round trip, plus the cost of ending a transaction, which grows with
// the number of partitions that get a COMMIT or ABORT marker.

export interface LatencyModel {
  readonly name: string
  /** One request/response round trip (produce, fetch, offset commit, AddPartitionsToTxn, ...). */
  requestMs: number
  /** EndTxn's fixed cost beyond the round trip (the coordinator's PrepareCommit/CompleteCommit writes). */
  endTxnMs: number
  /** Extra cost per control marker written when a transaction ends. */
  markerMs: number
}

export const LATENCY_OFF: LatencyModel = Object.freeze({ name: 'off', requestMs: 0, endTxnMs: 0, markerMs: 0 })

export const LATENCY_DEFAULT: LatencyModel = Object.freeze({ name: 'default', requestMs: 1, endTxnMs: 0.5, markerMs: 0.25 })

export function latencyModel(name: 'default' | 'off', overrides: Partial<Omit<LatencyModel, 'name'>> = {}): LatencyModel {
  const base = name === 'off' ? LATENCY_OFF : LATENCY_DEFAULT
  return { ...base, ...overrides }
}

export function endTxnCostMs(model: LatencyModel, markers: number): number {
  return model.requestMs + model.endTxnMs + model.markerMs * markers
}
