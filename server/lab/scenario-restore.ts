// When a guided scenario ends, the lab on screen goes on: its last lab (whose logs hold the
// evidence the scenario's card links to) runs again with the settings the user had before the
// scenario started: streams settings, deserialization handler, input rate without end, worker
// count, latency model and restart delay; killed and paused workers come back, lost acks still
// armed are forgotten.

import type { StreamsConfig } from '../../lib/streams-config.ts'
import type { DeserializationPolicy } from '../engine/stream-task.ts'
import { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'

/** What the dashboard's lab restarts a killed worker after (runtime-factory's labRuntimeSettings). */
const DASHBOARD_RESTART_MS = 3_000

/** The lab's settings before a scenario: what it returns to when the scenario ends. */
export interface LabSettingsBefore {
  config: StreamsConfig
  deserializationPolicy: DeserializationPolicy
  ratePerSec: number
  workers: number
  latency: 'default' | 'off'
  restartAfterMs: number | null
}

export function settingsBefore(rt: LabRuntime, ratePerSec: number): LabSettingsBefore {
  return {
    config: { ...rt.config },
    deserializationPolicy: rt.deserializationPolicy,
    ratePerSec,
    workers: rt.slots.length,
    latency: rt.latencyModel,
    restartAfterMs: rt instanceof InProcessRuntime ? rt.options.restartAfterMs : DASHBOARD_RESTART_MS,
  }
}

/** How the settings read on the timeline. */
export function describeSettings(s: LabSettingsBefore): string {
  const c = s.config
  return (
    `processing.guarantee=${c['processing.guarantee']}, commit.interval.ms=${c['commit.interval.ms']}, ` +
    `${s.ratePerSec}/s, ${s.workers} workers`
  )
}

/**
 * Runs a scenario's last lab again with the settings from before it. The lab keeps its own
 * application.id (its group, changelog and offsets are the evidence); everything else is the user's.
 * The same on both backends: the runtime port's revive, reconfigure, worker count and load.
 */
export async function restoreSettings(rt: LabRuntime, before: LabSettingsBefore): Promise<void> {
  await rt.revive({ restartAfterMs: before.restartAfterMs, latency: before.latency })
  // Every slot restarts, killed, paused and stopped ones included; armed kills and pauses are dropped.
  await rt.reconfigure(
    { ...before.config, 'application.id': rt.config['application.id'] },
    before.deserializationPolicy,
  )
  while (rt.slots.length < before.workers) rt.addWorker()
  while (rt.slots.length > before.workers && (await rt.removeWorker()) !== null) {
    // stopped cleanly, one at a time
  }
  await rt.generator.continueEndless(before.ratePerSec)
}
