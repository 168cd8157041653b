// A short chaos soak on the real broker (the full one: npm run soak -- --backend kafka): kills,
// kills at a step, zombies, commit.interval.ms changes and a broker restart mid-run (the local
// broker of scripts/kafka-broker.sh is stopped and started again), exactly_once. The validator
// reads the real topics.

import { describe, expect, inject, it } from 'vitest'
import { expectCleanSoak } from '../../server/lab/soak/__fixtures__/expect-clean-soak.ts'
import { kafkaSoak } from '../../server/lab/soak/kafka.ts'
import { runSoak } from '../../server/lab/soak/soak.ts'

const brokers = inject('kafkaBrokers')

describe('the Kafka chaos soak, short', () => {
  it('exactly_once: 30 faults with a broker restart, 0 in every correctness row', { timeout: 240_000 }, async () => {
    if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
    const r = await runSoak(kafkaSoak({ brokers: brokers.split(',') }), { mode: 'exactly-once', faults: 30, seed: 21, ratePerSec: 800, validateEveryMs: 20_000 })
    expect(r.faults.brokerRestart).toBeGreaterThanOrEqual(1)
    expect(r.input.failedSends).toBe(0)
    expectCleanSoak(r, 30)
  })
})
