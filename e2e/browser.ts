// Chromium for the browser tests and the ui bench: Debian's /usr/bin/chromium through
// playwright-core, a fresh profile per run, flags that keep it quiet on a closed network.

import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
]

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH)
}

export interface Browser {
  context: BrowserContext
  close(): Promise<void>
}

export async function launchBrowser({
  width = 1440,
  height = 1000,
  colorScheme = 'dark' as 'dark' | 'light',
} = {}): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'eoscope-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width, height },
    colorScheme,
  })
  return {
    context,
    async close() {
      await context.close().catch(() => {})
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

/** Which errors a page must not log. */
export type PageErrors =
  /** Console errors and warnings, and uncaught errors. */
  | 'console'
  /** Uncaught errors only: a page refused on purpose logs the refused requests on its console. */
  | 'uncaught'

/** The browser's first page, with the errors it logs collected into `errors`. */
/** How long a page action may wait for its element to be actionable (Playwright's default is 30 s). */
export const ACTION_MS = 120_000

export async function firstPage(browser: Browser, errors: string[], which: PageErrors = 'console'): Promise<Page> {
  return watched(browser.context.pages()[0] ?? (await browser.context.newPage()), errors, which)
}

/** Another tab of the same browser, its errors collected as the first one's. */
export async function anotherPage(browser: Browser, errors: string[], which: PageErrors = 'console'): Promise<Page> {
  return watched(await browser.context.newPage(), errors, which)
}

function watched(page: Page, errors: string[], which: PageErrors): Page {
  // An action (a click, a screenshot) waits for its element to be ready: on a busy machine a render
  // can take far longer than Playwright's 30 s default, and the wait ends as soon as it is ready.
  page.setDefaultTimeout(ACTION_MS)
  if (which === 'console') {
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`)
    })
  }
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  return page
}
