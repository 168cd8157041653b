// Broker failover on a local three-broker KRaft cluster (scripts/kafka-cluster.sh, started and
// stopped by this file on its own ports: KAFKA_CLUSTER_PORT, default 26192-26197, and directory
// KAFKA_CLUSTER_DIR, default .kafka-cluster-test; issue 40). Under each guarantee a headless run
// kills workers every 8 s and SIGKILLs brokers while input is fed: first the group's coordinator,
// then the broker coordinating the most of the run's transactional ids (an input partition's
// leader under at_least_once, which has none; eoscope run --kill-broker-every, target cycle), one
// down at a time, each started again 9 s after its kill.
// Every worker is alive or replaced at the end, none died of an error (before: a worker died of
// "BROKER_NOT_AVAILABLE: commit offsets of group ...: Broker 3 not found in the cached metadata"
// under at_least_once and was never replaced), and every exactly-once figure is 0. A JDK and Maven
// are prerequisites: without them the run fails. Measured on 2 cores: 170-186 s a run, 570 s for
// the three, with 17 kafkajs lines on stderr in all (one per condition per 10 s).

import { execFile } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProcessingGuarantee } from '../../lib/streams-config.ts'
import { runHeadless, type RunResult } from '../../server/runs/headless-run.ts'
import { clusterBrokers, failoverRunOptions } from '../../server/runs/failover-run.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SCRIPT = path.join(ROOT, 'scripts/kafka-cluster.sh')
const PORT = Number(process.env.KAFKA_CLUSTER_PORT ?? 26192)
const DIR = process.env.KAFKA_CLUSTER_DIR ?? path.join(ROOT, '.kafka-cluster-test')
const BROKERS = clusterBrokers(PORT)
/**
 * A run: 60,000 records at 500/s feed for 120 s, long enough for two broker kills when a restart takes up to a
 * minute (2 cores); the run's own deadline and stall watchdog bound it.
 */
const RUN_MS = 15 * 60_000

async function cluster(command: string, ...args: string[]): Promise<void> {
  await promisify(execFile)('bash', [SCRIPT, command, ...args], {
    env: { ...process.env, KAFKA_PORT: String(PORT), KAFKA_BROKERS_COUNT: '3', KAFKA_DIR: DIR },
    timeout: 600_000,
  })
}

beforeAll(async () => {
  try {
    await cluster('reset')
    await cluster('start')
  } catch (e) {
    throw new Error(
      `could not start the three-broker cluster with scripts/kafka-cluster.sh on ports ${PORT}-${PORT + 5} (it ` +
        `needs java 17+ and mvn; see ${DIR}/node-*/broker.log): ${e instanceof Error ? e.message : e}`,
    )
  }
}, 660_000)

afterAll(async () => {
  await cluster('stop').catch(() => {})
}, 120_000)

function run(guarantee: ProcessingGuarantee): Promise<RunResult> {
  return runHeadless(failoverRunOptions(guarantee, { brokers: BROKERS, dir: DIR }))
}

describe('broker failover: coordinators SIGKILLed during a run', () => {
  it.each(['at_least_once', 'exactly_once_v2', 'exactly_once'] as const)(
    '%s: every worker alive or replaced, none crashed, every exactly-once figure 0',
    { timeout: RUN_MS },
    async (guarantee) => {
      const r = await run(guarantee)
      const context = JSON.stringify({
        completed: r.completed,
        stalled: r.stalled,
        kills: r.kills,
        crashes: r.crashes,
        workers: r.workers,
        brokerKills: r.brokerKills,
        recoveries: r.recoveries.map((x) => [x.workerId, Math.round(x.t0), x.ms && Math.round(x.ms)]),
      })
      expect(r.completed, context).toBe(true)
      // at_least_once has no transactional ids: its cycle passes from the group's coordinator to an input leader.
      const aimedAt =
        guarantee === 'at_least_once' ? ['group-coordinator'] : ['group-coordinator', 'transaction-coordinator']
      expect(
        r.brokerKills?.map((k) => k.target),
        context,
      ).toEqual(expect.arrayContaining(aimedAt))
      expect(
        r.brokerKills?.every((k) => k.downMs !== null),
        `every killed broker came back: ${context}`,
      ).toBe(true)
      expect(r.kills, context).toBeGreaterThan(0)
      expect(r.crashes, `no worker died of an error: ${context}`).toEqual([])
      expect(r.workers, context).toEqual({ started: 3, liveAtEnd: 3 })
      expect(r.lost, context).toBe(0)
      if (guarantee !== 'at_least_once')
        expect(
          {
            duplicates: r.duplicates,
            abortedReads: r.abortedReads,
            stateMismatches: r.stateMismatches,
            openTransactions: r.openTransactions,
          },
          context,
        ).toEqual({ duplicates: 0, abortedReads: 0, stateMismatches: 0, openTransactions: 0 })
    },
  )
})
