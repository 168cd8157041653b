// Reading numbers off the dashboard in browser tests.

import type { Page } from 'playwright-core'

/** The number shown in an element (NaN for '—' or no number). */
export async function numberIn(page: Page, testId: string): Promise<number> {
  const text = (await page.getByTestId(testId).textContent()) ?? ''
  const n = Number(text.replace(/[^0-9.-]/g, ''))
  return Number.isFinite(n) && text.trim() !== '—' ? n : Number.NaN
}

/** Polls an element's number until `ok` holds; fails with the last value seen. */
export async function waitForNumber(page: Page, testId: string, ok: (n: number) => boolean, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs
  let last = Number.NaN
  while (Date.now() < deadline) {
    last = await numberIn(page, testId)
    if (ok(last)) return last
    await page.waitForTimeout(250)
  }
  throw new Error(`${testId} stayed at ${last} for ${timeoutMs} ms`)
}
