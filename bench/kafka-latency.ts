// npm run bench:kafka-latency — the commit-interval trade-off on the local Kafka broker
// (scripts/kafka-broker.sh) with the worker processes 0, 1 and 5 ms (one way) from it: for each
// latency, `eoscope sweep --backend kafka --network-latency-ms MS --json --no-save` over the intervals
// and guarantees asked, the same command a user runs, one after the other on the same broker.
// Each row: processed throughput (median, min and max of its runs), end-to-end latency p50 and p99,
// recovery time and its phases, as the sweep reports them. Writes bench/results/kafka-latency.json.

import { execFile } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { checkFlags, flag, writeResult } from './figures.ts'

checkFlags(
  [
    'npm run bench:kafka-latency -- [flags]: the commit-interval sweep on the local broker at several distances',
    '  --brokers HOST:PORT      default KAFKA_BROKERS or 127.0.0.1:19092',
    '  --latencies MS,MS        one-way latency between the workers and the broker, default 0,1,5',
    '  --intervals MS,MS        commit.interval.ms values, default 10,100,1000',
    '  --guarantees G,G         default at_least_once,exactly_once_v2',
    '  --repeat N               runs of each cell, default 3 (6 or more give a 95% interval)',
    '  --out FILE               default bench/results/kafka-latency.json',
  ].join('\n'),
  ['brokers', 'latencies', 'intervals', 'guarantees', 'repeat', 'out'],
)

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = path.join(ROOT, 'bin/eoscope.mjs')
const brokers = flag('brokers', process.env.KAFKA_BROKERS ?? '127.0.0.1:19092')
const latencies = flag('latencies', '0,1,5').split(',').map(Number)
const intervals = flag('intervals', '10,100,1000')
const guarantees = flag('guarantees', 'at_least_once,exactly_once_v2')
const repeat = flag('repeat', '3')
const OUT = path.resolve(ROOT, flag('out', 'bench/results/kafka-latency.json'))

/** A row of eoscope sweep --json, the fields printed here (the rest kept as they come). */
interface SweepRow {
  guarantee: string
  commitIntervalMs: number
  throughputPerSec: { median: number | null; min: number | null; max: number | null }
  latencyP50Ms: number | null
  recoveryMs: number | null
}

async function sweepAt(latencyMs: number): Promise<{ wallSeconds: number; load: number[]; rows: SweepRow[] }> {
  const t0 = Date.now()
  const before = os.loadavg()[0]!
  const args = [BIN, 'sweep', '--backend', 'kafka', '--brokers', brokers, '--json', '--no-save']
  args.push('--intervals', intervals, '--guarantees', guarantees, '--repeat', repeat)
  args.push('--network-latency-ms', String(latencyMs), '--seed', '1')
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 3 * 3600_000,
  })
  const rows = (JSON.parse(stdout) as { rows: SweepRow[] }).rows
  const after = os.loadavg()[0]!
  return { wallSeconds: Math.round((Date.now() - t0) / 1000), load: [before, after].map((x) => +x.toFixed(2)), rows }
}

const sweeps = []
for (const latencyMs of latencies) {
  process.stderr.write(`bench:kafka-latency: the workers ${latencyMs} ms from the broker\n`)
  const s = await sweepAt(latencyMs)
  sweeps.push({ oneWayLatencyMs: latencyMs, ...s })
  for (const r of s.rows)
    process.stdout.write(
      `${latencyMs} ms  ${r.guarantee.padEnd(16)} ${String(r.commitIntervalMs).padStart(5)} ms  ` +
        `${r.throughputPerSec.median ?? 'n/a'} records/s (${r.throughputPerSec.min}-${r.throughputPerSec.max}), ` +
        `p50 ${r.latencyP50Ms} ms, recovery ${r.recoveryMs} ms\n`,
    )
}

writeResult(OUT, {
  benchmark: 'kafka-latency',
  at: new Date().toISOString(),
  machine: { cpu: os.cpus()[0]?.model ?? 'unknown', cpus: os.cpus().length, node: process.version },
  definition:
    'eoscope sweep --backend kafka on the local broker, the worker processes behind the proxy that holds every ' +
    'frame for oneWayLatencyMs each way (the load generator and the validator reach the broker directly); each ' +
    'row as eoscope sweep --json reports it: throughputPerSec over its runs (median, min, max, values, and ' +
    'low95/high95 with 6 runs or more), end-to-end latency p50 and p99, recovery time and its phases (medians); ' +
    'with 3 runs the range of a cell is a 75% interval of its median',
  load: { brokers, intervals, guarantees, repeat: Number(repeat), workers: 3, partitions: 6 },
  sweeps,
})
process.stderr.write(`bench:kafka-latency: wrote ${path.relative(ROOT, OUT)}\n`)
