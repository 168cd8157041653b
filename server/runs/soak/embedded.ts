// The soak on the embedded log: in-process workers (LabRuntime), every fault placed in process
// (a pause can stop a worker at one of the five steps), checks taken under load.

import { defaultStreamsConfig } from '../../../lib/streams-config.ts'
import type { Time } from '../../log/time.ts'
import { InProcessRuntime } from '../../runtime/in-process-runtime.ts'
import type { SoakBackend, SoakSession, SoakSpec } from './soak.ts'

export function embeddedSoak(time: Time): SoakBackend<object> {
  return {
    time,
    pace: { faultGapMs: [150, 450], validateEveryMs: 10_000, drainTimeoutMs: 120_000 },
    pausesAtStep: true,
    periodicChecks: 'under-load',
    notes: [],
    open: (spec) => openEmbedded(time, spec),
  }
}

function openEmbedded(time: Time, spec: SoakSpec): SoakSession<object> {
  const lab = new InProcessRuntime(time, {
    config: defaultStreamsConfig(spec.guarantee),
    workers: 3,
    partitions: 6,
    ratePerSec: spec.ratePerSec,
    maxRecords: Number.POSITIVE_INFINITY,
    keys: 100,
    seed: spec.seed,
    latency: 'default',
    restartAfterMs: 300,
    deserializationPolicy: 'log-and-continue',
    traceIntervalMs: 5_000,
  })
  return {
    runtime: lab,
    faults: [],
    reconfigure: (changes) => lab.reconfigure({ ...lab.config, ...changes }),
    inputEnds: async () => lab.inputEndOffsets(),
    violations: () => [],
    figures: () => ({}),
    notes: () => [],
    close: async () => {},
  }
}
