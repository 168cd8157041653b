// npm run soak -- --backend embedded|kafka --faults N [--minutes M] [--seed S] [--rate R]
// Runs the chaos soak under exactly-once (embedded: exactly_once and exactly_once_v2, switching
// between them; kafka: exactly_once, the only exactly-once guarantee it offers) and under
// at_least_once, and writes bench/results/soak-<backend>.json after each mode (a long run that is
// stopped keeps what it measured). A shorter run (fewer than FULL_SOAK_FAULTS faults) writes
// bench/results/soak-<backend>-<N>-faults.json instead, leaving the full soak's report alone.
// Exit 1 on any violation.
// Kafka: the local broker of scripts/kafka-broker.sh on KAFKA_PORT (default 19092), started if it
// is not running; the soak stops and starts it mid-run. With --brokers 3: the local three-broker
// cluster of scripts/kafka-cluster.sh on KAFKA_CLUSTER_PORT (default 19192, six ports) in
// KAFKA_CLUSTER_DIR (default .kafka-cluster), started if it is not running; the soak SIGKILLs its
// brokers (the transaction coordinator's, input partitions' leaders) and writes
// bench/results/soak-kafka-3-brokers[-<N>-faults].json.

import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { helpText, parseCommandLine, UsageError } from '../server/cli/flags.ts'
import { SystemTime } from '../server/log/time.ts'
import { embeddedSoak } from '../server/runs/soak/embedded.ts'
import { runSoak, type SoakBackend, type SoakProgress } from '../server/runs/soak/soak.ts'
import type { SoakResult } from '../server/runs/soak/report.ts'

type Backend = 'embedded' | 'kafka'

/** The fault count of the soak whose reports are kept in bench/results/soak-<backend>.json. */
const FULL_SOAK_FAULTS = 200

const SOAK = {
  program: 'npm run',
  name: 'soak',
  summary:
    `the chaos soak under exactly-once and at_least_once; writes bench/results/soak-<backend>.json ` +
    `(soak-<backend>-<N>-faults.json below ${FULL_SOAK_FAULTS} faults), exit 1 on any violation`,
  flags: {
    backend: { type: 'choice', choices: ['embedded', 'kafka'], meaning: 'the log', defaultText: 'embedded' },
    faults: {
      type: 'number',
      meaning: 'faults per mode',
      range: { min: 1, max: 100_000 },
      integer: true,
      default: FULL_SOAK_FAULTS,
    },
    minutes: {
      type: 'number',
      meaning: 'run at least this long per mode',
      range: { min: 0, max: 600 },
      integer: false,
      default: 0,
    },
    seed: {
      type: 'number',
      meaning: 'seed of the fault schedule',
      range: { min: 0, max: Number.MAX_SAFE_INTEGER },
      integer: true,
      default: 1,
    },
    rate: {
      type: 'number',
      meaning: 'input records per second (default 3000 embedded, 1000 kafka)',
      range: { min: 1, max: 1_000_000 },
      integer: false,
    },
    brokers: {
      type: 'number',
      meaning: 'kafka: 1 (scripts/kafka-broker.sh, restarted) or 3 (scripts/kafka-cluster.sh, brokers SIGKILLed)',
      range: { min: 1, max: 3 },
      integer: true,
      default: 1,
    },
  },
} as const

let f: { backend: Backend; faults: number; minMs: number; seed: number; rate: number | undefined; brokers: number }
try {
  const line = parseCommandLine(SOAK, process.argv.slice(2))
  if (line.help) {
    process.stdout.write(helpText(SOAK))
    process.exit(0)
  }
  const v = line.flags
  f = {
    backend: (v.backend ?? 'embedded') as Backend,
    faults: v.faults ?? FULL_SOAK_FAULTS,
    minMs: (v.minutes ?? 0) * 60_000,
    seed: v.seed ?? 1,
    rate: v.rate,
    brokers: v.brokers ?? 1,
  }
  if (f.brokers === 2) throw new UsageError('--brokers is 1 or 3')
  if (f.brokers === 3 && f.backend !== 'kafka') throw new UsageError('--brokers 3 needs --backend kafka')
} catch (e) {
  if (!(e instanceof UsageError)) throw e
  process.stderr.write(`soak: ${e.message}\n`)
  process.exit(2)
}

const progressLine = (p: SoakProgress) => {
  const faults = Object.entries(p.faults)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')
  const c = p.lastCheck
  const check = c
    ? `input ${c.inputRecords}, duplicates ${c.duplicates}, lost ${c.lost}, aborted reads ${c.abortedReads}, ` +
      `state mismatches ${c.stateMismatches}`
    : ''
  return `  ${Math.round(p.elapsedMs / 1000)} s: ${faults}; ${check}\n`
}
const resultLine = (r: SoakResult) => {
  const restarts = r.faults.brokerRestart ? ` (${r.faults.brokerRestart} broker restarts)` : ''
  const kills = r.faults.brokerKill ? ` (${r.faults.brokerKill} broker SIGKILLs)` : ''
  const violations = r.violations.length ? `; violations: ${r.violations.join('; ')}` : ''
  return (
    `  ${r.passed ? 'passed' : 'FAILED'}: ${r.faults.total} faults${restarts}${kills} ` +
    `in ${Math.round(r.durationMs / 1000)} s; ${r.final.inputRecords} input records; final duplicates ` +
    `${r.final.duplicates}, lost ${r.final.lost}, aborted reads ${r.final.abortedReads}, state mismatches ` +
    `${r.final.stateMismatches}, open transactions ${r.final.openTransactions}${violations}\n`
  )
}

/** The backend, its default rate, where it runs (for the first line) and what its report adds at the top. */
async function pickBackend(): Promise<{
  soak: SoakBackend<object>
  rate: number
  where: string
  header: Record<string, unknown>
  traceFaults: boolean
}> {
  if (f.backend === 'embedded')
    return { soak: embeddedSoak(new SystemTime()), rate: 3_000, where: '', header: {}, traceFaults: false }
  const { kafkaSoak, KAFKA_SOAK_NOTES, KAFKA_CLUSTER_SOAK_NOTES } = await import('../server/runs/soak/kafka.ts')
  if (f.brokers === 3) {
    const port = Number(process.env.KAFKA_CLUSTER_PORT ?? 19192)
    const dir = process.env.KAFKA_CLUSTER_DIR ?? '.kafka-cluster'
    execFileSync('bash', ['scripts/kafka-cluster.sh', 'start'], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, KAFKA_PORT: String(port), KAFKA_BROKERS_COUNT: '3', KAFKA_DIR: dir },
    })
    const brokers = [0, 1, 2].map((i) => `127.0.0.1:${port + i}`)
    return {
      soak: kafkaSoak({ brokers, localBrokersDir: path.resolve(dir) }),
      rate: 1_000,
      where: `, brokers ${brokers.join(',')}`,
      header: { brokers: 3, notes: KAFKA_CLUSTER_SOAK_NOTES },
      traceFaults: true,
    }
  }
  const port = process.env.KAFKA_PORT ?? '19092'
  execFileSync('bash', ['scripts/kafka-broker.sh', 'start'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, KAFKA_PORT: port },
  })
  const brokers = [`127.0.0.1:${port}`]
  return {
    soak: kafkaSoak({ brokers }),
    rate: 1_000,
    where: `, broker ${brokers[0]}`,
    header: { notes: KAFKA_SOAK_NOTES },
    traceFaults: true,
  }
}

const picked = await pickBackend()
const rate = f.rate ?? picked.rate
const started = Date.now()
const rssStart = process.memoryUsage().rss
const runs: SoakResult[] = []
for (const mode of ['exactly-once', 'at-least-once'] as const) {
  process.stdout.write(
    `soak ${f.backend} ${mode}: ${f.faults} faults at ${rate} records/s, seed ${f.seed}${picked.where}\n`,
  )
  const r = await runSoak(picked.soak, {
    mode,
    faults: f.faults,
    minMs: f.minMs,
    seed: f.seed,
    ratePerSec: rate,
    onFault: picked.traceFaults
      ? (kind, detail, atMs) => process.stdout.write(`  ${(atMs / 1000).toFixed(1)} s: ${kind} ${detail}\n`)
      : undefined,
    onProgress: (p) => process.stdout.write(progressLine(p)),
  })
  process.stdout.write(resultLine(r))
  runs.push(r)
  write(runs.length === 2 ? 'complete' : 'partial')
}
process.stdout.write(`report: ${reportFile()}\n`)
process.exit(runs.every((r) => r.passed) ? 0 : 1)

function reportFile(): string {
  const name = f.brokers === 3 ? `${f.backend}-3-brokers` : f.backend
  return f.faults >= FULL_SOAK_FAULTS
    ? `bench/results/soak-${name}.json`
    : `bench/results/soak-${name}-${f.faults}-faults.json`
}

/** Written after each mode: 'partial' until both modes have run. */
function write(state: 'partial' | 'complete'): void {
  mkdirSync('bench/results', { recursive: true })
  const report = {
    benchmark: 'soak',
    backend: f.backend,
    at: new Date().toISOString(),
    node: process.version,
    faultsPerMode: f.faults,
    seed: f.seed,
    ratePerSec: rate,
    durationMs: Date.now() - started,
    complete: state === 'complete',
    rssStartBytes: rssStart,
    rssEndBytes: process.memoryUsage().rss,
    ...picked.header,
    runs,
    passed: runs.every((r) => r.passed),
  }
  writeFileSync(reportFile(), `${JSON.stringify(report, null, 2)}\n`)
}
