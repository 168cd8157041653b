// npm run bench:failover: recovery on a three-broker cluster while its brokers are SIGKILLed, each
// recovery's phases beside the broker events that overlapped it (issue 40, item 4). It starts its
// own cluster with scripts/kafka-cluster.sh (ports 26292-26297, .kafka-cluster-bench; needs java
// and mvn), runs eoscope run's headless run under each guarantee with worker kills every 8 s and a
// broker kill every 15 s aimed at the group coordinator, then a transaction coordinator (an input
// leader under at_least_once), one down at a time, each restarted 9 s after, and writes
// bench/results/failover.json. About 3 minutes a run on two cores.

import { execFile } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { ProcessingGuarantee } from '../lib/streams-config.ts'
import { runHeadless } from '../server/runs/headless-run.ts'
import {
  clusterBrokers,
  FAILOVER_BROKER_KILL_EVERY_MS,
  FAILOVER_BROKER_RESTART_AFTER_MS,
  FAILOVER_LOAD,
  FAILOVER_WORKER_KILL_EVERY_MS,
  failoverRunOptions,
} from '../server/runs/failover-run.ts'
import { phaseSummary, recoveriesBesideBrokers } from './failover-report.ts'
import { checkFlags, flag, writeResult } from './figures.ts'

const USAGE = `npm run bench:failover [-- flags]
  --guarantees LIST   comma-separated (default at_least_once,exactly_once_v2,exactly_once)
  --records N         input records per run (default 60000), fed at --rate
  --rate N            records/s (default 500: two minutes of input, long enough for several broker kills)
  --out FILE          where to write (default bench/results/failover.json)`
checkFlags(USAGE, ['guarantees', 'records', 'rate', 'out'])

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PORT = Number(process.env.KAFKA_CLUSTER_PORT ?? 26292)
const DIR = process.env.KAFKA_CLUSTER_DIR ?? path.join(ROOT, '.kafka-cluster-bench')
const BROKERS = clusterBrokers(PORT)
const GUARANTEES = flag('guarantees', 'at_least_once,exactly_once_v2,exactly_once').split(',') as ProcessingGuarantee[]
const RECORDS = Number(flag('records', String(FAILOVER_LOAD.records)))
const RATE = Number(flag('rate', String(FAILOVER_LOAD.rate)))
const OUT = path.resolve(ROOT, flag('out', 'bench/results/failover.json'))

async function cluster(command: string): Promise<void> {
  await promisify(execFile)('bash', [path.join(ROOT, 'scripts/kafka-cluster.sh'), command], {
    env: { ...process.env, KAFKA_PORT: String(PORT), KAFKA_BROKERS_COUNT: '3', KAFKA_DIR: DIR },
    timeout: 600_000,
  })
}

async function measure(guarantee: ProcessingGuarantee) {
  const loadBefore = os.loadavg()[0]!
  const t0 = Date.now()
  const r = await runHeadless(
    failoverRunOptions(guarantee, { brokers: BROKERS, dir: DIR }, { records: RECORDS, rate: RATE }),
  )
  const recoveries = recoveriesBesideBrokers(r.recoveries, r.brokerKills ?? [], r.durationMs)
  const row = {
    guarantee,
    completed: r.completed,
    wallSeconds: Math.round((Date.now() - t0) / 1000),
    loadAverage: [Number(loadBefore.toFixed(2)), Number(os.loadavg()[0]!.toFixed(2))],
    workerKills: r.kills,
    crashes: r.crashes.length,
    workers: r.workers,
    correctness: {
      duplicates: r.duplicates,
      lost: r.lost,
      abortedReads: r.abortedReads,
      stateMismatches: r.stateMismatches,
      openTransactions: r.openTransactions,
    },
    brokerKills: (r.brokerKills ?? []).map((k) => ({ ...k, downMs: k.downMs === null ? null : Math.round(k.downMs) })),
    phases: phaseSummary(recoveries),
    recoveries,
  }
  process.stdout.write(
    `${guarantee}: ${row.workerKills} worker kills, ${row.brokerKills.length} broker kills, ` +
      `${JSON.stringify(row.phases)}\n`,
  )
  return row
}

const runs = []
try {
  await cluster('reset')
  await cluster('start')
  for (const g of GUARANTEES) runs.push(await measure(g))
} finally {
  await cluster('stop').catch(() => {})
}
writeResult(OUT, {
  benchmark: 'failover',
  at: new Date().toISOString(),
  machine: { cpus: os.cpus().length, node: process.version },
  cluster: `3 KRaft brokers (scripts/kafka-cluster.sh), replication factor 3, min.insync.replicas 2, ports ${PORT}+`,
  load: {
    records: RECORDS,
    ratePerSec: RATE,
    workers: 3,
    partitions: 6,
    workerKillEveryMs: FAILOVER_WORKER_KILL_EVERY_MS,
    brokerKillEveryMs: FAILOVER_BROKER_KILL_EVERY_MS,
    brokerRestartAfterMs: FAILOVER_BROKER_RESTART_AFTER_MS,
    brokerTarget: 'cycle: the group coordinator, then a transaction coordinator (an input leader under at_least_once)',
  },
  runs,
})
process.stdout.write(`wrote ${path.relative(ROOT, OUT)}\n`)
