// Every page of the lab in Chromium on a fresh embedded lab, at 1440×900 and 420 px wide: a
// screenshot of each (test-results/page-*.png), no page taller than three windows, the overview's
// story on its first screen, axe-core finding nothing critical or serious, and no program text
// where a person reads. (The same audit runs after the eight scenarios in scenarios.e2e.ts.)

import path from 'node:path'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { auditPage } from './page-audit.ts'
import { goTo, type LabPageName, labCommitsMore, STATE_MS, whilePaused } from './page-helpers.ts'

const LAB_PAGES: LabPageName[] = ['overview', 'scenarios', 'transactions', 'recovery', 'partitions', 'journal']

describeInChromium('every page of the lab in chromium', { waitForDashboard: true }, (lab) => {
  it('the overview shows the story on its first 1440×900 screen and is at most 1.5 windows tall', async () => {
    const { page } = lab
    await page.setViewportSize({ width: 1440, height: 900 })
    await goTo(page, 'overview')
    await labCommitsMore(page)
    // Each must be on the first screen: its bottom edge inside the window, without scrolling.
    const bottoms = await page.evaluate(() => {
      const bottom = (sel: string) => {
        const el = document.querySelector(sel)
        return el === null ? null : Math.round(el.getBoundingClientRect().bottom)
      }
      const steps = [...document.querySelectorAll('[data-testid="pipeline"] .task-head .step-name')]
      return {
        guarantee: bottom('[data-testid="guarantee-exactly_once"]'),
        commitInterval: bottom('[data-testid="commit-interval"]'),
        kill: bottom('[data-testid^="kill-worker-"]'),
        steps: steps.length === 5 ? Math.max(...steps.map((s) => s.getBoundingClientRect().bottom)) : null,
        throughputChart: bottom('[data-testid="chart-throughput"]'),
        height: document.documentElement.scrollHeight,
        scrollY: window.scrollY,
      }
    })
    expect(bottoms.scrollY).toBe(0)
    for (const [what, bottom] of Object.entries(bottoms).filter(([k]) => k !== 'height' && k !== 'scrollY')) {
      expect(bottom, `${what} is on the page`).not.toBeNull()
      expect(bottom!, `${what} ends inside the first 900 px`).toBeLessThanOrEqual(900)
    }
    expect(bottoms.height).toBeLessThanOrEqual(1.5 * 900)
    await page.screenshot({ path: path.join(SHOTS, 'page-overview-1440x900.png') })
  })

  const everyPageFitsAndScrolls =
    'every page: a screenshot at 1440×900 and 420 px, at most three windows tall at 1440, no horizontal scroll'
  it(everyPageFitsAndScrolls, async () => {
    const { page } = lab
    for (const size of [
      { width: 1440, height: 900 },
      { width: 420, height: 900 },
    ]) {
      await page.setViewportSize(size)
      for (const name of LAB_PAGES) {
        await goTo(page, name)
        const dims = await page.evaluate(() => ({
          height: document.documentElement.scrollHeight,
          width: document.documentElement.scrollWidth,
        }))
        expect(dims.width, `${name} at ${size.width} px: no horizontal scroll`).toBeLessThanOrEqual(size.width)
        if (size.width === 1440) expect(dims.height, `${name} at 1440×900`).toBeLessThanOrEqual(3 * 900)
        await page.screenshot({ path: path.join(SHOTS, `page-${name}-${size.width}.png`), fullPage: true })
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 })
  })

  it('axe-core finds nothing critical or serious and no page shows program text, held on one moment', async () => {
    const { page } = lab
    await whilePaused(page, async () => {
      for (const name of LAB_PAGES) {
        await goTo(page, name)
        const audit = await auditPage(page)
        expect(audit.violations, `${name}: axe-core`).toEqual([])
        expect(audit.programText, `${name}: program text`).toEqual([])
      }
    })
  })

  const experimentsAndObserveReached =
    'experiments and observe: reached from the header, accessible; observe says the embedded log cannot observe'
  it(experimentsAndObserveReached, async () => {
    const { page } = lab
    await page.getByTestId('nav-observe').click()
    await page.getByTestId('observe-unavailable').waitFor({ timeout: STATE_MS })
    expect(await page.getByTestId('observe-unavailable').textContent()).toMatch(/embedded log/)
    expect((await auditPage(page)).violations).toEqual([])
    await page.screenshot({ path: path.join(SHOTS, 'page-observe-1440.png') })
    await page.getByTestId('nav-experiments').click()
    await page.getByTestId('experiments').waitFor({ timeout: STATE_MS })
    expect((await auditPage(page)).violations).toEqual([])
    await page.getByTestId('nav-overview').click()
    await page.getByTestId('page-overview').waitFor({ timeout: STATE_MS })
  })
})
