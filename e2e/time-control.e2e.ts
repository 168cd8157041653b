// The time control and the event log in Chromium against the real server: Pause holds every panel
// while the lab runs on, a kill's marker on the scrubber rewinds the recovery panel to that kill,
// the event log lists it and its filters hide it; no console warning or error meanwhile.

import path from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, it } from 'vitest'
import type { JournalPage } from '../lib/journal.ts'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { goTo, labCommitsMore, STALL_MS, STATE_MS } from './page-helpers.ts'
import { untilProgress, waitFor } from './progress.ts'

/** The panels' text: everything the dashboard shows under the header and the time control. */
function panelsText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator's rendered text, not a DOM node's
  return page.getByTestId('dashboard').innerText()
}

/** Waits until the panels' text has not changed for `quietMs` (the charts redraw a moment after a snapshot). */
async function settledPanelsText(page: Page, quietMs = 1500): Promise<string> {
  let last = await panelsText(page)
  let since = Date.now()
  await waitFor(
    async () => {
      const now = await panelsText(page)
      if (now !== last) {
        last = now
        since = Date.now()
      }
      return Date.now() - since >= quietMs
    },
    'the held panels to settle',
    { boundMs: STATE_MS, everyMs: 250 },
  )
  return last
}

function labClock(page: Page): Promise<{ seq: number; atMs: number }> {
  return page.evaluate(async () => {
    const s = (await (await fetch('/api/lab')).json()) as { seq: number; atMs: number }
    return { seq: s.seq, atMs: s.atMs }
  })
}

function journalKills(page: Page): Promise<JournalPage> {
  return page.evaluate(
    async () => (await (await fetch('/api/lab/journal?after=0&category=kills')).json()) as JournalPage,
  )
}

describeInChromium('the time control in chromium', { waitForDashboard: true }, (lab) => {
  const warnings: string[] = []
  let killed = ''

  beforeAll(async () => {
    lab.page.on('console', (m) => {
      if (m.type() === 'warning') warnings.push(m.text())
    })
    // Load again with the warnings listened to from the start.
    await lab.page.reload()
    await lab.page.getByTestId('dashboard').waitFor({ timeout: STATE_MS })
  })

  it('Pause holds every panel on one moment while /api/lab moves on; Live resumes', async () => {
    const { page } = lab
    await labCommitsMore(page)
    await page.getByTestId('time-pause').click()
    await expect
      .poll(() => page.getByTestId('time-status').textContent())
      .toMatch(/^Paused at \d\d:\d\d:\d\d — lab running, \d+ s behind/)
    expect(await page.getByTestId('dashboard').getAttribute('data-view')).toBe('pause')
    const held = await settledPanelsText(page)
    const heldSeq = await page.getByTestId('dashboard').getAttribute('data-seq')
    const before = await labClock(page)
    await untilProgress({
      what: "the lab's clock to move 3 s on",
      read: async () => (await labClock(page)).atMs,
      done: (t) => t >= before.atMs + 3000,
      stallMs: STALL_MS,
      everyMs: 200,
    })
    const after = await labClock(page)
    expect(after.seq).toBeGreaterThan(before.seq)
    expect(await panelsText(page)).toBe(held)
    expect(await page.getByTestId('dashboard').getAttribute('data-seq')).toBe(heldSeq)
    await expect
      .poll(async () => Number((await page.getByTestId('time-status').textContent())?.match(/(\d+) s behind/)?.[1]))
      .toBeGreaterThanOrEqual(3)
    await page.screenshot({ path: path.join(SHOTS, 'time-control-paused.png') })

    await page.getByTestId('time-live').click()
    await expect.poll(() => page.getByTestId('time-status').textContent()).toBe('Live')
    await expect.poll(() => panelsText(page), { timeout: STATE_MS }).not.toBe(held)
    expect(Number(await page.getByTestId('dashboard').getAttribute('data-seq'))).toBeGreaterThan(Number(heldSeq))
  })

  const pausedThenDeeper =
    'paused on the overview (whose socket is sent no partition log), the Partitions page shows the held ' +
    "moment's log, read from the journal"
  it(pausedThenDeeper, async () => {
    const { page } = lab
    await goTo(page, 'overview')
    await page.getByTestId('time-pause').click()
    await expect.poll(() => page.getByTestId('dashboard').getAttribute('data-view')).toBe('pause')
    await goTo(page, 'partitions')
    await expect
      .poll(() => page.getByTestId('dashboard').getAttribute('data-view'), { timeout: STATE_MS })
      .toBe('frame')
    const hw = async () =>
      (await page
        .getByTestId('log-figure-hw')
        .textContent()
        .catch(() => '')) ?? ''
    await expect.poll(async () => Number((await hw()).replace(/,/g, '')), { timeout: STATE_MS }).toBeGreaterThan(0)
    await page.getByTestId('time-live').click()
    await expect.poll(() => page.getByTestId('time-status').textContent()).toBe('Live')
    await goTo(page, 'overview')
  })

  it('loaded on Partitions, then the overview, then Partitions again: the live partition log is back', async () => {
    const { page } = lab
    const hw = async () =>
      Number(
        (
          (await page
            .getByTestId('log-figure-hw')
            .textContent()
            .catch(() => '')) ?? ''
        ).replace(/,/g, ''),
      )
    // Loaded on Partitions, its socket's handshake names the view of every part.
    await page.goto(new URL('/partitions', page.url()).href)
    await page.getByTestId('page-partitions').waitFor({ timeout: STATE_MS })
    for (const name of ['partitions', 'overview', 'partitions'] as const) {
      await goTo(page, name)
      const seq = Number(await page.getByTestId('dashboard').getAttribute('data-seq'))
      // A few snapshots of this page's view on screen.
      await expect
        .poll(async () => Number(await page.getByTestId('dashboard').getAttribute('data-seq')), { timeout: STATE_MS })
        .toBeGreaterThan(seq + 5)
      if (name === 'partitions') await expect.poll(hw, { timeout: STATE_MS }).toBeGreaterThan(0)
    }
    await goTo(page, 'overview')
  })

  it("a kill's marker on the scrubber rewinds every panel to that kill", async () => {
    const { page } = lab
    const card = page.locator('article.worker-card[data-state="running"]').first()
    killed = (await card.getAttribute('data-testid'))!.replace(/^worker-/, '')
    await page.getByTestId(`kill-${killed}`).click()
    await waitFor(
      async () => (await journalKills(page)).entries.some((e) => e.fact.kind === 'kill' && e.fact.workerId === killed),
      `the journal to hold the kill of ${killed}`,
      { boundMs: STATE_MS, everyMs: 250 },
    )
    // Wait until the live lab has recovered, so the rewound view is told apart from it.
    await page.locator('[data-testid="recovery"][data-complete="true"]').first().waitFor({ timeout: STATE_MS })
    const marker = page.locator('[data-testid="scrub-marker"][data-kind="kill"]').first()
    await marker.waitFor({ timeout: STATE_MS })
    expect(await marker.getAttribute('aria-label')).toContain(killed)
    const killAtMs = Number(await marker.getAttribute('data-at-ms'))
    const liveSeq = Number(await page.getByTestId('dashboard').getAttribute('data-seq'))
    await marker.click()
    await page.locator('[data-testid="dashboard"][data-view="frame"]').waitFor({ timeout: STATE_MS })
    await expect.poll(() => page.getByTestId('time-status').textContent()).toContain('Viewing the past')
    expect(Number(await page.getByTestId('dashboard').getAttribute('data-seq'))).toBeLessThan(liveSeq)
    expect(await page.getByTestId('recovery-timeline').textContent()).toContain(killed)
    // The scrubber stands at the kill (to its step of a second).
    expect(Math.abs(Number(await page.getByTestId('scrubber').inputValue()) - killAtMs)).toBeLessThanOrEqual(1000)
    await page.screenshot({ path: path.join(SHOTS, 'time-control-at-kill.png') })
  })

  it('the event log lists the kill, jumps to it, and filtering to config hides it', async () => {
    const { page } = lab
    await page.getByTestId('time-live').click()
    await page.locator('[data-testid="dashboard"][data-view="live"]').waitFor({ timeout: STATE_MS })
    await goTo(page, 'journal')
    const row = page.locator('[data-testid="event-row"][data-kind="kill"]', { hasText: killed })
    await row.waitFor({ timeout: STATE_MS })
    await row.getByTestId('event-show').click()
    await page.locator('[data-testid="dashboard"][data-view="frame"]').waitFor({ timeout: STATE_MS })
    // The held moment stays while the reader moves between pages.
    await goTo(page, 'recovery')
    expect(await page.getByTestId('dashboard').getAttribute('data-view')).toBe('frame')
    expect(await page.getByTestId('recovery-timeline').textContent()).toContain(killed)
    // Held on the kill, the log shows it (as of that moment).
    await goTo(page, 'journal')
    await expect.poll(() => row.count(), { timeout: STATE_MS }).toBe(1)
    await page.getByTestId('time-live').click()

    for (const c of ['kills', 'group', 'faults', 'scenario']) {
      await page.getByTestId(`event-filter-${c}`).click()
      expect(await page.getByTestId(`event-filter-${c}`).getAttribute('aria-pressed')).toBe('false')
    }
    expect(await page.getByTestId('event-filter-config').getAttribute('aria-pressed')).toBe('true')
    expect(await page.getByTestId('event-filter-transactions').getAttribute('aria-pressed')).toBe('false')
    await expect.poll(() => row.count()).toBe(0)
    expect(await page.locator('[data-testid="event-row"]:not([data-category="config"])').count()).toBe(0)
    await page.getByTestId('event-filter-kills').click()
    await expect.poll(() => row.count()).toBe(1)
  })

  it('the scrubber works from the keyboard and says where it stands', async () => {
    const { page } = lab
    const scrubber = page.getByTestId('scrubber')
    await scrubber.focus()
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft')
    await page.locator('[data-testid="dashboard"][data-view="frame"]').waitFor({ timeout: STATE_MS })
    expect(await scrubber.getAttribute('aria-valuetext')).toMatch(/^\d\d:\d\d:\d\d, \d+ s before now$/)
    await page.getByRole('button', { name: 'Live' }).click()
    await page.locator('[data-testid="dashboard"][data-view="live"]').waitFor({ timeout: STATE_MS })
  })

  it('logged no console warnings', () => {
    expect(warnings).toEqual([])
  })
})
