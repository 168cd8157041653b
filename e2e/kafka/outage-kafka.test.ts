// The dashboard's Kafka lab through a broker outage: the local broker (scripts/kafka-broker.sh) is
// stopped mid-run and started again. While it is down the snapshot says the cluster is
// unreachable (the header's red badge and the first note); once it is back the outage is counted,
// the load resumes, and exactly_once loses and doubles nothing.

import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, inject, it } from 'vitest'
import type { LabSnapshot } from '../../lib/lab-protocol.ts'
import { createKafkaLab } from '../../server/lab/kafka-lab.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'
import { untilProgress } from '../progress.ts'

const brokers = inject('kafkaBrokers')
const SCRIPT = fileURLToPath(new URL('../../scripts/kafka-broker.sh', import.meta.url))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** A state reached (the outage seen, the cluster back): a few session timeouts. */
const STATE_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs + 60_000
/**
 * How long a figure that should move may stay still before a wait on it fails. Generous: on two
 * cores beside busy loops the restarted broker's own controller was seen stalled 29 s
 * ("Exceptionally slow controller event writeNoOpRecord"), before the group could recover at all.
 */
const STALL_MS = 12 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs

async function broker(command: 'start' | 'stop', port: string): Promise<void> {
  await promisify(execFile)('bash', [SCRIPT, command], { env: { ...process.env, KAFKA_PORT: port }, timeout: 120_000 })
}

async function until(
  lab: { snapshot(): LabSnapshot },
  cond: (s: LabSnapshot) => boolean,
  what: string,
  timeoutMs: number,
): Promise<LabSnapshot> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const s = lab.snapshot()
    if (cond(s)) return s
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${timeoutMs} ms (health ${JSON.stringify(s.health)}, committed input ` +
          `${s.totals.committedInput})`,
      )
    await sleep(200)
  }
}

describe('the Kafka lab through a broker restart', () => {
  it('shows the outage while it lasts, counts it after, and exactly_once loses and doubles nothing', {
    timeout: 900_000,
  }, async () => {
    if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
    if (process.env.KAFKA_BROKERS)
      throw new Error('this test stops and starts the local broker of scripts/kafka-broker.sh: unset KAFKA_BROKERS')
    const port = brokers.split(',')[0]!.split(':')[1]!
    const lab = await createKafkaLab({
      client: { brokers: brokers.split(','), clientId: 'eoscope-outage-test' },
      ratePerSec: 400,
      validateIntervalMs: 1_000,
    })
    try {
      await until(
        lab,
        (s) => s.totals.committedInput > 1_000 && s.health?.reachable === true,
        'processing before the outage',
        STATE_MS,
      )
      await broker('stop', port)
      const down = await until(lab, (s) => s.health?.reachable === false, 'the outage shown', STATE_MS)
      expect(down.notes[0]).toMatch(/does not answer since/)
      expect(down.markers.some((m) => m.kind === 'outage' && m.label.startsWith('cluster unreachable'))).toBe(true)
      await sleep(3_000)
      await broker('start', port)
      const up = await until(lab, (s) => s.health?.reachable === true, 'the cluster reachable again', STATE_MS)
      expect(up.health!.outages).toBe(1)
      expect(up.health!.lastOutage!.toMs - up.health!.lastOutage!.fromMs).toBeGreaterThanOrEqual(3_000)
      expect(up.markers.some((m) => m.kind === 'outage' && m.label.startsWith('cluster reachable again'))).toBe(true)
      // The load resumed and the group processes past where it stood before the outage.
      const before = up.totals.inputRecords
      // Both waits fail only when the figure stops moving for a few session timeouts.
      await untilProgress({
        what: 'processing after the outage',
        read: () => lab.snapshot().totals.committedInput,
        done: (n) => n > before + 2_000,
        stallMs: STALL_MS,
        everyMs: 200,
      })
      const checked = lab.snapshot().totals.committedInput
      await untilProgress({
        what: `the validator past ${checked} input records`,
        read: () => lab.snapshot().correctness?.inputChecked ?? 0,
        done: (n) => n >= checked,
        stallMs: STALL_MS,
        everyMs: 200,
      })
      const s = lab.snapshot()
      const c = s.correctness!
      expect({
        duplicates: c.duplicates,
        lost: c.lost,
        abortedReads: c.abortedReads,
        stateMismatches: c.stateMismatches,
      }).toEqual({ duplicates: 0, lost: 0, abortedReads: 0, stateMismatches: 0 })
      expect(s.notes.some((n) => n.startsWith('The load generator stopped'))).toBe(false)
    } finally {
      await broker('start', port).catch(() => {})
      await lab.close()
    }
  })
})
