// The broker-failover workload that npm run test:failover checks and npm run bench:failover measures, defined once:
// a headless run on a local three-broker cluster (scripts/kafka-cluster.sh) that kills a worker every 8 s and
// SIGKILLs a broker every 15 s while input is fed (the group coordinator, then a transaction coordinator, or an
// input partition's leader under at_least_once: target cycle), one down at a time, each started again 9 s after.

import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import type { RunOptions } from './headless-run.ts'

export const FAILOVER_WORKER_KILL_EVERY_MS = 8_000
export const FAILOVER_BROKER_KILL_EVERY_MS = 15_000
export const FAILOVER_BROKER_RESTART_AFTER_MS = 9_000
/** 60,000 records at 500/s: two minutes of input, long enough for several broker kills. */
export const FAILOVER_LOAD = { records: 60_000, rate: 500 } as const

/** The three brokers of a local cluster whose first broker listens on `port`. */
export function clusterBrokers(port: number): string[] {
  return [0, 1, 2].map((i) => `127.0.0.1:${port + i}`)
}

export function failoverRunOptions(
  guarantee: ProcessingGuarantee,
  cluster: { brokers: string[]; dir: string },
  load: { records: number; rate: number } = FAILOVER_LOAD,
): RunOptions {
  return {
    guarantee,
    workers: 3,
    partitions: 6,
    records: load.records,
    rate: load.rate,
    seed: 40,
    killEveryMs: FAILOVER_WORKER_KILL_EVERY_MS,
    killAtStep: null,
    restartAfterMs: 1_000,
    dropAcks: 0,
    idempotence: true,
    latency: 'default',
    backend: 'kafka',
    kafka: { client: { brokers: cluster.brokers }, localBrokersDir: cluster.dir },
    brokerFaults: {
      killEveryMs: FAILOVER_BROKER_KILL_EVERY_MS,
      restartAfterMs: FAILOVER_BROKER_RESTART_AFTER_MS,
      target: 'cycle',
    },
  }
}
