// npx tsx scripts/screenshot.ts — the README's screenshot: the dashboard on the embedded lab a few
// seconds after a worker was killed at step 4 under exactly_once (recovery, an aborted transaction).
// With KAFKA_BROKERS=host:port in the environment: the same on the Kafka backend (worker processes),
// written to public/screenshot-kafka.png.

import path from 'node:path'
import { ensureBuild, ROOT, startServer } from '../e2e/server-process.ts'
import { launchBrowser } from '../e2e/browser.ts'

ensureBuild()
const kafka = process.env.KAFKA_BROKERS
const server = await startServer(kafka ? { env: { EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: kafka }, timeoutMs: 90_000 } : {})
const browser = await launchBrowser({ width: 1440, height: 1000 })
try {
  const page = await browser.context.newPage()
  await page.goto(server.url)
  await page.getByTestId('dashboard').waitFor({ timeout: 15_000 })
  await page.waitForTimeout(kafka ? 10_000 : 6_000)
  const id = (await page.locator('article.worker-card[data-state="running"]').first().getAttribute('data-testid'))!.replace(/^worker-/, '')
  await page.evaluate(async (workerId) => {
    await fetch(`/api/workers/${encodeURIComponent(workerId)}/kill`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ step: 4 }) })
  }, id)
  await page.locator('[data-testid="recovery"][data-complete="true"]').first().waitFor({ timeout: 60_000 })
  await page.waitForTimeout(3_000)
  const file = path.join(ROOT, 'public', kafka ? 'screenshot-kafka.png' : 'screenshot.png')
  await page.screenshot({ path: file })
  process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`)
} finally {
  await browser.close()
  await server.stop()
}
process.exit(0)
