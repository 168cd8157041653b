// The Learn page in Chromium on a fresh embedded lab: every chapter in order, as a newcomer goes,
// its number in the URL. Chapter 3 has its button pressed and its claim checked on the page (the
// verdict the scenarios' evidence gives), with a screenshot (test-results/learn-chapter-3.png): the
// page's wiring from button to scenarios to verdict and cards. Chapter 1's button slows the lab and
// its link restores the rate. The other chapters run the same wiring with other scenarios on the
// system clock, which would add a quarter of an hour to the suite: here each is opened and its
// claim and button checked; their claims are checked headless by server/cli/learn-command.test.ts
// (every chapter, virtual time) and their scenarios in the browser by scenarios.e2e.ts.
// EOSCOPE_LEARN_WALK=all (npm run test:learn-walk) presses every chapter's button. Then the
// page's bars: at most three windows tall at 1440×900, no sideways scroll at 420 px, axe-core
// finding nothing critical or serious, and no program text where a person reads.

import path from 'node:path'
import { expect, it } from 'vitest'
import { LEARN_CHAPTERS } from '../lib/learn-chapters.ts'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { auditPage } from './page-audit.ts'
import { STALL_MS, STATE_MS, whilePaused } from './page-helpers.ts'
import { chapterReady, openChapter, walkChapter } from './learn-steps.ts'
import { labNow } from './scenario-steps.ts'

/** The chapters whose button the browser presses (every one with EOSCOPE_LEARN_WALK=all). */
const WALKED: readonly number[] = process.env.EOSCOPE_LEARN_WALK === 'all' ? LEARN_CHAPTERS.map((c) => c.n) : [3]

describeInChromium('the Learn page', { waitForDashboard: true }, (lab) => {
  it('comes first in the navigation and opens on chapter 1', async () => {
    const { page } = lab
    await page.setViewportSize({ width: 1440, height: 900 })
    const first = page.locator('.site-nav a').first()
    expect(await first.getAttribute('href')).toBe('/learn')
    await first.click()
    await page.getByTestId('page-learn').waitFor({ timeout: STATE_MS })
    expect(await page.locator('[data-testid="learn-chapter"]').getAttribute('data-chapter')).toBe('1')
  })

  // One case per chapter, in order (a file's cases run one after the other).
  for (const chapter of LEARN_CHAPTERS) {
    if (!WALKED.includes(chapter.n)) {
      it(`chapter ${chapter.n}, ${chapter.title}: opens with its text, its claim and its button`, async () => {
        const { page } = lab
        await openChapter(page, chapter.n, STATE_MS)
        await chapterReady(page, chapter)
        if (chapter.n === 1) {
          // Its button slows the lab to 1 record/s, and the restore link brings the rate back.
          const before = (await labNow(page)).config.inputRatePerSec
          await page.getByTestId('learn-run').click()
          await expect.poll(async () => (await labNow(page)).config.inputRatePerSec).toBe(1)
          await page.getByTestId('learn-restore').click()
          await expect.poll(async () => (await labNow(page)).config.inputRatePerSec).toBe(before)
        }
      })
      continue
    }
    it(`chapter ${chapter.n}, ${chapter.title}: its button runs it and its claim holds on the lab`, async () => {
      const { page } = lab
      await openChapter(page, chapter.n, STATE_MS)
      await walkChapter(page, chapter, { stallMs: STALL_MS, shots: SHOTS, shot: `learn-chapter-${chapter.n}.png` })
    })
  }

  it('every chapter: at most three windows tall at 1440×900, no sideways scroll at 420 px', async () => {
    const { page } = lab
    for (const size of [
      { width: 1440, height: 900 },
      { width: 420, height: 900 },
    ]) {
      await page.setViewportSize(size)
      for (const chapter of LEARN_CHAPTERS) {
        await openChapter(page, chapter.n, STATE_MS)
        const dims = await page.evaluate(() => ({
          height: document.documentElement.scrollHeight,
          width: document.documentElement.scrollWidth,
        }))
        expect(dims.width, `chapter ${chapter.n} at ${size.width} px`).toBeLessThanOrEqual(size.width)
        if (size.width === 1440) expect(dims.height, `chapter ${chapter.n} at 1440×900`).toBeLessThanOrEqual(3 * 900)
      }
      await page.screenshot({ path: path.join(SHOTS, `learn-${size.width}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 1440, height: 900 })
  })

  it('axe-core finds nothing critical or serious and no chapter shows program text, held on one moment', async () => {
    const { page } = lab
    await whilePaused(page, async () => {
      for (const chapter of LEARN_CHAPTERS) {
        await openChapter(page, chapter.n, STATE_MS)
        const audit = await auditPage(page)
        expect(audit.violations, `chapter ${chapter.n}: axe-core`).toEqual([])
        expect(audit.programText, `chapter ${chapter.n}: program text`).toEqual([])
      }
    })
  })
})
