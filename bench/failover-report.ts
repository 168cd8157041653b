// The recoveries of a run with broker kills, each beside the broker events that overlapped it: a
// worker's recovery (detection, rebalance, fence, restore, catch-up) while a coordinator was down or
// moving takes longer than one on a whole cluster, and bench:failover says by how much.

import type { RunBrokerKill } from '../server/runs/broker-faults.ts'
import type { RunResult } from '../server/runs/headless-run.ts'
import { median } from './figures.ts'

type Recovery = RunResult['recoveries'][number]

export interface BrokerDown {
  brokerId: number
  target: RunBrokerKill['target']
  roles: string[]
  /** When the broker was killed, from the recovery's t0 (negative: before the worker was). */
  killedAtMs: number
  /** How long it was down; null when it did not come back. */
  downMs: number | null
}

export interface RecoveryBesideBrokers {
  workerId: string
  t0: number
  ms: number | null
  phases: Recovery['phases']
  /** Brokers down at some moment of the recovery (from its t0 to its end, or to the run's end while pending). */
  brokersDown: BrokerDown[]
}

const round = (ms: number | null) => (ms === null ? null : Math.round(ms))

/** Each recovery with the broker kills whose down time overlapped it. */
export function recoveriesBesideBrokers(
  recoveries: readonly Recovery[],
  kills: readonly RunBrokerKill[],
  runEndMs: number,
): RecoveryBesideBrokers[] {
  return recoveries.map((r) => {
    const end = r.ms === null ? runEndMs : r.t0 + r.ms
    const brokersDown = kills
      .filter((k) => k.t <= end && (k.downMs === null ? runEndMs : k.t + k.downMs) >= r.t0)
      .map((k) => ({
        brokerId: k.brokerId,
        target: k.target,
        roles: k.roles,
        killedAtMs: Math.round(k.t - r.t0),
        downMs: round(k.downMs),
      }))
    const phases = Object.fromEntries(Object.entries(r.phases).map(([k, v]) => [k, round(v)])) as Recovery['phases']
    return { workerId: r.workerId, t0: Math.round(r.t0), ms: round(r.ms), phases, brokersDown }
  })
}

export interface PhaseSummary {
  recoveries: number
  /** Median and max of each phase, in ms, over the recoveries that reached it. */
  detection: { median: number; max: number } | null
  rebalance: { median: number; max: number } | null
  total: { median: number; max: number } | null
}

function summaryOf(rs: readonly RecoveryBesideBrokers[]): PhaseSummary {
  const of = (pick: (r: RecoveryBesideBrokers) => number | null) => {
    const xs = rs.map(pick).filter((x): x is number => x !== null)
    return xs.length === 0 ? null : { median: Math.round(median(xs)), max: Math.max(...xs) }
  }
  return {
    recoveries: rs.length,
    detection: of((r) => r.phases.detection),
    rebalance: of((r) => r.phases.rebalance),
    total: of((r) => r.ms),
  }
}

/** Recoveries with a broker down during them against those on a whole cluster. */
export function phaseSummary(rs: readonly RecoveryBesideBrokers[]): {
  withBrokerDown: PhaseSummary
  wholeCluster: PhaseSummary
} {
  return {
    withBrokerDown: summaryOf(rs.filter((r) => r.brokersDown.length > 0)),
    wholeCluster: summaryOf(rs.filter((r) => r.brokersDown.length === 0)),
  }
}
