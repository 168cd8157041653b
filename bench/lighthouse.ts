// Lighthouse 12 on the lab's pages (desktop preset, Debian's Chromium): performance, accessibility
// and best practices with total blocking time, largest contentful paint and main-thread work, over
// several runs of each page; writes bench/results/lighthouse.json. A benchmark, not a test: its
// figures move with the machine's load, which the file records beside them.
//
//   npm run bench:lighthouse [-- --runs 3 --pages /,/transactions --out FILE]

import { execFileSync } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/browser.ts'
import { ROOT, startServer } from '../e2e/server-process.ts'
import { checkFlags, flag, type Spread, spread, writeResult } from './figures.ts'

const USAGE = `npm run bench:lighthouse [-- flags]
  --runs N        Lighthouse runs per page (default 3); each figure is their median, with min and max
  --pages LIST    comma-separated paths (default /)
  --out FILE      where to write (default bench/results/lighthouse.json)`
checkFlags(USAGE, ['runs', 'pages', 'out'])

const RUNS = Number(flag('runs', '3'))
const PAGES = flag('pages', '/').split(',')
const OUT = path.resolve(ROOT, flag('out', 'bench/results/lighthouse.json'))
const TARGETS = { performance: { min: 90 }, accessibility: { min: 95 }, totalBlockingTimeMs: { max: 200 } }

interface LighthouseRun {
  performance: number
  accessibility: number
  bestPractices: number
  totalBlockingTimeMs: number
  largestContentfulPaintMs: number
  mainThreadWorkMs: number
  transferredKiB: number
}

/** One Lighthouse run of `url`, from its JSON report. */
function lighthouse(url: string): LighthouseRun {
  const flags = CHROMIUM_ARGS.filter((a) => !a.startsWith('--headless')).concat('--headless=new')
  const out = execFileSync(
    path.join(ROOT, 'node_modules', '.bin', 'lighthouse'),
    [url, '--preset=desktop', '--output=json', '--quiet', `--chrome-flags=${flags.join(' ')}`],
    { env: { ...process.env, CHROME_PATH: CHROMIUM_PATH }, maxBuffer: 512 * 1024 * 1024 },
  ).toString()
  const r = JSON.parse(out) as {
    categories: Record<string, { score: number }>
    audits: Record<string, { numericValue?: number }>
  }
  const score = (k: string) => Math.round((r.categories[k]?.score ?? 0) * 100)
  const audit = (k: string) => Math.round(r.audits[k]?.numericValue ?? Number.NaN)
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    totalBlockingTimeMs: audit('total-blocking-time'),
    largestContentfulPaintMs: audit('largest-contentful-paint'),
    mainThreadWorkMs: audit('mainthread-work-breakdown'),
    transferredKiB: Math.round((r.audits['total-byte-weight']?.numericValue ?? 0) / 1024),
  }
}

const server = await startServer()
const pages: Record<string, Record<keyof LighthouseRun, Spread> & { loadAverage: number[] }> = {}
try {
  // The lab warms up (first snapshots, the journal) before the first run.
  await new Promise((r) => setTimeout(r, 5_000))
  for (const p of PAGES) {
    const runs: LighthouseRun[] = []
    const loads: number[] = []
    for (let i = 0; i < RUNS; i++) {
      loads.push(Number(os.loadavg()[0]!.toFixed(2)))
      runs.push(lighthouse(server.url + p))
      process.stdout.write(`${p} run ${i + 1}/${RUNS}: ${JSON.stringify(runs.at(-1))}\n`)
    }
    const keys = Object.keys(runs[0]!) as (keyof LighthouseRun)[]
    pages[p] = {
      ...(Object.fromEntries(keys.map((k) => [k, spread(runs.map((r) => r[k]))])) as Record<
        keyof LighthouseRun,
        Spread
      >),
      loadAverage: loads,
    }
  }
} finally {
  await server.stop()
}

const met = Object.fromEntries(
  Object.entries(pages).map(([p, f]) => [
    p,
    {
      performance: f.performance.median >= TARGETS.performance.min,
      accessibility: f.accessibility.median >= TARGETS.accessibility.min,
      totalBlockingTime: f.totalBlockingTimeMs.median <= TARGETS.totalBlockingTimeMs.max,
    },
  ]),
)
writeResult(OUT, {
  benchmark: 'lighthouse',
  lighthouse: '12.2.3, desktop preset',
  browser: CHROMIUM_PATH,
  runsPerPage: RUNS,
  machine: { cpus: os.cpus().length, node: process.version },
  lab: 'embedded log, the default lab (exactly_once, 3 workers, 500 records/s), live while measured',
  targets: TARGETS,
  met,
  pages,
})
process.stdout.write(`wrote ${path.relative(ROOT, OUT)}: ${JSON.stringify(met)}\n`)
