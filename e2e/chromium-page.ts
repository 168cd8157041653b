// The fixture every browser test uses: the real server on a free port, Chromium with a fresh
// profile, the page with every error it logs collected, all closed after the block. A test's
// last case checks that the page logged no error.
// Under CI=true a missing chromium fails the run; elsewhere these tests are skipped with a reason.

import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM_PATH, chromiumAvailable, firstPage, launchBrowser, type Browser, type PageErrors } from './browser.ts'
import { STATE_MS } from './page-helpers.ts'
import { ROOT, startServer, type ServerProcess, type StartOptions } from './server-process.ts'

/** Where browser tests leave their screenshots. */
export const SHOTS = path.join(ROOT, 'test-results')

const CI = process.env.CI === 'true' || process.env.CI === '1'

if (!chromiumAvailable()) {
  const msg =
    `chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (or set ` +
    `CHROMIUM_PATH)`
  if (CI) throw new Error(msg)
  console.warn(`skipping browser tests: ${msg}`)
}

export interface ChromiumPageOptions {
  /** How to start the server; called in beforeAll, so it may name what an earlier hook made. */
  server?: () => StartOptions
  /** The path opened once the browser is up; null opens nothing. Default '/'. */
  open?: string | null
  /** Waits for the dashboard after opening. */
  waitForDashboard?: boolean
  errors?: PageErrors
}

/** What a block's cases use; filled in before its first case. */
export interface ChromiumPage {
  server: ServerProcess
  browser: Browser
  page: Page
  /** Every error the page logged, as `errors` asks. */
  errors: string[]
}

/** A describe block in Chromium against the real server (skipped without chromium). */
export function describeInChromium(
  name: string,
  options: ChromiumPageOptions,
  body: (lab: ChromiumPage) => void,
): void {
  describe.skipIf(!chromiumAvailable())(name, () => {
    const lab = { errors: [] as string[] } as ChromiumPage

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true })
      lab.server = await startServer(options.server?.())
      lab.browser = await launchBrowser()
      lab.page = await firstPage(lab.browser, lab.errors, options.errors)
      const open = options.open === undefined ? '/' : options.open
      if (open !== null) await lab.page.goto(lab.server.url + open)
      if (options.waitForDashboard) await lab.page.getByTestId('dashboard').waitFor({ timeout: STATE_MS })
    })

    afterAll(async () => {
      await lab.browser?.close()
      await lab.server?.stop()
    })

    body(lab)

    it('logged no errors in the browser', () => {
      expect(lab.errors).toEqual([])
    })
  })
}
