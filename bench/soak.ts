// npm run soak -- --backend embedded|kafka --faults N [--minutes M] [--seed S] [--rate R]
// Runs the chaos soak under exactly-once (embedded: exactly_once and exactly_once_v2, switching
// between them; kafka: exactly_once) and under at_least_once, and writes
// bench/results/soak-<backend>.json. Exit 1 on any violation.
// Kafka: the local broker of scripts/kafka-broker.sh on KAFKA_PORT (default 19092), started if it
// is not running; the soak stops and starts it mid-run.

import { mkdirSync, writeFileSync } from 'node:fs'
import { type FlagValues, helpText, parseCommandLine, UsageError } from '../server/cli/flags.ts'
import { SystemTime } from '../server/log/time.ts'
import { runSoak } from '../server/lab/soak.ts'

const SOAK = {
  program: 'npm run',
  name: 'soak',
  summary: 'the chaos soak under exactly-once and at_least_once; writes bench/results/soak-<backend>.json, exit 1 on any violation',
  flags: {
    backend: { type: 'choice', choices: ['embedded', 'kafka'], meaning: 'the log', defaultText: 'embedded' },
    faults: { type: 'number', meaning: 'faults per mode', range: { min: 1, max: 100_000 }, integer: true },
    minutes: { type: 'number', meaning: 'run at least this long per mode', range: { min: 0, max: 600 }, integer: false },
    seed: { type: 'number', meaning: 'seed of the fault schedule', range: { min: 0, max: Number.POSITIVE_INFINITY }, integer: true },
    rate: { type: 'number', meaning: 'input records per second (default 3000 embedded, 1000 kafka)', range: { min: 1, max: 1_000_000 }, integer: false },
  },
} as const
let flags: FlagValues<typeof SOAK.flags>
try {
  const line = parseCommandLine(SOAK, process.argv.slice(2))
  if (line.help) {
    process.stdout.write(helpText(SOAK))
    process.exit(0)
  }
  flags = line.flags
} catch (e) {
  if (e instanceof UsageError) {
    process.stderr.write(`soak: ${e.message}\n`)
    process.exit(2)
  }
  throw e
}
const backend = (flags.backend as string | undefined) ?? 'embedded'
if (backend === 'kafka') {
  process.exit(await kafkaSoak())
}
const faults = (flags.faults as number | undefined) ?? 200
const minMs = ((flags.minutes as number | undefined) ?? 0) * 60_000
const seed = (flags.seed as number | undefined) ?? 1
const rate = (flags.rate as number | undefined) ?? 3_000
const time = new SystemTime()
const rssStart = process.memoryUsage().rss

const runs = []
for (const mode of ['exactly-once', 'at-least-once'] as const) {
  process.stdout.write(`soak ${mode}: ${faults} faults at ${rate} records/s, seed ${seed}\n`)
  const r = await runSoak(time, {
    mode,
    faults,
    minMs,
    seed,
    ratePerSec: rate,
    onProgress: (p) => process.stdout.write(`  ${Math.round(p.elapsedMs / 1000)} s: ${Object.entries(p.faults).map(([k, v]) => `${k} ${v}`).join(', ')}; ${p.lastCheck ? `duplicates ${p.lastCheck.duplicates}, lost ${p.lastCheck.lost}, state mismatches ${p.lastCheck.stateMismatches}` : ''}\n`),
  })
  process.stdout.write(`  ${r.passed ? 'passed' : 'FAILED'}: ${r.faults.total} faults in ${Math.round(r.durationMs / 1000)} s; final duplicates ${r.final.duplicates}, lost ${r.final.lost}, aborted reads ${r.final.abortedReads}, state mismatches ${r.final.stateMismatches}, open transactions ${r.final.openTransactions}${r.violations.length ? `; violations: ${r.violations.join('; ')}` : ''}\n`)
  runs.push(r)
}

mkdirSync('bench/results', { recursive: true })
writeFileSync(
  `bench/results/soak-${backend}.json`,
  JSON.stringify({ benchmark: 'soak', backend, at: new Date().toISOString(), node: process.version, faultsPerMode: faults, seed, ratePerSec: rate, rssStartBytes: rssStart, rssEndBytes: process.memoryUsage().rss, runs, passed: runs.every((r) => r.passed) }, null, 2) + '\n',
)
process.exit(runs.every((r) => r.passed) ? 0 : 1)

async function kafkaSoak(): Promise<number> {
  const { execFileSync } = await import('node:child_process')
  const { runKafkaSoak, KAFKA_SOAK_NOTES } = await import('../server/lab/kafka/kafka-soak.ts')
  const faults = (flags.faults as number | undefined) ?? 200
  const minMs = ((flags.minutes as number | undefined) ?? 0) * 60_000
  const seed = (flags.seed as number | undefined) ?? 1
  const rate = (flags.rate as number | undefined) ?? 1_000
  const port = process.env.KAFKA_PORT ?? '19092'
  execFileSync('bash', ['scripts/kafka-broker.sh', 'start'], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, KAFKA_PORT: port } })
  const brokers = [`127.0.0.1:${port}`]
  const started = Date.now()
  const runs: Awaited<ReturnType<typeof runKafkaSoak>>[] = []
  for (const mode of ['exactly-once', 'at-least-once'] as const) {
    process.stdout.write(`soak kafka ${mode}: ${faults} faults at ${rate} records/s, seed ${seed}, broker ${brokers[0]}\n`)
    const r = await runKafkaSoak({
      mode,
      faults,
      minMs,
      seed,
      ratePerSec: rate,
      brokers,
      onFault: (kind, detail, atMs) => process.stdout.write(`  ${(atMs / 1000).toFixed(1)} s: ${kind} ${detail}\n`),
      onProgress: (p) => process.stdout.write(`  ${Math.round(p.elapsedMs / 1000)} s: ${Object.entries(p.faults).map(([k, v]) => `${k} ${v}`).join(', ')}; ${p.lastCheck ? `input ${p.lastCheck.inputRecords}, duplicates ${p.lastCheck.duplicates}, lost ${p.lastCheck.lost}, aborted reads ${p.lastCheck.abortedReads}, state mismatches ${p.lastCheck.stateMismatches}` : ''}\n`),
    })
    process.stdout.write(`  ${r.passed ? 'passed' : 'FAILED'}: ${r.faults.total} faults (${r.faults.brokerRestart} broker restarts) in ${Math.round(r.durationMs / 1000)} s; ${r.final.inputRecords} input records; final duplicates ${r.final.duplicates}, lost ${r.final.lost}, aborted reads ${r.final.abortedReads}, state mismatches ${r.final.stateMismatches}, open transactions ${r.final.openTransactions}${r.violations.length ? `; violations: ${r.violations.join('; ')}` : ''}\n`)
    runs.push(r)
    // Written after each mode, so a long run that is stopped keeps what it measured.
    write(runs.length === 2)
  }
  return runs.every((r) => r.passed) ? 0 : 1

  function write(complete: boolean): void {
    mkdirSync('bench/results', { recursive: true })
    writeFileSync(
      'bench/results/soak-kafka.json',
      JSON.stringify({ benchmark: 'soak', backend: 'kafka', at: new Date().toISOString(), node: process.version, faultsPerMode: faults, seed, ratePerSec: rate, durationMs: Date.now() - started, complete, notes: KAFKA_SOAK_NOTES, runs, passed: runs.every((r) => r.passed) }, null, 2) + '\n',
    )
  }
}
