// npm run bench:memory -- [--minutes 60] [--rate 2000]
// Runs the dashboard's lab (retention, compaction, incremental validation, a kill every minute)
// at steady load and samples resident memory. Memory is bounded when RSS grows by less than 10%
// after the first five minutes. Adds a `memory` section to bench/results/soak-embedded.json.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { parseCommandLine } from '../server/cli/flags.ts'
import { createLab } from '../server/lab/index.ts'
import { memoryGrowth, type MemorySample } from './memory-growth.ts'

const line = parseCommandLine(
  {
    program: 'npm run',
    name: 'bench:memory',
    summary: 'resident memory of a long-running lab',
    flags: {
      minutes: { type: 'number', meaning: 'minutes to run', range: { min: 1, max: 600 }, integer: false, default: 60 },
      rate: {
        type: 'number',
        meaning: 'input records per second',
        range: { min: 1, max: 100_000 },
        integer: false,
        default: 2_000,
      },
    },
  } as const,
  process.argv.slice(2),
)
if (line.help) process.exit(0)
const { minutes, rate } = line.flags
const lab = await createLab({ ratePerSec: rate })
const start = Date.now()
const samples: (MemorySample & { committedInput: number })[] = []
const mb = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10
let kills = 0
while (Date.now() - start < minutes * 60_000) {
  await new Promise((r) => setTimeout(r, 30_000))
  const s = lab.snapshot()
  const m = process.memoryUsage()
  const sample = {
    atS: Math.round((Date.now() - start) / 1000),
    rssMB: mb(m.rss),
    heapUsedMB: mb(m.heapUsed),
    heapTotalMB: mb(m.heapTotal),
    externalMB: mb(m.external),
    arrayBuffersMB: mb(m.arrayBuffers),
    committedInput: s.totals.committedInput,
  }
  samples.push(sample)
  process.stdout.write(
    `${sample.atS} s: rss ${sample.rssMB} MB, heap ${sample.heapUsedMB} of ${sample.heapTotalMB} MB, external ` +
      `${sample.externalMB} MB (array buffers ${sample.arrayBuffersMB} MB), committed input ` +
      `${sample.committedInput}\n`,
  )
  if (samples.length % 2 === 0) {
    const live = s.workers.find((w) => w.state === 'running' && w.taskIds.length > 0)
    if (live && (await lab.execute('killWorker', { workerId: live.id })).ok) kills++
  }
}
const snap = lab.snapshot()
await lab.close()
const memory = {
  minutes,
  ratePerSec: rate,
  kills,
  committedInput: snap.totals.committedInput,
  correctness: snap.correctness,
  ...memoryGrowth(samples),
}
mkdirSync('bench/results', { recursive: true })
const file = 'bench/results/soak-embedded.json'
const doc = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { benchmark: 'soak', backend: 'embedded' }
doc.memory = memory
writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`)
process.stdout.write(
  `rss median 5-10 min ${memory.rssMedianFirstWindowMB} MB, last 5 min ${memory.rssMedianLastWindowMB} MB: ` +
    `growth ${memory.growthAfter5Min}\n`,
)
process.exit(memory.growthAfter5Min !== null && memory.growthAfter5Min < 0.1 ? 0 : 1)
