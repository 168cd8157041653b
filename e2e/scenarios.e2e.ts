// Guided scenarios run from the dashboard in Chromium: crash-before-commit-eos, started from the
// keyboard, narrates while it runs and ends with its verdict, every expectation holding. Every one
// of the eight leaves a live lab: within 5 s of its end the lab processes again with the settings
// from before it (shown in the controls and in /api/lab), and its evidence card's link opens the
// partition log on the partition and offsets the card names.

import path from 'node:path'
import type { Page } from 'playwright-core'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { auditPage } from './page-audit.ts'
import { goTo, type LabPageName, STALL_MS, whilePaused } from './page-helpers.ts'
import { waitFor } from './progress.ts'
import { labNow, labRunsOn, openEvidence, runScenarioToEnd } from './scenario-steps.ts'
import { SCENARIOS } from '../server/lab/scenarios/index.ts'

/**
 * What a scenario's lab must return to: the user's settings (partitions are the
 * scenario lab's own, its logs the evidence).
 */
interface SettingsShown {
  api: Record<string, unknown>
  controls: { checked: string[]; commitInterval: string | null; rate: string | null; workers: string | null }
}

async function settingsShown(page: Page): Promise<SettingsShown> {
  await goTo(page, 'overview')
  const { partitions: _, ...api } = (await labNow(page)).config
  const controls = await page.getByTestId('controls').evaluate((el) => ({
    checked: [...el.querySelectorAll('[aria-checked="true"]')].map((b) => (b.textContent ?? '').trim()),
    commitInterval: el.querySelector('[data-testid="commit-interval"]')?.getAttribute('aria-valuetext') ?? null,
    rate: (el.querySelector('input[type="number"]') as HTMLInputElement | null)?.value ?? null,
    workers: el.querySelector('[data-testid="workers-count"]')?.textContent ?? null,
  }))
  return { api, controls }
}

/**
 * After a scenario ended: the lab processes again within 5 s with the settings from before it, and
 * the run's evidence card opens the partition log on the partition and offsets its link names.
 */
async function leavesALiveLab(page: Page, name: string, before: SettingsShown): Promise<void> {
  const backMs = await labRunsOn(page, name, { endedAt: Date.now(), everyMs: 100, stallMs: STALL_MS })
  process.stdout.write(`${name}: the lab committed again ${backMs} ms after the scenario ended\n`)
  expect(backMs, `${name}: ms from its end until the lab commits again`).toBeLessThan(5_000)
  await waitFor(
    async () => JSON.stringify(await settingsShown(page)) === JSON.stringify(before),
    `the controls after ${name} to show the settings from before it`,
    { boundMs: 10_000 },
  )
  expect(await settingsShown(page)).toEqual(before)

  const { from, to } = await openEvidence(page, name, {
    boundMs: 10_000,
    named: (shown, topic, partition) => shown === `${topic}-${partition}`,
  })
  const offsets = (await page
    .getByTestId('log-grid')
    .getByTestId('log-cell')
    .evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-offset'))))) as number[]
  expect(offsets[0]).toBe(Number(from))
  expect(offsets).toContain(Math.min(Number(to), Number(from) + offsets.length) - 1)
  await waitFor(
    async () => {
      const box = await page.getByTestId('partition-log').boundingBox()
      return box !== null && box.y < (page.viewportSize()?.height ?? 0) && box.y + box.height > 0
    },
    'the partition log to scroll into view',
    { boundMs: 5_000 },
  )
}

describeInChromium('guided scenarios in chromium', { waitForDashboard: true }, (lab) => {
  let defaults: SettingsShown

  it('lists every scenario with a Run button', async () => {
    const { page } = lab
    await goTo(page, 'scenarios')
    await expect
      .poll(() => page.locator('[data-testid^="run-scenario-"]').count(), { timeout: 10_000 })
      .toBe(SCENARIOS.length)
    await goTo(page, 'overview')
    await page.getByTestId('controls').waitFor()
    defaults = await settingsShown(page)
  })

  it('runs crash-before-commit-eos from the keyboard and shows the verdict: every expectation holds', async () => {
    const { page } = lab
    await goTo(page, 'scenarios')
    const run = page.getByTestId('run-scenario-crash-before-commit-eos')
    await run.focus()
    await page.keyboard.press('Enter')
    const view = page.locator('[data-testid="scenario-view"][data-name="crash-before-commit-eos"]')
    await view.waitFor({ timeout: 10_000 })
    // While it runs, every Run button waits.
    if ((await view.getAttribute('data-status')) === 'running') {
      expect(await page.getByTestId('run-scenario-crash-before-commit').isDisabled()).toBe(true)
      await page.getByTestId('scenarios').screenshot({ path: path.join(SHOTS, 'scenario-running.png') })
    }
    await expect.poll(() => view.getAttribute('data-status'), { timeout: 60_000, interval: 250 }).not.toBe('running')
    expect(await view.getAttribute('data-status')).toBe('passed')
    const expectations = view.getByTestId('scenario-expectation')
    expect(await expectations.count()).toBeGreaterThan(0)
    expect(await view.locator('[data-testid="scenario-expectation"][data-holds="false"]').count()).toBe(0)
    expect(((await view.getByTestId('scenario-conclusion').textContent()) ?? '').length).toBeGreaterThan(20)
    expect(await view.getByTestId('scenario-narrative').locator('li').count()).toBeGreaterThan(0)
    await leavesALiveLab(page, 'crash-before-commit-eos', defaults)
    // The lab on screen is still the scenario's: it aborted the crashed transaction,
    // and runs under the guarantee from before.
    await expect.poll(() => page.getByTestId('stat-guarantee').textContent()).toBe('exactly_once')
    await goTo(page, 'scenarios')
    await page.getByTestId('scenarios').screenshot({ path: path.join(SHOTS, 'scenario-verdict.png') })
    // The crashed worker's producer was fenced when the new owner took its transactional.id over.
    await goTo(page, 'transactions')
    const producers = page.getByTestId('producers')
    await producers.scrollIntoViewIfNeeded()
    await expect.poll(() => producers.getByTestId('fence-mark').count(), { timeout: 10_000 }).toBeGreaterThan(0)
    await producers.screenshot({ path: path.join(SHOTS, 'scenario-producers-fenced.png') })
    await goTo(page, 'partitions')
    await page.getByTestId('record-traces').screenshot({ path: path.join(SHOTS, 'scenario-traces.png') })
    await page.screenshot({ path: path.join(SHOTS, 'scenario-dashboard.png'), fullPage: true })
  })

  const crashBeforeCommitDuplicates =
    'runs crash-before-commit under at_least_once: duplicates in the ledger, each with the kill that caused it'
  it(crashBeforeCommitDuplicates, async () => {
    const { page } = lab
    await runScenarioToEnd(page, 'crash-before-commit', { everyMs: 250, stallMs: STALL_MS })
    const view = page.locator('[data-testid="scenario-view"][data-name="crash-before-commit"]')
    expect(await view.locator('[data-testid="scenario-expectation"][data-holds="false"]').count()).toBe(0)
    await leavesALiveLab(page, 'crash-before-commit', defaults)
    await goTo(page, 'partitions')
    const ledger = page.getByTestId('duplicate-ledger')
    await ledger.scrollIntoViewIfNeeded()
    await expect.poll(() => ledger.getByTestId('ledger-row').count(), { timeout: 15_000 }).toBeGreaterThan(0)
    expect(await ledger.getByTestId('ledger-row').first().locator('.chip').count()).toBeGreaterThan(0)
    await ledger.screenshot({ path: path.join(SHOTS, 'scenario-ledger-at-least-once.png') })
    await goTo(page, 'scenarios')
    await page.getByTestId('scenarios').screenshot({ path: path.join(SHOTS, 'scenario-verdict-at-least-once.png') })
  })

  const otherSixLeaveLiveLab =
    'the other six leave a live lab with the user’s own settings, and their cards link to their records'
  it(otherSixLeaveLiveLab, async () => {
    const { page } = lab
    // Settings of the user's own, none a default, so that a scenario's return to them shows.
    const asked = {
      'processing.guarantee': 'exactly_once_v2',
      'commit.interval.ms': 500,
      inputRatePerSec: 800,
      workers: 4,
    }
    const r = await page.evaluate(
      async (body) =>
        (
          await fetch('/api/lab/config', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json(),
      asked,
    )
    expect(r).toMatchObject({ ok: true })
    await waitFor(
      async () => (await settingsShown(page)).controls.workers === '4',
      'the controls to show the new settings',
      { boundMs: 10_000 },
    )
    const mine = await settingsShown(page)
    expect(mine.api).toMatchObject(asked)
    for (const name of [
      'crash-after-commit',
      'lost-ack',
      'zombie',
      'hanging-transaction',
      'isolation',
      'commit-interval',
    ]) {
      await runScenarioToEnd(page, name, { everyMs: 250, stallMs: STALL_MS })
      await leavesALiveLab(page, name, mine)
    }
    await goTo(page, 'scenarios')
    const cards = page.getByTestId('evidence-card')
    expect(await cards.count()).toBe(8)
    await page.getByTestId('evidence').screenshot({ path: path.join(SHOTS, 'scenario-evidence-cards.png') })
    // A card stays until dismissed.
    await page.locator('[data-testid="evidence-card"][data-id="lost-ack-1"]').getByTestId('dismiss-evidence').click()
    await waitFor(async () => (await cards.count()) === 7, 'the dismissed card to go', { boundMs: 10_000 })
  })

  const pagesPassAxeAfterScenarios =
    'after the eight scenarios, every page passes axe-core and shows no program text, held on one moment'
  it(pagesPassAxeAfterScenarios, async () => {
    const { page } = lab
    const pages: LabPageName[] = ['overview', 'scenarios', 'transactions', 'recovery', 'partitions', 'journal']
    await whilePaused(page, async () => {
      for (const name of pages) {
        await goTo(page, name)
        const audit = await auditPage(page)
        expect(audit.violations, `${name}: axe-core`).toEqual([])
        expect(audit.programText, `${name}: program text`).toEqual([])
        expect(audit.heightPx, `${name}: at most three windows tall`).toBeLessThanOrEqual(3 * audit.viewportPx)
        await page.screenshot({ path: path.join(SHOTS, `page-${name}-after-scenarios.png`), fullPage: true })
      }
    })
  })
})
