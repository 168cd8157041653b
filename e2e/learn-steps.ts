// The Learn page's steps as a browser test takes them, on either backend: open a chapter by its
// link (its number in the URL), press its button, wait while the lab makes progress until the
// page gives its claim's verdict, and check the verdict as the page shows it.

import path from 'node:path'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import type { LearnChapter } from '../lib/learn-chapters.ts'
import { untilProgress } from './progress.ts'
import { labNow } from './scenario-steps.ts'

export async function openChapter(page: Page, n: number, stateMs: number): Promise<void> {
  await page.getByTestId(`learn-nav-${n}`).click()
  // The chapter is in the URL: /learn alone shows chapter 1 too, so the URL is waited for first.
  await page.waitForURL((url) => url.searchParams.get('chapter') === String(n), { timeout: stateMs })
  await page.locator(`[data-testid="learn-chapter"][data-chapter="${n}"]`).waitFor({ timeout: stateMs })
}

/** Waits while the lab makes progress until the chapter's verdict is given; returns its state and words. */
export async function verdictOf(page: Page, stallMs: number): Promise<{ state: string | null; text: string }> {
  const verdict = page.getByTestId('learn-verdict')
  return untilProgress({
    what: 'the chapter’s claim to be checked',
    read: async () => ({
      state: await verdict.getAttribute('data-state'),
      text: (await verdict.textContent()) ?? '',
      committed: (await labNow(page)).totals.committedInput,
      narrative:
        (await page
          .getByTestId('learn-narrative')
          .textContent()
          .catch(() => null)) ?? '',
    }),
    done: (v) => v.state === 'holds' || v.state === 'undecided' || v.state === 'failed',
    stallMs,
    everyMs: 500,
  })
}

export function shownCards(page: Page): Promise<string[]> {
  return page.getByTestId('evidence-card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-id') ?? ''))
}

/**
 * Presses an open chapter's button and checks its claim on the page: it holds, or (a measured claim
 * this machine cannot tell apart, as scenarios are judged) the page says it is not distinguishable
 * here; one evidence card per scenario of the chapter, each from this run. Leaves a screenshot named
 * `shot` in `shots`. Chapter 1 restores the rate it slowed.
 */
export async function walkChapter(
  page: Page,
  chapter: LearnChapter,
  o: { stallMs: number; shots: string; shot: string },
): Promise<{ state: string | null; text: string }> {
  const before = chapter.n === 1 ? (await labNow(page)).config.inputRatePerSec : null
  const cardsBefore = await shownCards(page)
  await page.getByTestId('learn-run').click()
  // Its scenarios run first: a verdict read before then would be an earlier run's.
  if (chapter.scenarios.length > 0)
    await expect.poll(() => page.getByTestId('learn-verdict').getAttribute('data-state')).toBe('running')
  const v = await verdictOf(page, o.stallMs)
  // Before the checks, so that a chapter whose claim did not hold is seen as the page said it.
  await page.screenshot({ path: path.join(o.shots, o.shot), fullPage: true })
  expect(v.state, `chapter ${chapter.n}: ${v.text}`).toMatch(/^(holds|undecided)$/)
  expect(v.text).toContain(chapter.claim)
  if (v.state === 'undecided') expect(v.text).toContain('not distinguishable here')
  expect(await page.getByTestId(`learn-nav-${chapter.n}`).getAttribute('data-state')).toBe(v.state)
  if (chapter.scenarios.length > 0) {
    const cards = await shownCards(page)
    expect(cards).toHaveLength(chapter.scenarios.length)
    for (const id of cards) expect(cardsBefore).not.toContain(id)
  }
  if (chapter.n === 1) {
    // The rate comes back to what it was before the chapter slowed it.
    await page.getByTestId('learn-restore').click()
    await expect.poll(async () => (await labNow(page)).config.inputRatePerSec).toBe(before)
  }
  return v
}

/** An open chapter's text, claim and button, ready to press (the backend offers what it needs). */
export async function chapterReady(page: Page, chapter: LearnChapter): Promise<void> {
  const shown = page.locator(`[data-testid="learn-chapter"][data-chapter="${chapter.n}"]`)
  expect(await shown.locator('#learn-title').textContent()).toContain(chapter.title)
  expect(await page.getByTestId('learn-verdict').textContent()).toContain(chapter.claim)
  const run = page.getByTestId('learn-run')
  expect(await run.textContent()).toBe(chapter.action)
  expect(await run.isEnabled()).toBe(true)
}
