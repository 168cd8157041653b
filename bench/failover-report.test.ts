import { describe, expect, it } from 'vitest'
import type { RunBrokerKill } from '../server/runs/broker-faults.ts'
import { phaseSummary, recoveriesBesideBrokers } from './failover-report.ts'

const phases = (detection: number, rebalance: number) => ({
  detection,
  rebalance,
  fence: 0,
  restore: 10,
  catchUp: 100,
})
const recovery = (workerId: string, t0: number, ms: number | null, detection: number, rebalance: number) => ({
  workerId,
  t0,
  ms,
  redone: 0,
  phases: phases(detection, rebalance),
})
const kill = (brokerId: number, t: number, downMs: number | null): RunBrokerKill => ({
  t,
  brokerId,
  target: 'group-coordinator',
  roles: ['group coordinator'],
  downMs,
})

describe('recoveries beside broker kills', () => {
  const recoveries = [
    recovery('worker-1', 8_000, 2_110, 1_000, 1_000), // before any broker kill
    recovery('worker-2', 16_000, 18_110, 9_000, 9_000), // broker 1 down from 15 s to 24 s
    recovery('worker-3', 24_500, 2_110, 1_000, 1_000), // after broker 1 came back
    recovery('worker-1', 31_000, null, 1_000, 1_000), // pending at the run's end, broker 2 not back
  ]
  const kills = [kill(1, 15_000, 9_000), kill(2, 40_000, null)]
  const beside = recoveriesBesideBrokers(recoveries, kills, 50_000)

  it('pairs each recovery with the brokers down at some moment of it', () => {
    expect(beside.map((r) => r.brokersDown.map((b) => [b.brokerId, b.killedAtMs, b.downMs]))).toEqual([
      [],
      [[1, -1_000, 9_000]],
      [],
      [[2, 9_000, null]],
    ])
  })

  it('summarises the phases with a broker down against those on a whole cluster', () => {
    const s = phaseSummary(beside)
    expect(s.withBrokerDown).toEqual({
      recoveries: 2,
      detection: { median: 5_000, max: 9_000 },
      rebalance: { median: 5_000, max: 9_000 },
      total: { median: 18_110, max: 18_110 },
    })
    expect(s.wholeCluster.recoveries).toBe(2)
    expect(s.wholeCluster.detection).toEqual({ median: 1_000, max: 1_000 })
  })
})
