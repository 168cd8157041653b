// EOSCOPE_DATA_DIR=DIR npx tsx scripts/screenshot-experiments.ts — the README's experiment
// screenshots, from the sweeps stored under DIR: the newest model sweep (`eoscope sweep --model`)
// to public/screenshot-experiments-model.png, and the newest measured one (`eoscope sweep`, its
// points with their 95% intervals) to public/screenshot-experiments-measured.png.

import path from 'node:path'
import type { ExperimentRecord, ExperimentSummary } from '../lib/experiment-protocol.ts'
import { launchBrowser } from '../e2e/browser.ts'
import { ROOT, startServer } from '../e2e/server-process.ts'

const dataDir = process.env.EOSCOPE_DATA_DIR
if (!dataDir) throw new Error('set EOSCOPE_DATA_DIR to a data directory holding a model sweep and a measured one')

const server = await startServer({ env: { EOSCOPE_DATA_DIR: dataDir, KAFKA_BROKERS: '' } })
const browser = await launchBrowser({ width: 1440, height: 1000 })
try {
  const { experiments } = (await (await fetch(`${server.url}/api/experiments`)).json()) as {
    experiments: ExperimentSummary[]
  }
  const records = await Promise.all(
    experiments.map(
      async (e) => (await (await fetch(`${server.url}/api/experiments/${e.id}`)).json()) as ExperimentRecord,
    ),
  )
  const newest = (clock: 'virtual' | 'system') => records.find((r) => r.machine.clock === clock && r.status === 'done')
  const page = await browser.context.newPage()
  for (const [clock, name] of [
    ['virtual', 'model'],
    ['system', 'measured'],
  ] as const) {
    const r = newest(clock)
    if (!r) throw new Error(`no ${name} sweep stored under ${dataDir}`)
    await page.goto(`${server.url}/experiments?id=${encodeURIComponent(r.id)}`)
    await page.locator('[data-testid="shown-experiment"]', { hasText: r.label ?? r.id }).waitFor({ timeout: 30_000 })
    await page.getByTestId('sweep-chart-tradeoff').waitFor({ timeout: 30_000 })
    await page
      .getByTestId('noise-warning')
      .or(page.getByTestId('model-label'))
      .first()
      .evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await page.waitForTimeout(500)
    await page.screenshot({ path: path.join(ROOT, 'public', `screenshot-experiments-${name}.png`) })
  }
} finally {
  await browser.close()
  await server.stop()
}
