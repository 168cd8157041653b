// The traced record shows "worker died" in the column of the step the kill names: a kill at step N
// stops the worker before step N runs, after the record passed step N − 1.

import { describe, expect, it } from 'vitest'
import { defaultStreamsConfig } from '../../lib/streams-config.ts'
import { MockTime } from '../log/time.ts'
import { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import { TraceBook } from './snapshot-parts.ts'

describe('the trace book numbers the step a kill hit as the kill does', () => {
  it('a record that passed steps 1-4 when its worker died died at step 5', () => {
    const book = new TraceBook()
    for (const step of [1, 2, 3, 4] as const)
      book.onTrace({ partition: 0, offset: 7, key: 'k0042', workerId: 'worker-1', step, atMs: step })
    book.onTrace({ partition: 1, offset: 3, key: 'k0001', workerId: 'worker-1', step: 1, atMs: 1 })
    book.onKilled('worker-1')
    expect(book.list().map((t) => [t.id, t.crashedAtStep, t.outcome])).toEqual([
      ['0@7', 5, 'redone'],
      ['1@3', 2, 'redone'],
    ])
  })

  it('a worker killed at step 5 by the engine: its traced record shows the crash in column 5', async () => {
    const time = new MockTime()
    const rt = new InProcessRuntime(time, {
      config: defaultStreamsConfig('at_least_once'),
      workers: 1,
      partitions: 1,
      ratePerSec: 200,
      maxRecords: 400,
      keys: 10,
      seed: 42,
      latency: 'default',
      restartAfterMs: null,
      deserializationPolicy: 'log-and-continue',
      traceIntervalMs: 1,
    })
    const book = new TraceBook()
    let killedAt: number | null = null
    rt.onEvent((e) => {
      if ('source' in e) return
      if (e.type === 'trace') book.onTrace(e)
      if (e.type === 'worker-killed') {
        killedAt = e.step ?? null
        book.onKilled(e.workerId)
      }
    })
    await rt.start()
    await time.runUntil(() => (rt.slotOf('worker-1')?.worker?.tasks.size ?? 0) > 0 && rt.generator.sent > 20, 10_000)
    expect(rt.kill('worker-1', 5)).toBe(true)
    await time.runUntil(() => rt.kills === 1, 10_000)
    expect(killedAt).toBe(5)
    const crashed = book.list().filter((t) => t.crashedAtStep !== null)
    expect(crashed.length).toBeGreaterThan(0)
    for (const t of crashed) {
      expect(t.steps.map((s) => s.step)).toEqual([1, 2, 3, 4])
      expect(t.crashedAtStep).toBe(5)
    }
    await time.runUntilSettled(rt.stop(), 60_000)
  })
})
