// The deep views in Chromium against the real server and the embedded lab: the partition log's
// cells and markers and its selector, producer rows with their epochs, traced records through the
// five steps. (The fencing of a crashed producer is checked in scenarios.e2e.ts, where the kill
// surely hits an open transaction.)

import path from 'node:path'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { goTo, labCommitsMore, STATE_MS } from './page-helpers.ts'

describeInChromium('the deep views in chromium', { waitForDashboard: true }, (lab) => {
  it('draws the partition log live: cells, the LSO and high watermark, both consumers', async () => {
    const { page } = lab
    await goTo(page, 'partitions')
    const log = page.getByTestId('partition-log')
    await log.scrollIntoViewIfNeeded()
    await expect.poll(() => log.getByTestId('log-cell').count(), { timeout: STATE_MS }).toBeGreaterThan(20)
    // Committed records and COMMIT markers under exactly_once.
    await expect
      .poll(() => log.locator('[data-testid="log-cell"][data-control="COMMIT"]').count(), { timeout: STATE_MS })
      .toBeGreaterThan(0)
    expect(
      await log.locator('[data-testid="log-cell"][data-outcome="committed"][data-control="none"]').count(),
    ).toBeGreaterThan(0)
    for (const kind of ['lso', 'hw', 'rc', 'ru'])
      expect(await log.locator(`[data-testid="log-marker"][data-kinds~="${kind}"]`).count()).toBe(1)
    expect(await log.locator('.log-slot').count()).toBe(120)
    // Both figures from one rendered snapshot.
    const [lso, hw] = await page.evaluate(() =>
      ['log-figure-lso', 'log-figure-hw'].map((id) =>
        Number(document.querySelector(`[data-testid="${id}"]`)!.textContent!.replace(/,/g, '')),
      ),
    )
    expect(hw).toBeGreaterThanOrEqual(lso!)
    // The grid keeps its size and its place in the panel as records stream in. (Its place in the
    // viewport may move by a fraction of a pixel when content above it reflows and the browser's
    // scroll anchoring compensates; that is not the grid jumping.)
    const gridInPanel = () =>
      page.evaluate(() => {
        const grid = document.querySelector('[data-testid="log-grid"]')!.getBoundingClientRect()
        const panel = document.querySelector('[data-testid="partition-log"]')!.getBoundingClientRect()
        return { dx: grid.left - panel.left, dy: grid.top - panel.top, width: grid.width, height: grid.height }
      })
    const box0 = await gridInPanel()
    await labCommitsMore(page)
    const box1 = await gridInPanel()
    expect(box1).toEqual(box0)
    await log.screenshot({ path: path.join(SHOTS, 'deep-partition-log.png') })
  })

  it('switches the partition log to a changelog partition', async () => {
    const { page } = lab
    await page.getByTestId('log-topic-changelog').click()
    await expect
      .poll(() => page.getByTestId('log-partition-name').textContent(), { timeout: STATE_MS })
      .toContain('changelog')
    await page.getByTestId('log-partition').selectOption('2')
    await expect
      .poll(() => page.getByTestId('log-partition-name').textContent(), { timeout: STATE_MS })
      .toMatch(/changelog-2$/)
    await page.getByTestId('log-topic-output').click()
    await expect
      .poll(() => page.getByTestId('log-partition-name').textContent(), { timeout: STATE_MS })
      .toBe('output-2')
  })

  it('shows traced records with a time at each step they reached', async () => {
    const { page } = lab
    await goTo(page, 'partitions')
    const traces = page.getByTestId('record-traces')
    await traces.scrollIntoViewIfNeeded()
    await expect.poll(() => traces.getByTestId('trace-row').count(), { timeout: STATE_MS }).toBeGreaterThan(0)
    expect(await traces.getByTestId('trace-row').first().getByTestId('trace-step').count()).toBe(5)
    await expect
      .poll(() => traces.locator('[data-testid="trace-step"][data-state="reached"]').count(), { timeout: STATE_MS })
      .toBeGreaterThan(0)
  })

  it('shows a producer row per transactional.id with its epochs and last sequences', async () => {
    const { page } = lab
    await goTo(page, 'transactions')
    const producers = page.getByTestId('producers')
    await producers.scrollIntoViewIfNeeded()
    await expect.poll(() => producers.getByTestId('producer-row').count(), { timeout: STATE_MS }).toBeGreaterThan(0)
    expect(await producers.getByTestId('epoch-step').count()).toBeGreaterThanOrEqual(
      await producers.getByTestId('producer-row').count(),
    )
    await expect.poll(() => producers.locator('.seq-cell .chip').count(), { timeout: STATE_MS }).toBeGreaterThan(0)
    await producers.screenshot({ path: path.join(SHOTS, 'deep-producers.png') })
    await goTo(page, 'partitions')
    await page.getByTestId('record-traces').screenshot({ path: path.join(SHOTS, 'deep-traces.png') })
    await page.getByTestId('duplicate-ledger').screenshot({ path: path.join(SHOTS, 'deep-ledger.png') })
    await page.getByTestId('page-partitions').screenshot({ path: path.join(SHOTS, 'page-partitions.png') })
  })

  it('reads in the light theme too', async () => {
    const { page } = lab
    await page.getByTestId('theme-toggle').click()
    await goTo(page, 'partitions')
    await page.getByTestId('partition-log').scrollIntoViewIfNeeded()
    await page.getByTestId('page-partitions').screenshot({ path: path.join(SHOTS, 'page-partitions-light.png') })
    await page.getByTestId('theme-toggle').click()
  })
})
