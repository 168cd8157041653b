// The /experiments page in Chromium with stored sweeps of known figures (fixtures written into the
// experiment store before the page loads): every point drawn with its 95% interval, the noise
// warning when two points' intervals overlap, and reading-guide sentences that follow the data
// (the same fixture with the guarantees' throughputs swapped flips the sentence).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { FLIPPED, NOISY, ORDERED, fixtureRecord } from '../components/experiments/__fixtures__/sweep-fixtures.ts'
import { SHOTS, describeInChromium } from './chromium-page.ts'

let dataDir: string

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'eoscope-e2e-intervals-'))
  const dir = path.join(dataDir, 'experiments')
  mkdirSync(dir)
  // The newest is shown first: the noisy one.
  const records = [
    fixtureRecord('fixture-ordered', 'ordered', '2024-01-01T00:00:00.000Z', ORDERED),
    fixtureRecord('fixture-flipped', 'flipped', '2024-01-02T00:00:00.000Z', FLIPPED),
    fixtureRecord('fixture-noisy', 'noisy', '2024-01-03T00:00:00.000Z', NOISY),
  ]
  for (const r of records) writeFileSync(path.join(dir, `${r.id}.json`), JSON.stringify(r))
})

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

const guideText = (lab: { page: import('playwright-core').Page }) =>
  lab.page.getByTestId('guide-throughput').textContent()

describeInChromium(
  'stored sweeps with their 95% intervals in chromium',
  { server: () => ({ env: { EOSCOPE_DATA_DIR: dataDir, KAFKA_BROKERS: '' } }), open: '/experiments' },
  (lab) => {
    it('draws every point with its interval, and warns that overlapping points cannot be ordered', async () => {
      const { page } = lab
      await page.locator('[data-testid="shown-experiment"]', { hasText: 'noisy' }).waitFor({ timeout: 20_000 })
      await page.getByTestId('sweep-chart-throughput').waitFor({ timeout: 10_000 })
      // Four cells, one error bar each, on the throughput and latency lines; two per point on the trade-off (x and y).
      await expect
        .poll(() => page.locator('[data-testid="sweep-chart-throughput"] .recharts-errorBar').count(), {
          timeout: 10_000,
        })
        .toBe(4)
      expect(await page.locator('[data-testid="sweep-chart-latency"] .recharts-errorBar').count()).toBe(4)
      expect(await page.locator('[data-testid="sweep-chart-tradeoff"] .recharts-errorBar').count()).toBe(8)
      expect(await page.getByTestId('runs-label').textContent()).toBe('6 runs per cell')
      const warning = page.getByTestId('noise-warning')
      expect(await warning.isVisible()).toBe(true)
      const pair = warning
        .getByTestId('noise-overlap')
        .filter({ hasText: /^throughput: at_least_once at 10 ms .* and exactly_once at 10 ms / })
      expect(await pair.textContent()).toMatch(/: the 95% intervals overlap, so which is higher is not known\.$/)
      expect(await guideText(lab)).toMatch(
        /At 10 ms, throughput of at_least_once and exactly_once is not distinguishable/,
      )
      // Words that mean what they say, and no file of the repository named on the page.
      const body = (await page.locator('body').textContent())!
      expect(body).not.toMatch(/\.md\b|MEASURES/)
      expect(await page.locator('[data-testid="backend-select"] option[value="kafka"]').textContent()).toBe(
        'Kafka: set KAFKA_BROKERS to enable',
      )
      await page.screenshot({ path: path.join(SHOTS, 'experiments-intervals-noisy.png'), fullPage: true })
    })

    it("its reading guide follows the data: swapping the guarantees' figures flips the sentence", async () => {
      const { page } = lab
      await page.getByTestId('show-fixture-ordered').click()
      await page.locator('[data-testid="shown-experiment"]', { hasText: 'ordered' }).waitFor({ timeout: 10_000 })
      await expect
        .poll(() => guideText(lab), { timeout: 10_000 })
        .toMatch(/At 10 ms, at_least_once is faster than exactly_once \(throughput\)/)
      expect(await guideText(lab)).not.toMatch(/exactly_once is faster than at_least_once/)
      // The guarantees' throughputs at 10 ms do not overlap here: no warning names that pair.
      expect(await page.getByTestId('noise-warning').textContent()).not.toMatch(
        /throughput: at_least_once at 10 ms \([^)]*\) and exactly_once at 10 ms/,
      )

      await page.getByTestId('show-fixture-flipped').click()
      await page.locator('[data-testid="shown-experiment"]', { hasText: 'flipped' }).waitFor({ timeout: 10_000 })
      await expect
        .poll(() => guideText(lab), { timeout: 10_000 })
        .toMatch(/At 10 ms, exactly_once is faster than at_least_once \(throughput\)/)
      expect(await guideText(lab)).not.toMatch(/at_least_once is faster than exactly_once/)
      await page.screenshot({ path: path.join(SHOTS, 'experiments-intervals-flipped.png'), fullPage: true })
    })

    it('overlays several stored experiments on the same axes, and opens one from its permalink', async () => {
      const { page, server } = lab
      await page.getByTestId('overlay-fixture-ordered').click()
      await page.getByTestId('overlay-fixture-noisy').click()
      // The shown one's two lines, and two per overlay, each overlay with its intervals.
      await expect
        .poll(() => page.locator('[data-testid="sweep-chart-throughput"] .recharts-line-curve').count(), {
          timeout: 10_000,
        })
        .toBe(6)
      await expect
        .poll(() => page.locator('[data-testid="sweep-chart-throughput"] .recharts-errorBar').count(), {
          timeout: 10_000,
        })
        .toBe(12)
      expect(await page.getByTestId('shown-experiment').textContent()).toMatch(
        /dashed: ordered, embedded measured; noisy, embedded measured/,
      )
      await page.getByTestId('overlay-fixture-ordered').click()
      await expect
        .poll(() => page.locator('[data-testid="sweep-chart-throughput"] .recharts-line-curve').count(), {
          timeout: 10_000,
        })
        .toBe(4)
      const permalink = (await page.getByTestId('permalink').getAttribute('href'))!
      expect(permalink).toBe('/experiments?id=fixture-flipped')
      await page.goto(`${server.url}/experiments?id=fixture-ordered`)
      await page.locator('[data-testid="shown-experiment"]', { hasText: 'ordered' }).waitFor({ timeout: 20_000 })
      await expect
        .poll(() => guideText(lab), { timeout: 10_000 })
        .toMatch(/At 10 ms, at_least_once is faster than exactly_once/)
    })
  },
)
