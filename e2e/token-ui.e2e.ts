// The dashboard against a server started with EOSCOPE_TOKEN (on loopback a set token is enforced):
// a kill is refused without the token and the header's token control opens; with the token
// entered there the kill works. With EOSCOPE_LOCK_READS=1 the page asks for the token instead of
// connecting forever. The token lives in sessionStorage only.

import path from 'node:path'
import type { Page } from 'playwright-core'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { goTo, STATE_MS } from './page-helpers.ts'

const TOKEN = 'ui0a1b2c3d4e5f60718293a4b5c6d7e8f9'

const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)

describeInChromium(
  'the token control, controls locked',
  { server: () => ({ env: { EOSCOPE_TOKEN: TOKEN, EOSCOPE_LOCK_READS: '' } }), errors: 'uncaught' },
  (lab) => {
    it('refuses a kill without the token, says so and focuses the token field', async () => {
      const { page } = lab
      await page.getByTestId('dashboard').waitFor({ timeout: STATE_MS })
      await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: STATE_MS }).toContain('live')
      await expect.poll(() => page.getByTestId('token-toggle').textContent()).toContain('unlock controls')
      await page.locator('header.top-bar').screenshot({ path: path.join(SHOTS, 'token-header-locked.png') })

      const card = page.locator('article.worker-card[data-state="running"]').first()
      await card.waitFor({ timeout: STATE_MS })
      const id = (await card.getAttribute('data-testid'))!.replace(/^worker-/, '')
      await page.getByTestId(`kill-${id}`).click()
      await expect
        .poll(() => page.getByTestId(`worker-${id}`).textContent(), { timeout: STATE_MS })
        .toMatch(/unauthorized: enter the lab’s token/)
      await expect
        .poll(() => page.getByTestId('token-message').textContent())
        .toMatch(/Controls are locked: enter the lab’s token/)
      await expect.poll(() => focusedTestId(page)).toBe('token-input')
      expect(await page.locator(`article.worker-card[data-testid="worker-${id}"]`).getAttribute('data-state')).toBe(
        'running',
      )
      await page.screenshot({
        path: path.join(SHOTS, 'token-header-prompt.png'),
        clip: { x: 0, y: 0, width: 1440, height: 150 },
      }) // the header and the message below it
    })

    it('takes the token from the keyboard and the kill works; the token stays in sessionStorage only', async () => {
      const { page } = lab
      await page.keyboard.type(TOKEN)
      await page.keyboard.press('Enter')
      await expect.poll(() => page.getByTestId('token-toggle').textContent()).toContain('token set')
      await expect.poll(() => focusedTestId(page)).toBe('token-toggle')
      expect(await page.getByTestId('token-message').count()).toBe(0)
      // The socket reconnects with auth: { token }.
      await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: STATE_MS }).toContain('live')

      const card = page.locator('article.worker-card[data-state="running"]').first()
      const id = (await card.getAttribute('data-testid'))!.replace(/^worker-/, '')
      await page.getByTestId(`kill-${id}`).click()
      await page
        .locator(`article.worker-card[data-testid="worker-${id}"][data-state="killed"]`)
        .waitFor({ timeout: STATE_MS })

      // The partition log's window toggle goes through the same command path.
      await goTo(page, 'partitions')
      await page.getByTestId('log-window-last-abort').click()
      await expect.poll(() => page.getByTestId('log-grid').getAttribute('data-window')).toBe('last-abort')
      expect(await page.getByTestId('log-window-last-abort').getAttribute('aria-checked')).toBe('true')
      await page
        .getByTestId('partition-log')
        .screenshot({ path: path.join(SHOTS, 'token-partition-log-last-abort.png') })
      await page.getByTestId('log-window-latest').click()
      await expect.poll(() => page.getByTestId('log-grid').getAttribute('data-window')).toBe('latest')

      expect(page.url()).not.toContain(TOKEN)
      const stored = await page.evaluate(() => ({
        session: Object.values({ ...sessionStorage }),
        local: Object.values({ ...localStorage }),
      }))
      expect(stored.session).toContain(TOKEN)
      expect(stored.local).not.toContain(TOKEN)
      await page.locator('header.top-bar').screenshot({ path: path.join(SHOTS, 'token-header-unlocked.png') })
    })

    it('sends the token as a bearer token from /experiments', async () => {
      const { page, server } = lab
      const sent = page.waitForRequest(
        (r) => new URL(r.url()).pathname === '/api/experiments' && r.method() === 'GET',
        { timeout: STATE_MS },
      )
      await page.goto(`${server.url}/experiments`)
      expect((await sent).headers().authorization).toBe(`Bearer ${TOKEN}`)
      await expect.poll(() => page.getByTestId('token-toggle').textContent()).toContain('token set')
    })

    it('keeps the token for the tab across page loads, and forgets it on request', async () => {
      const { page, server } = lab
      await page.goto(server.url)
      await page.getByTestId('dashboard').waitFor({ timeout: STATE_MS })
      await expect.poll(() => page.getByTestId('token-toggle').textContent()).toContain('token set')
      await page.getByTestId('token-toggle').focus()
      await page.keyboard.press('Enter')
      await expect.poll(() => focusedTestId(page)).toBe('token-input')
      await page.getByTestId('token-forget').click()
      await expect.poll(() => page.getByTestId('token-toggle').textContent()).toContain('unlock controls')
      expect(await page.evaluate(() => Object.values({ ...sessionStorage }))).not.toContain(TOKEN)
      expect(lab.errors).toEqual([])
    })
  },
)

// With reads locked the server is ready once GET /api/lab answers the token.
const readsLocked = () => ({ env: { EOSCOPE_TOKEN: TOKEN, EOSCOPE_LOCK_READS: '1' }, token: TOKEN })

describeInChromium('the token control, reads locked', { server: readsLocked, errors: 'uncaught' }, (lab) => {
  it('asks for the token instead of connecting forever, then shows the lab', async () => {
    const { page } = lab
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: STATE_MS }).toContain('locked')
    await expect.poll(() => focusedTestId(page)).toBe('token-input')
    await expect.poll(() => page.getByTestId('token-message').textContent()).toMatch(/needs its token/)
    await page.screenshot({
      path: path.join(SHOTS, 'token-header-reads-locked.png'),
      clip: { x: 0, y: 0, width: 1440, height: 150 },
    }) // the header and the message below it
    await page.getByTestId('token-input').fill(TOKEN)
    await page.getByTestId('token-save').click()
    await page.getByTestId('dashboard').waitFor({ timeout: STATE_MS })
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: STATE_MS }).toContain('live')
    expect(lab.errors).toEqual([])
  })
})
