// A small embedded lab on a virtual clock for the engine's fault tests: its workers in this process,
// a seeded load, no restarts (a test sees what the fault did, not a new worker's repair).

import { defaultStreamsConfig, type ProcessingGuarantee } from '../../../lib/streams-config.ts'
import { MockTime } from '../../log/time.ts'
import { InProcessRuntime, type InProcessRuntimeOptions } from '../../runtime/in-process-runtime.ts'

export function smallLab(
  guarantee: ProcessingGuarantee,
  overrides: Partial<InProcessRuntimeOptions> = {},
): { lab: InProcessRuntime; time: MockTime } {
  const time = new MockTime()
  const lab = new InProcessRuntime(time, {
    config: defaultStreamsConfig(guarantee),
    workers: 2,
    partitions: 4,
    ratePerSec: 2_000,
    maxRecords: 6_000,
    keys: 20,
    seed: 11,
    latency: 'default',
    restartAfterMs: null,
    deserializationPolicy: 'log-and-continue',
    traceIntervalMs: 1_000,
    ...overrides,
  })
  return { lab, time }
}
