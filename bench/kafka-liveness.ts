// npm run bench:liveness — does eoscope on Kafka keep going on a machine whose cores are all busy?
// Runs `eoscope run --backend kafka --guarantee exactly_once --records 50000 --kill-every 3000
// --seed N --json` for each seed, one after the other, while CPU hogs it starts itself (one
// busy-looping process per core, by default) keep every core busy. Records each run's exit status,
// wall time, the machine's load average around it and its figures; judges them
// (bench/kafka-liveness-report.ts): every run completes, kills happened, and duplicates, lost,
// aborted reads, state mismatches and open transactions are all 0. Writes
// bench/results/kafka-liveness.json; exits 1 when a run fails that.

import { spawn } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkFlags, flag, median, writeResult } from './figures.ts'
import { coresTaken, HOGS_WHAT, hogsFlag, hogsRampUp, startCpuHogs } from './cpu-hogs.ts'
import {
  type FaultsAsked,
  judgeRun,
  JUDGED_FIGURES,
  type LivenessRun,
  livenessVerdict,
  summaryOf,
} from './kafka-liveness-report.ts'

checkFlags(
  [
    'npm run bench:liveness -- [flags]: eoscope runs on Kafka with worker kills beside CPU hogs ' +
      '(scripts/kafka-broker.sh start first)',
    '  --brokers HOST:PORT      default KAFKA_BROKERS or 127.0.0.1:19092',
    '  --seeds N,N              default 1,2,3,4,5',
    '  --guarantee G            default exactly_once',
    '  --records N              default 50000',
    '  --kill-every MS          default 3000',
    '  --hogs N                 busy-looping processes beside the runs, default one per core (0: none)',
    '  --out FILE               default bench/results/kafka-liveness.json',
  ].join('\n'),
  ['brokers', 'seeds', 'guarantee', 'records', 'kill-every', 'hogs', 'out'],
)

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const brokers = flag('brokers', process.env.KAFKA_BROKERS ?? '127.0.0.1:19092')
const seeds = flag('seeds', '1,2,3,4,5').split(',').map(Number)
const guarantee = flag('guarantee', 'exactly_once')
const records = flag('records', '50000')
const killEvery = flag('kill-every', '3000')
const hogCount = hogsFlag(cpus().length)
const out = flag('out', path.join(ROOT, 'bench/results/kafka-liveness.json'))
if (seeds.some((s) => !Number.isInteger(s))) {
  process.stderr.write('--seeds takes integers, such as 1,2,3\n')
  process.exit(2)
}

const runArgs = (seed: number) => [
  'run',
  '--backend',
  'kafka',
  '--brokers',
  brokers,
  '--guarantee',
  guarantee,
  '--records',
  records,
  '--kill-every',
  killEvery,
  '--seed',
  String(seed),
  '--json',
]
const load1m = () => Number(loadavg()[0]!.toFixed(2))

const hogs = startCpuHogs(hogCount)

function runOnce(seed: number): Promise<LivenessRun> {
  const before = load1m()
  const t0 = Date.now()
  const hogCpu0 = hogs.cpuSeconds()
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/eoscope.mjs'), ...runArgs(seed)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
  child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)))
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const summary = summaryOf(stdout)
      // What the hogs took while it ran: their CPU seconds over its wall seconds.
      const hogCores = coresTaken(hogCpu0, hogs.cpuSeconds(), Date.now() - t0)
      resolve({
        seed,
        exitCode: code,
        wallSeconds: Math.round((Date.now() - t0) / 1000),
        loadAverage1mBefore: before,
        loadAverage1mAfter: load1m(),
        hogCores,
        summary,
        ...(summary === null ? { errorTail: stderr.trim().split('\n').slice(-3).join(' | ') } : {}),
      })
    })
  })
}

const runs: LivenessRun[] = []
await hogsRampUp(hogs)
for (const seed of seeds) {
  const r = await runOnce(seed)
  runs.push(r)
  const s = r.summary
  process.stdout.write(
    `seed ${seed}: exit ${r.exitCode}, ${r.wallSeconds} s, load ${r.loadAverage1mBefore} -> ` +
      `${r.loadAverage1mAfter}, hogs took ${r.hogCores ?? '?'} cores` +
      (s
        ? `, ${s.kills} kills, ${s.throughputPerSec} rec/s, ${s.transactions.committed} committed / ` +
          `${s.transactions.aborted} aborted, ${JUDGED_FIGURES.map((f) => `${f} ${s[f]}`).join(', ')}`
        : `, no summary: ${r.errorTail}`) +
      (s?.stalled ? `, STALLED: ${s.stalled.reason}` : '') +
      '\n',
  )
}
hogs.stop()

const faults: FaultsAsked = Number(killEvery) > 0 ? 'kills' : 'none'
const verdict = livenessVerdict(runs, faults)
writeResult(out, {
  benchmark: 'kafka-liveness',
  at: new Date().toISOString(),
  command:
    `eoscope ${runArgs(0).join(' ').replace('--seed 0', '--seed N')} (seeds ${seeds.join(', ')}, one after the ` +
    `other)`,
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version },
  hogs: { count: hogCount, what: HOGS_WHAT },
  definitions: {
    completed:
      'all input committed by the group and the validator run, exit 0 (a run that stalls, committing nothing ' +
      'for max(60 s, 12 x session.timeout.ms), exits 3 with the reason)',
    judged: `${JUDGED_FIGURES.join(', ')}: each must be 0 (docs/measures.md); null (unavailable after a stall) fails`,
    throughputPerSec:
      'committed input records per second over the run (docs/measures.md processed throughput), kills and ' +
      'recoveries included',
    loadAverage1m: "the machine's 1-minute load average (os.loadavg) just before and just after the run",
    hogCores:
      "the hogs' CPU seconds (/proc/<pid>/stat, user + system) during the run over its wall seconds: how many " +
      "cores' worth of CPU they took from it",
  },
  medianWallSeconds: median(runs.map((r) => r.wallSeconds)),
  runs: runs.map((r) => ({
    seed: r.seed,
    exitCode: r.exitCode,
    wallSeconds: r.wallSeconds,
    loadAverage1mBefore: r.loadAverage1mBefore,
    loadAverage1mAfter: r.loadAverage1mAfter,
    hogCores: r.hogCores ?? null,
    ...(r.summary
      ? {
          completed: judgeRun(r, faults).completed,
          stalled: r.summary.stalled?.reason ?? null,
          kills: r.summary.kills,
          outputRecords: r.summary.outputRecords,
          throughputPerSec: r.summary.throughputPerSec,
          transactions: r.summary.transactions,
          ...Object.fromEntries(JUDGED_FIGURES.map((f) => [f, r.summary![f]])),
        }
      : { completed: false, error: r.errorTail ?? '' }),
  })),
  ...verdict,
})
process.stdout.write(
  `${verdict.passed ? 'passed' : 'FAILED'}: ${verdict.runCount} runs, all completed ${verdict.allCompleted}, ` +
    `kills in every run ${verdict.allFaultsInjected}, all figures 0 ${verdict.allZero} -> ` +
    `${path.relative(ROOT, out)}\n`,
)
for (const p of verdict.problems) process.stdout.write(`  seed ${p.seed}: ${p.problems.join('; ')}\n`)
process.exit(verdict.passed ? 0 : 1)
