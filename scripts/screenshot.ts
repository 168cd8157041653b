// npx tsx scripts/screenshot.ts — README's screenshot and the gallery of pages (docs/gallery.md).
// On the embedded lab: the overview at 1440×900 a few seconds after a worker was killed at step 4
// under exactly_once (public/screenshot.png); then, after the crash-before-commit scenario, each
// page of the lab at 1440×900 and the overview at 420 px (public/gallery/*.png).

import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { launchBrowser } from '../e2e/browser.ts'
import { goTo, type LabPageName } from '../e2e/page-helpers.ts'
import { ensureBuild, ROOT, startServer } from '../e2e/server-process.ts'

const GALLERY = path.join(ROOT, 'public', 'gallery')
const PAGES: LabPageName[] = ['overview', 'scenarios', 'transactions', 'recovery', 'partitions', 'journal']

async function write(page: Page, file: string): Promise<void> {
  await page.screenshot({ path: file })
  process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`)
}

/** Kills a running worker at step 4 (its transaction surely open) and waits for its recovery. */
async function killAndRecover(page: Page): Promise<void> {
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
}

ensureBuild()
mkdirSync(GALLERY, { recursive: true })
const server = await startServer()
const browser = await launchBrowser({ width: 1440, height: 900 })
try {
  const page = await browser.context.newPage()
  await page.goto(server.url)
  await page.getByTestId('dashboard').waitFor({ timeout: 15_000 })
  await page.waitForTimeout(6_000)
  await killAndRecover(page)
  await page.waitForTimeout(3_000)
  await write(page, path.join(ROOT, 'public', 'screenshot.png'))

  await goTo(page, 'scenarios')
  await page.getByTestId('run-scenario-crash-before-commit').click()
  await page.locator('[data-testid="evidence-card"][data-name="crash-before-commit"]').waitFor({ timeout: 300_000 })
  await goTo(page, 'overview')
  await killAndRecover(page)
  for (const name of PAGES) {
    await goTo(page, name)
    await page.waitForTimeout(1_500)
    await write(page, path.join(GALLERY, `${name}.png`))
  }
  await goTo(page, 'overview')
  await page.setViewportSize({ width: 420, height: 900 })
  await page.waitForTimeout(1_500)
  await write(page, path.join(GALLERY, 'overview-420.png'))
} finally {
  await browser.close()
  await server.stop()
}
process.exit(0)
