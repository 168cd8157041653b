// A guided scenario run from the dashboard in Chromium: crash-before-commit-eos, started from the
// keyboard, narrates while it runs and ends with its verdict, every expectation holding.

import path from 'node:path'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'

describeInChromium('guided scenarios in chromium', { waitForDashboard: true }, (lab) => {
  it('lists every scenario with a Run button', async () => {
    const { page } = lab
    await expect.poll(() => page.locator('[data-testid^="run-scenario-"]').count(), { timeout: 10_000 }).toBe(7)
  })

  it('runs crash-before-commit-eos from the keyboard and shows the verdict: every expectation holds', async () => {
    const { page } = lab
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
    // The lab on screen is the scenario's: it ran under exactly_once and aborted the crashed transaction.
    await expect.poll(() => page.getByTestId('stat-guarantee').textContent()).toBe('exactly_once')
    await page.getByTestId('scenarios').screenshot({ path: path.join(SHOTS, 'scenario-verdict.png') })
    // The crashed worker's producer was fenced when the new owner took its transactional.id over.
    const producers = page.getByTestId('producers')
    await producers.scrollIntoViewIfNeeded()
    await expect.poll(() => producers.getByTestId('fence-mark').count(), { timeout: 10_000 }).toBeGreaterThan(0)
    await producers.screenshot({ path: path.join(SHOTS, 'scenario-producers-fenced.png') })
    await page.getByTestId('record-traces').screenshot({ path: path.join(SHOTS, 'scenario-traces.png') })
    await page.screenshot({ path: path.join(SHOTS, 'scenario-dashboard.png'), fullPage: true })
  })

  it('runs crash-before-commit under at_least_once: duplicates in the ledger, each with the kill that caused it', async () => {
    const { page } = lab
    await page.getByTestId('run-scenario-crash-before-commit').click()
    const view = page.locator('[data-testid="scenario-view"][data-name="crash-before-commit"]')
    await view.waitFor({ timeout: 10_000 })
    await expect.poll(() => view.getAttribute('data-status'), { timeout: 60_000, interval: 250 }).not.toBe('running')
    expect(await view.getAttribute('data-status')).toBe('passed')
    expect(await view.locator('[data-testid="scenario-expectation"][data-holds="false"]').count()).toBe(0)
    const ledger = page.getByTestId('duplicate-ledger')
    await ledger.scrollIntoViewIfNeeded()
    await expect.poll(() => ledger.getByTestId('ledger-row').count(), { timeout: 15_000 }).toBeGreaterThan(0)
    expect(await ledger.getByTestId('ledger-row').first().locator('.chip').count()).toBeGreaterThan(0)
    await ledger.screenshot({ path: path.join(SHOTS, 'scenario-ledger-at-least-once.png') })
    await page.getByTestId('scenarios').screenshot({ path: path.join(SHOTS, 'scenario-verdict-at-least-once.png') })
  })
})
