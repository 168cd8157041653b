// npx tsx scripts/screenshot.ts — the README's screenshot: the dashboard on the embedded lab a few
// seconds after a worker was killed at step 4 under exactly_once (recovery, an aborted transaction).
// With KAFKA_BROKERS=host:port in the environment: the same on the Kafka backend (worker processes),
// written to public/screenshot-kafka.png.
// Then, at 1440×900 and 1280×800: the lab paused (public/screenshot-paused-WxH.png), the event
// log with the view held on the kill (public/screenshot-event-log-WxH.png), and (embedded log) the
// lab after the crash-before-commit scenario with its evidence card and the partition log opened
// by its link (public/screenshot-evidence-WxH.png).

import path from 'node:path'
import { ensureBuild, ROOT, startServer } from '../e2e/server-process.ts'
import type { Page } from 'playwright-core'
import { launchBrowser } from '../e2e/browser.ts'

const TIME_CONTROL_SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
]

/** The paused lab, and the event log with every panel held on the kill, at each size. */
async function timeControlShots(page: Page, killed: string, suffix: string): Promise<void> {
  for (const size of TIME_CONTROL_SIZES) {
    const name = `${size.width}x${size.height}${suffix}`
    await page.setViewportSize(size)
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.getByTestId('time-pause').click()
    await page.locator('[data-testid="dashboard"][data-view="pause"]').waitFor({ timeout: 10_000 })
    // A few seconds behind, so the header says the lab runs on.
    await page.waitForTimeout(3_000)
    await write(page, `screenshot-paused-${name}.png`)
    await page.getByTestId('time-live').click()
    const row = page.locator('[data-testid="event-row"][data-kind="kill"]', { hasText: killed }).first()
    await row.waitFor({ timeout: 30_000 })
    await row.getByTestId('event-show').click()
    await page.locator('[data-testid="dashboard"][data-view="frame"]').waitFor({ timeout: 30_000 })
    await page.getByTestId('event-log').evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await page.waitForTimeout(500)
    await write(page, `screenshot-event-log-${name}.png`)
    await page.getByTestId('time-live').click()
  }
}

/** After a guided scenario: its evidence card, and the partition log its first link opened. */
async function evidenceShots(page: Page): Promise<void> {
  const status = await page.evaluate(
    async () => (await fetch('/api/scenarios/crash-before-commit', { method: 'POST' })).status,
  )
  if (status !== 200) throw new Error(`the scenario did not start: ${status}`)
  await page.locator('[data-testid="evidence-card"][data-name="crash-before-commit"]').waitFor({ timeout: 300_000 })
  for (const size of TIME_CONTROL_SIZES) {
    await page.setViewportSize(size)
    await page.getByTestId('evidence-link').first().click()
    await page.locator('[data-window="at"]').first().waitFor({ timeout: 30_000 })
    await page.getByTestId('evidence').evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await page.waitForTimeout(1_000)
    await write(page, `screenshot-evidence-${size.width}x${size.height}.png`)
  }
}

async function write(page: Page, name: string): Promise<void> {
  const file = path.join(ROOT, 'public', name)
  await page.screenshot({ path: file })
  process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`)
}

ensureBuild()
const kafka = process.env.KAFKA_BROKERS
const server = await startServer(
  kafka ? { env: { EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: kafka }, timeoutMs: 90_000 } : {},
)
const browser = await launchBrowser({ width: 1440, height: 1000 })
try {
  const page = await browser.context.newPage()
  await page.goto(server.url)
  await page.getByTestId('dashboard').waitFor({ timeout: 15_000 })
  await page.waitForTimeout(kafka ? 10_000 : 6_000)
  const id = (await page
    .locator('article.worker-card[data-state="running"]')
    .first()
    .getAttribute('data-testid'))!.replace(/^worker-/, '')
  await page.evaluate(async (workerId) => {
    await fetch(`/api/workers/${encodeURIComponent(workerId)}/kill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ step: 4 }),
    })
  }, id)
  await page.locator('[data-testid="recovery"][data-complete="true"]').first().waitFor({ timeout: 60_000 })
  await page.waitForTimeout(3_000)
  await write(page, kafka ? 'screenshot-kafka.png' : 'screenshot.png')
  await timeControlShots(page, id, kafka ? '-kafka' : '')
  if (!kafka) await evidenceShots(page)
} finally {
  await browser.close()
  await server.stop()
}
process.exit(0)
