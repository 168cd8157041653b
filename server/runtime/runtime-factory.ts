// Which runtime a lab runs on is the one thing that differs per backend: a factory makes a fresh
// runtime for a start or a reset (and, where the log offers them, one for a guided scenario).

import { defaultStreamsConfig, type ProcessingGuarantee, type StreamsConfig } from '../../lib/streams-config.ts'
import type { Time } from '../log/time.ts'
import { InProcessRuntime } from './in-process-runtime.ts'
import type { LabRuntime, RuntimeSettings, WorkerThreads } from './lab-runtime.ts'
import { runtimeOptions, type ScenarioSetup } from './scenario-setup.ts'

export interface LabSettings {
  guarantee: ProcessingGuarantee
  ratePerSec: number
}

export interface RuntimeFactory {
  readonly time: Time
  /** The seed of the runtimes it makes (a scenario's narrative is reproducible with it). */
  readonly seed: number
  /** A fresh runtime with these settings (a fresh application where the cluster is shared). */
  create(settings: LabSettings): LabRuntime
  /** The log its runtimes run on. */
  readonly backend: 'embedded' | 'kafka'
  /** Where its runtimes' workers run. */
  readonly workerThreads: WorkerThreads
  /** A runtime set up for a guided scenario (a fresh application where the cluster is shared), not started. */
  forScenario(setup: ScenarioSetup): LabRuntime
}

/** A dashboard lab's runtime: endless load on 50 keys, a killed worker replaced after 3 s. */
export function labRuntimeSettings(
  config: StreamsConfig,
  ratePerSec: number,
  o: { workers?: number; partitions?: number; seed?: number },
): RuntimeSettings {
  return {
    config,
    workers: o.workers ?? 3,
    partitions: o.partitions ?? 6,
    ratePerSec,
    maxRecords: Number.POSITIVE_INFINITY,
    keys: 50,
    seed: o.seed ?? 1,
    restartAfterMs: 3_000,
  }
}

export interface InProcessLabOptions {
  time: Time
  partitions?: number
  workers?: number
  latency?: 'default' | 'off'
  seed?: number
}

/** Runtimes on the embedded log, in this process. */
export function inProcessRuntimes(o: InProcessLabOptions): RuntimeFactory {
  const seed = o.seed ?? 1
  return {
    time: o.time,
    seed,
    backend: 'embedded',
    workerThreads: 'shared',
    create: ({ guarantee, ratePerSec }) => {
      const settings = labRuntimeSettings(defaultStreamsConfig(guarantee), ratePerSec, o)
      return new InProcessRuntime(o.time, {
        ...settings,
        latency: o.latency ?? 'default',
        deserializationPolicy: 'log-and-continue',
        traceIntervalMs: 500,
      })
    },
    forScenario: (setup) => new InProcessRuntime(o.time, runtimeOptions(setup, seed)),
  }
}
