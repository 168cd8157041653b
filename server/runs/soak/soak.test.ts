// A short chaos soak on the embedded log (the full one: npm run soak -- --backend embedded).
import { describe, expect, it } from 'vitest'
import { SystemTime } from '../../log/time.ts'
import { expectCleanSoak } from './__fixtures__/expect-clean-soak.ts'
import { embeddedSoak } from './embedded.ts'
import { runSoak } from './soak.ts'

describe('the embedded chaos soak, short', () => {
  it('exactly-once: 30 faults of every kind, 0 in every correctness row', { timeout: 300_000 }, async () => {
    const r = await runSoak(embeddedSoak(new SystemTime()), {
      mode: 'exactly-once',
      faults: 30,
      seed: 11,
      ratePerSec: 1_000,
      validateEveryMs: 4_000,
    })
    expect(r.faults.kill + r.faults.killAtStep).toBeGreaterThan(0)
    expectCleanSoak(r, 30)
  })
})
