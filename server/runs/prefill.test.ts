import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import { runHeadless, type RunOptions } from './headless-run.ts'
import { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'

const RUN: RunOptions = {
  guarantee: 'exactly_once',
  workers: 3,
  partitions: 6,
  records: 12_000,
  rate: Number.POSITIVE_INFINITY,
  seed: 5,
  killEveryMs: null,
  killAtStep: null,
  restartAfterMs: 0,
  dropAcks: 0,
  idempotence: true,
  latency: 'off',
  keys: 20,
}

/** How many input records the load generator had written when the first worker reported its status. */
async function writtenAtFirstWorker(
  o: RunOptions,
): Promise<{ written: number | null; result: Awaited<ReturnType<typeof runHeadless>> }> {
  const time = new MockTime()
  let written: number | null = null
  const watch = (lab: LabRuntime): void => {
    if (!(lab instanceof InProcessRuntime)) throw new Error('an in-process lab was expected')
    lab.onEvent((e) => {
      if (written === null && !('source' in e) && e.type === 'worker-status') written = lab.generator.sent
    })
  }
  const result = await time.runUntilSettled(runHeadless(o, time, watch), 200_000)
  return { written, result }
}

describe('a prefilled run', () => {
  it('writes the whole input before any worker starts, then processes it exactly once', async () => {
    const { written, result } = await writtenAtFirstWorker({ ...RUN, prefill: true })
    expect(written).toBe(RUN.records)
    expect(result.completed).toBe(true)
    expect({ lost: result.lost, duplicates: result.duplicates, stateMismatches: result.stateMismatches }).toEqual({
      lost: 0,
      duplicates: 0,
      stateMismatches: 0,
    })
  })

  it('starts the workers first without it: the load generator feeds them as they run', async () => {
    const { written, result } = await writtenAtFirstWorker(RUN)
    expect(written).toBe(0)
    expect(result.completed).toBe(true)
    expect(result.lost).toBe(0)
  })

  it('refuses faults, which fall while input is fed: they would silently not happen', async () => {
    await expect(runHeadless({ ...RUN, prefill: true, killEveryMs: 200 }, new MockTime())).rejects.toThrow(
      /a prefilled run injects no faults/,
    )
    await expect(runHeadless({ ...RUN, prefill: true, dropAcks: 2 }, new MockTime())).rejects.toThrow(
      /a prefilled run injects no faults/,
    )
  })

  it('refuses an endless input', async () => {
    const time = new MockTime()
    await expect(runHeadless({ ...RUN, records: Number.POSITIVE_INFINITY, prefill: true }, time)).rejects.toThrow(
      /prefill needs a finite maxRecords/,
    )
  })
})
