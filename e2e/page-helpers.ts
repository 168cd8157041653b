// Reading numbers off the dashboard in browser tests.

import type { Page } from 'playwright-core'
import { untilProgress } from './progress.ts'

/** The number shown in an element (NaN for '—' or no number). */
export async function numberIn(page: Page, testId: string): Promise<number> {
  const text = (await page.getByTestId(testId).textContent()) ?? ''
  const n = Number(text.replace(/[^0-9.-]/g, ''))
  return Number.isFinite(n) && text.trim() !== '—' ? n : Number.NaN
}

/** Polls an element's number until `ok` holds; fails with the last value seen. */
export async function waitForNumber(
  page: Page,
  testId: string,
  ok: (n: number) => boolean,
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs
  let last = Number.NaN
  while (Date.now() < deadline) {
    last = await numberIn(page, testId)
    if (ok(last)) return last
    await page.waitForTimeout(250)
  }
  throw new Error(`${testId} stayed at ${last} for ${timeoutMs} ms`)
}

/**
 * How long a state may take to be reached in the browser tests (a card killed, a
 * recovery complete): generous, for a busy machine.
 */
export const STATE_MS = 120_000
/**
 * How long a figure that should move (records committed, records validated) may stay still before a wait on it fails.
 */
export const STALL_MS = 60_000

interface LabFigures {
  totals: { committedInput: number; droppedAcks: number }
  correctness: { inputChecked: number } | null
}

/** The lab's figures from /api/lab, fetched by the page (its token and origin). */
export function labFigures(page: Page): Promise<LabFigures> {
  return page.evaluate(async () => (await (await fetch('/api/lab')).json()) as LabFigures)
}

/** Waits until the lab commits more input than it has now: it is running and processing. */
export async function labCommitsMore(page: Page): Promise<void> {
  const before = (await labFigures(page)).totals.committedInput
  await untilProgress({
    what: `the lab to commit past ${before} input records`,
    read: async () => (await labFigures(page)).totals.committedInput,
    done: (n) => n > before,
    stallMs: STALL_MS,
    everyMs: 100,
  })
}

/** Waits until the validator has read every input record committed now, failing only when it stops reading. */
export async function validatorReadsPastNow(page: Page): Promise<void> {
  const committed = (await labFigures(page)).totals.committedInput
  await untilProgress({
    what: `the validator to read past ${committed} input records`,
    read: async () => (await labFigures(page)).correctness?.inputChecked ?? 0,
    done: (n) => n >= committed,
    stallMs: STALL_MS,
    everyMs: 200,
  })
}

/**
 * Holds the dashboard on one moment (Pause) while `look` runs, and goes back to Live even when
 * `look` fails: a test that fails while paused must not leave the next tests reading a frozen page.
 */
export async function whilePaused<T>(page: Page, look: () => Promise<T>): Promise<T> {
  await page.getByTestId('time-pause').click()
  await page.locator('[data-testid="dashboard"][data-view="pause"]').waitFor({ timeout: STATE_MS })
  try {
    return await look()
  } finally {
    await page.getByTestId('time-live').click()
    await page.locator('[data-testid="dashboard"][data-view="live"]').waitFor({ timeout: STATE_MS })
  }
}

/** The lab's pages, by the name their navigation link and view carry (components/site-nav.tsx). */
export type LabPageName = 'overview' | 'scenarios' | 'transactions' | 'recovery' | 'partitions' | 'journal'

/**
 * Moves to one of the lab's pages through the header's navigation, as a reader does: the layout
 * (its socket, the time control) stays; resolves once the page shows.
 */
export async function goTo(page: Page, name: LabPageName): Promise<void> {
  const view = page.getByTestId(`page-${name}`)
  if (await view.isVisible()) return
  await page.getByTestId(`nav-${name}`).click()
  await view.waitFor({ timeout: STATE_MS })
}
