// A scenario's last lab handed back to the dashboard: whatever state the script left it in
// (stopped cleanly, or ended at once as commit-interval does), it runs again with the settings from
// before the scenario, its logs (the evidence) kept.

import { describe, expect, it } from 'vitest'
import { defaultStreamsConfig } from '../../lib/streams-config.ts'
import { MockTime } from '../log/time.ts'
import { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import { restoreSettings, type LabSettingsBefore } from './scenario-restore.ts'
import { runtimeOptions } from '../runtime/scenario-setup.ts'

const BEFORE: LabSettingsBefore = {
  config: { ...defaultStreamsConfig('exactly_once_v2', 'dashboard'), 'commit.interval.ms': 200 },
  deserializationPolicy: 'fail',
  ratePerSec: 600,
  workers: 4,
  latency: 'off',
  restartAfterMs: 3_000,
}

async function scenarioLab(time: MockTime): Promise<InProcessRuntime> {
  const rt = new InProcessRuntime(
    time,
    runtimeOptions(
      { guarantee: 'at_least_once', commitIntervalMs: 1_000, ratePerSec: 2_000, records: 2_000, restartAfterMs: null },
      1,
    ),
  )
  await rt.start()
  return rt
}

describe('restoreSettings', () => {
  it.each([
    ['stopped cleanly', (rt: InProcessRuntime) => rt.stop()],
    [
      'ended at once, a worker killed before',
      async (rt: InProcessRuntime) => {
        rt.kill(rt.liveSlots()[0]!.worker!.id)
        return await rt.destroy()
      },
    ],
  ] as const)(
    '%s: runs again with the settings from before, unbounded, its records kept',
    async (_how, end) => {
      const time = new MockTime()
      const rt = await scenarioLab(time)
      await time.runUntil(() => rt.generator.finished && rt.caughtUp(), 60_000, 20)
      await time.runUntilSettled(end(rt))
      rt.dropAcks(2)
      const kept = rt.inputEndOffsets().reduce((a, b) => a + b, 0)
      await time.runUntilSettled(restoreSettings(rt, BEFORE))
      expect(rt.config).toEqual({ ...BEFORE.config, 'application.id': 'eoscope' })
      expect(rt.deserializationPolicy).toBe('fail')
      expect(rt.generator.rate).toBe(600)
      expect(rt.slots).toHaveLength(4)
      expect(rt.options.restartAfterMs).toBe(3_000)
      expect(rt.latencyModel).toBe('off')
      expect(rt.workerFaults.ackDrops.pending()).toBe(0)
      const committed = rt.committedTotal()
      await time.runFor(5_000)
      expect(rt.slots.every((s) => s.process.state === 'running')).toBe(true)
      expect(rt.inputEndOffsets().reduce((a, b) => a + b, 0)).toBeGreaterThan(kept + 2_000)
      expect(rt.committedTotal()).toBeGreaterThan(committed + 2_000)
      await time.runUntilSettled(rt.close())
    },
    120_000,
  )
})
