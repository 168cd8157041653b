// A short chaos soak on the real broker (the full one: npm run soak -- --backend kafka): kills,
// kills at a step, zombies, commit.interval.ms changes and a broker restart mid-run (the local
// broker of scripts/kafka-broker.sh is stopped and started again), exactly_once. The validator
// reads the real topics.

import { describe, expect, inject, it } from 'vitest'
import { expectCleanSoak } from '../../server/runs/soak/__fixtures__/expect-clean-soak.ts'
import { kafkaSoak } from '../../server/runs/soak/kafka.ts'
import { runSoak } from '../../server/runs/soak/soak.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'
import { watchProgress } from '../progress.ts'

const brokers = inject('kafkaBrokers')
/** How long the soak may go without a fault applied or a check made before it fails. */
const STALL_MS = 12 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs
/** Its overall bound: generous, for a busy machine. */
const SOAK_BOUND_MS = 900_000

describe('the Kafka chaos soak, short', () => {
  it('exactly_once: 30 faults with a broker restart, 0 in every correctness row', {
    timeout: SOAK_BOUND_MS + 60_000,
  }, async () => {
    if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
    // Progress is a fault applied or a validation done; a broker restart or a kill's detection
    // (session.timeout.ms) may pass between two.
    const r = await watchProgress('the Kafka soak', { stallMs: STALL_MS, boundMs: SOAK_BOUND_MS }, (progressed) =>
      runSoak(kafkaSoak({ brokers: brokers.split(',') }), {
        mode: 'exactly-once',
        faults: 30,
        seed: 21,
        ratePerSec: 800,
        validateEveryMs: 20_000,
        onFault: progressed,
        onProgress: progressed,
      }),
    )
    expect(r.faults.brokerRestart).toBeGreaterThanOrEqual(1)
    expect(r.input.failedSends).toBe(0)
    expectCleanSoak(r, 30)
  })
})
