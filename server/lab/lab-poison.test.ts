// default.deserialization.exception.handler=fail on the dashboard's lab (embedded log, virtual
// clock): poison records stop tasks, the snapshot names the record that stopped each one and keeps
// its true lag, and "skip it and go on" resumes with every record accounted for (lost stays 0).

import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import { Lab } from './lab.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'

describe('a lab stopped by a poison record under fail', () => {
  it('shows the stopped task with its record, keeps its lag, and skip resumes with nothing lost', async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 2, partitions: 2, seed: 3 }), {
      ratePerSec: 200,
      snapshotIntervalMs: 100,
      validateIntervalMs: 500,
    })
    await time.runUntilSettled(lab.start())
    await time.runFor(1_000)
    expect(
      await time.runUntilSettled(lab.execute('setConfig', { 'default.deserialization.exception.handler': 'fail' })),
    ).toEqual({ ok: true })
    await time.runFor(500)
    expect(await time.runUntilSettled(lab.execute('injectPoison', { count: 5 }))).toEqual({ ok: true })

    await time.runUntil(() => (lab.snapshot().stoppedTasks ?? []).some((t) => t.stop !== null), 30_000, 20)
    await time.runFor(2_000)
    const stopped = lab.snapshot()
    const named = stopped.stoppedTasks!.filter((t) => t.stop !== null)
    expect(named.length).toBeGreaterThan(0)
    for (const t of named) {
      expect(t.stop).toMatchObject({ topic: 'input', partition: t.partition, handler: 'fail', taskId: t.taskId })
      expect(t.stop!.valueHead).toMatch(/^not-a-number-/)
      expect(t.stop!.offset).toBeGreaterThanOrEqual(t.committedOffset ?? 0)
      // The input moves on while the task is stopped: its lag is the input's end minus the committed offset, not 0.
      expect(t.lag).toBeGreaterThan(0)
      const w = stopped.workers.find((x) => x.id === t.workerId)!
      expect(w.state).toBe('stopped')
      expect(w.stop?.offset).toBe(t.stop!.offset)
    }
    expect(stopped.markers.some((m) => m.kind === 'stopped')).toBe(true)

    expect(await time.runUntilSettled(lab.execute('skipPoison', {}))).toEqual({ ok: true })
    expect(lab.snapshot().config['default.deserialization.exception.handler']).toBe('log-and-continue')
    await time.runUntil(
      () => {
        const s = lab.snapshot()
        return (
          (s.stoppedTasks ?? []).length === 0 &&
          s.tasks.length === 2 &&
          s.totals.deadLetters === 5 &&
          s.correctness !== null &&
          s.correctness.inputChecked > s.totals.inputRecords / 2
        )
      },
      60_000,
      50,
    )
    await time.runFor(3_000)
    const after = lab.snapshot()
    expect(after.workers.every((w) => w.state === 'running')).toBe(true)
    expect(after.totals.deadLetters).toBe(5)
    expect(after.correctness!.lost).toBe(0)
    expect(after.correctness!.duplicates).toBe(0)
    await time.runUntilSettled(lab.close())
  }, 180_000)

  const resetWhileStopped =
    'reset while tasks are stopped starts a fresh lab with the default handler, nothing stopped, committing again'
  it(resetWhileStopped, async () => {
    const time = new MockTime()
    const lab = new Lab(inProcessRuntimes({ time, workers: 2, partitions: 2, seed: 5 }), {
      ratePerSec: 200,
      snapshotIntervalMs: 100,
      validateIntervalMs: 500,
    })
    await time.runUntilSettled(lab.start())
    await time.runFor(1_000)
    expect(
      await time.runUntilSettled(lab.execute('setConfig', { 'default.deserialization.exception.handler': 'fail' })),
    ).toEqual({ ok: true })
    expect(await time.runUntilSettled(lab.execute('injectPoison', { count: 2 }))).toEqual({ ok: true })
    await time.runUntil(() => (lab.snapshot().stoppedTasks ?? []).some((t) => t.stop !== null), 30_000, 20)
    // Stopped: the committed input stands still while the lag grows.
    const stopped = lab.snapshot()
    await time.runFor(1_000)
    const later = lab.snapshot()
    const lagOf = (s: typeof stopped) => (s.stoppedTasks ?? []).reduce((a, t) => a + t.lag, 0)
    expect(lagOf(later)).toBeGreaterThan(lagOf(stopped))

    expect(await time.runUntilSettled(lab.execute('reset', {}))).toEqual({ ok: true })
    await time.runUntil(
      () => {
        const s = lab.snapshot()
        return (s.stoppedTasks ?? []).length === 0 && s.tasks.length === 2 && s.totals.committedInput > 0
      },
      60_000,
      50,
    )
    const fresh = lab.snapshot()
    expect(fresh.config['default.deserialization.exception.handler']).toBe('log-and-continue')
    expect(fresh.workers.every((w) => w.state === 'running' && !w.stop)).toBe(true)
    await time.runUntilSettled(lab.close())
  }, 180_000)
})
