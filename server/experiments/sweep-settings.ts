// The sweep's settings per backend, the config of each lab, and whether a request can run on its
// backend (what Kafka cannot do is read from its capabilities, never written again here).

import type { SweepRequest, SweepSettings } from '../../lib/experiment-protocol.ts'
import {
  EOSCOPE_DEFAULTS,
  streamsConfigFor,
  type ProcessingGuarantee,
  type StreamsConfig,
} from '../../lib/streams-config.ts'
import { guaranteeRefusal } from '../log/capabilities.ts'
import { KAFKA_CAPABILITIES, KAFKA_GROUP_TIMEOUTS } from '../log/kafka/capabilities.ts'
import type { KafkaSecurity } from '../log/kafka/client-security.ts'
import type { NetworkDelay } from '../log/kafka/proxy/ack-drop-proxy.ts'

/**
 * Short windows: a measured cell runs at least 6 times (the fewest with a 95% interval of the
 * median), so each run is kept to a few seconds (two commits per window at the longest intervals);
 * the repetitions, not long windows, give the precision.
 */
export const DEFAULT_SWEEP_SETTINGS: SweepSettings = Object.freeze({
  workers: 3,
  partitions: 6,
  keys: 10_000,
  latencyModel: 'default',
  steadyRatePerSec: 5_000,
  warmupMs: 300,
  minWindowMs: 1_000,
  windowCommits: 2,
  backlogRecords: 20_000,
  sessionTimeoutMs: 1_000,
  maxPollRecords: 1_000,
  recoveryTimeoutMs: 30_000,
  visibilityPollMs: 5,
})

/**
 * On Kafka, worker processes and the broker share the machine, so: the steady load is lower (well
 * below what exactly_once at the shortest interval processes there); the saturated backlog is larger
 * (worker positions are known only every ~100 ms); max.poll.records is smaller (with 1,000 a task
 * committed only every few seconds, whatever commit.interval.ms said, because one batch took that
 * long to process); the windows are longer (each partition must commit at least twice inside one).
 */
export const DEFAULT_KAFKA_SWEEP_SETTINGS: SweepSettings = Object.freeze({
  ...DEFAULT_SWEEP_SETTINGS,
  latencyModel: 'off',
  warmupMs: 1_000,
  windowCommits: 4,
  sessionTimeoutMs: KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs,
  steadyRatePerSec: 300,
  maxPollRecords: 100,
  minWindowMs: 3_000,
  backlogRecords: 30_000,
  recoveryTimeoutMs: 60_000,
})

export function defaultSweepSettings(backend: 'embedded' | 'kafka'): SweepSettings {
  return backend === 'kafka' ? DEFAULT_KAFKA_SWEEP_SETTINGS : DEFAULT_SWEEP_SETTINGS
}

/** Both backends; kafka needs brokers (SweepRunOptions.kafka). */
export const AVAILABLE_SWEEP_BACKENDS = ['embedded', 'kafka'] as const

/** Where a Kafka sweep runs: the cluster, and a prefix for every application.id it creates. */
export interface SweepKafkaTarget {
  brokers: string[]
  /** TLS and SASL for every client of the sweep (worker processes read the same environment). */
  security?: KafkaSecurity
  /** Prefix of each lab's application.id (a fresh suffix per lab is added). */
  applicationIdPrefix?: string
  /** Worker processes' stderr to this process's stderr. */
  workerLogs?: boolean
  /** The network between the worker processes and the brokers (WorkerProcessRuntimeOptions.network). */
  network?: NetworkDelay
}

/** Why a sweep request cannot run on its backend, or null when it can. */
export function sweepUnavailableReason(
  request: Pick<SweepRequest, 'backend' | 'guarantees'>,
  kafka: SweepKafkaTarget | null | undefined,
): string | null {
  if (request.backend !== 'kafka') return null
  if (!kafka || kafka.brokers.length === 0)
    return (
      'backend kafka needs brokers: start the server with KAFKA_BROKERS=host:port (or pass --brokers to eoscope ' +
      'sweep); use embedded otherwise'
    )
  for (const g of request.guarantees) {
    const reason = guaranteeRefusal(KAFKA_CAPABILITIES, g)
    if (reason !== null) return reason
  }
  return null
}

export function windowMs(s: SweepSettings, commitIntervalMs: number): number {
  return Math.max(s.minWindowMs, s.windowCommits * commitIntervalMs)
}

/**
 * A lab's config: the commit interval under test, the sweep's session timeout and poll size, a
 * transaction timeout of at least two intervals.
 */
export function sweepConfig(guarantee: ProcessingGuarantee, commitIntervalMs: number, s: SweepSettings): StreamsConfig {
  return streamsConfigFor(guarantee, {
    commitIntervalMs,
    transactionTimeoutMs: Math.max(EOSCOPE_DEFAULTS.transactionTimeoutMs, 2 * commitIntervalMs),
    sessionTimeoutMs: s.sessionTimeoutMs,
    maxPollRecords: s.maxPollRecords,
  })
}
