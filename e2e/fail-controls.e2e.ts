// The dashboard's poison and kill-at-step controls, and the banner a poison record raises under
// default.deserialization.exception.handler=fail, in Chromium against the real server and the
// embedded lab.

import path from 'node:path'
import type { Page } from 'playwright-core'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { goTo, labCommitsMore, numberIn, STATE_MS, validatorReadsPastNow, waitForNumber } from './page-helpers.ts'

async function runningWorker(page: Page): Promise<string> {
  const card = page.locator('article.worker-card[data-state="running"]').first()
  await card.waitFor({ timeout: STATE_MS })
  return (await card.getAttribute('data-testid'))!.replace(/^worker-/, '')
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  return line === undefined ? Number.NaN : Number(line.split(' ')[1])
}

async function shoot(page: Page, name: string, place: () => Promise<unknown> = async () => {}): Promise<void> {
  for (const [w, h] of [
    [1440, 900],
    [1280, 800],
  ] as const) {
    await page.setViewportSize({ width: w, height: h })
    await place()
    await page.waitForTimeout(300)
    await page.screenshot({ path: path.join(SHOTS, `${name}-${w}x${h}.png`) })
  }
}

describeInChromium(
  'poison records, kill at a step and the fail banner in chromium',
  { waitForDashboard: true },
  (lab) => {
    it('poison records appended from the partitions page raise the dead-letter count', async () => {
      const { page } = lab
      await goTo(page, 'partitions')
      await expect
        .poll(() => page.getByTestId('handler-log-and-continue').getAttribute('aria-checked'), { timeout: STATE_MS })
        .toBe('true')
      const before = await waitForNumber(page, 'dead-letters', (n) => Number.isFinite(n), STATE_MS)
      await page.getByTestId('poison-count').fill('3')
      await page.getByTestId('inject-poison').click()
      await waitForNumber(page, 'dead-letters', (n) => n >= before + 3, STATE_MS)
      expect(await page.getByTestId('poison-controls').locator('.control-error').textContent()).toBe('')
    })

    it('under exactly_once, a kill at step 4 from the worker card shows an aborted transaction', async () => {
      const { page } = lab
      await goTo(page, 'overview')
      await expect.poll(() => page.getByTestId('stat-guarantee').textContent()).toBe('exactly_once')
      const id = await runningWorker(page)
      const aborted0 = await numberIn(page, 'stat-aborted')
      await page.getByTestId(`kill-step-${id}`).selectOption('4')
      await page
        .locator(`article.worker-card[data-testid="worker-${id}"][data-state="killed"]`)
        .waitFor({ timeout: STATE_MS })
      await expect
        .poll(async () => (await numberIn(page, 'stat-aborted')) > (Number.isNaN(aborted0) ? 0 : aborted0), {
          timeout: STATE_MS,
          interval: 100,
        })
        .toBe(true)
      const snap = (await (await fetch(`${lab.server.url}/api/lab`)).json()) as {
        markers: { kind: string; label: string }[]
      }
      expect(
        snap.markers.some(
          (m) => m.kind === 'kill' && m.label.startsWith(`${id} killed`) && m.label.endsWith('at step 4'),
        ),
      ).toBe(true)
    })

    const poisonStopsThenSkip =
      'under fail, a poison record stops tasks with a banner naming it, and "skip it and go on" resumes with ' +
      'nothing lost'
    it(poisonStopsThenSkip, async () => {
      const { page, server } = lab
      await goTo(page, 'overview')
      await page.getByTestId('reset').click()
      await expect.poll(() => page.getByTestId('stat-kills').textContent(), { timeout: STATE_MS }).toBe('0')
      await goTo(page, 'partitions')
      await page.getByTestId('handler-fail').click()
      await expect
        .poll(() => page.getByTestId('handler-fail').getAttribute('aria-checked'), { timeout: STATE_MS })
        .toBe('true')
      await labCommitsMore(page)
      await page.getByTestId('poison-count').fill('5')
      await page.getByTestId('inject-poison').click()
      const banner = page.getByTestId('fail-banner')
      await banner.waitFor({ timeout: STATE_MS })
      const stop = banner.locator('[data-testid^="fail-stop-"]').first()
      expect(await stop.textContent()).toMatch(
        /task \d+_\d+ on \S+ stopped at input-\d+ @ offset \d+: value "not-a-number-\d+" does not parse/,
      )
      await expect.poll(() => metric(server.url, 'eoscope_stopped_tasks'), { timeout: STATE_MS }).toBeGreaterThan(0)
      // The lag is the input's end minus the committed offset while the tasks are stopped: it grows, never 0.
      await waitForNumber(page, 'fail-lag', (n) => n > 0, STATE_MS)
      // The stopped tasks are rows of the five steps, on the overview.
      await goTo(page, 'overview')
      await page.locator('[data-testid^="stopped-task-"]').first().waitFor({ timeout: STATE_MS })
      expect(await page.locator('[data-testid^="stopped-task-"]').count()).toBeGreaterThan(0)
      await shoot(page, 'fail-banner')

      await page.getByTestId('fail-skip').click()
      await banner.waitFor({ state: 'detached', timeout: STATE_MS })
      await goTo(page, 'partitions')
      await expect
        .poll(() => page.getByTestId('handler-log-and-continue').getAttribute('aria-checked'), { timeout: STATE_MS })
        .toBe('true')
      await waitForNumber(page, 'dead-letters', (n) => n >= 5, STATE_MS)
      await expect.poll(() => metric(server.url, 'eoscope_stopped_tasks'), { timeout: STATE_MS }).toBe(0)
      await waitForNumber(page, 'stat-processed', (n) => n > 0, STATE_MS)
      // The validator has read past the records committed after the skip: nothing was lost.
      await goTo(page, 'overview')
      await validatorReadsPastNow(page)
      expect(await numberIn(page, 'correctness-lost-value')).toBe(0)
      // The poison controls and the worker cards with their kill menus, in one view.
      await shoot(page, 'controls', () =>
        page.evaluate(() =>
          window.scrollTo(
            0,
            document.querySelector('[data-testid="workers"]')!.getBoundingClientRect().top + window.scrollY - 520,
          ),
        ),
      )
    })

    it('under fail, "reset" from the banner starts a fresh lab that runs again', async () => {
      const { page, server } = lab
      await goTo(page, 'partitions')
      await page.getByTestId('handler-fail').click()
      await expect
        .poll(() => page.getByTestId('handler-fail').getAttribute('aria-checked'), { timeout: STATE_MS })
        .toBe('true')
      await labCommitsMore(page)
      await page.getByTestId('poison-count').fill('2')
      await page.getByTestId('inject-poison').click()
      const banner = page.getByTestId('fail-banner')
      await banner.waitFor({ timeout: STATE_MS })
      await page.getByTestId('fail-reset').click()
      await banner.waitFor({ state: 'detached', timeout: STATE_MS })
      // The defaults again: log-and-continue, no stopped task, every worker running, input committed.
      await expect
        .poll(() => page.getByTestId('handler-log-and-continue').getAttribute('aria-checked'), { timeout: STATE_MS })
        .toBe('true')
      await expect.poll(() => metric(server.url, 'eoscope_stopped_tasks'), { timeout: STATE_MS }).toBe(0)
      await labCommitsMore(page)
      await goTo(page, 'overview')
      await page.locator('article.worker-card').first().waitFor({ timeout: STATE_MS })
      expect(await page.locator('article.worker-card[data-state="stopped"]').count()).toBe(0)
    })
  },
)
