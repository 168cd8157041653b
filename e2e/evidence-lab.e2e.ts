// Evidence that keeps its lab, in Chromium (issue 34: an old card's link opened records of a lab
// started later, without a warning). crash-before-commit-eos runs from the Scenarios page; its card
// and links name the lab the run left, and the link opens that lab's records. After a reset (the
// overview's Reset lab) the card says its records are gone, and following its links never shows the
// new lab's records: the partition log and the message browser say the records were in the old lab,
// which no longer runs.

import path from 'node:path'
import type { Page } from 'playwright-core'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { goTo, STALL_MS, STATE_MS } from './page-helpers.ts'
import { waitFor } from './progress.ts'
import { openEvidence, runScenarioToEnd } from './scenario-steps.ts'

const SCENARIO = 'crash-before-commit-eos'

interface LabShown {
  lab?: { id: string; generation: number }
}

function runningLab(page: Page): Promise<LabShown['lab']> {
  return page.evaluate(async () => ((await (await fetch('/api/lab')).json()) as LabShown).lab)
}

const cardOf = (page: Page) => page.locator(`[data-testid="evidence-card"][data-id="${SCENARIO}-1"]`)

/** For a while after the link was followed: the panel never holds one of the running lab's records. */
async function neverShows(page: Page, what: string, shown: () => Promise<number>): Promise<void> {
  for (let i = 0; i < 8; i++) {
    expect(await shown(), `${what}, ${i * 250} ms after the link`).toBe(0)
    await page.waitForTimeout(250)
  }
}

describeInChromium('evidence keeps its lab', { waitForDashboard: true, errors: 'uncaught' }, (lab) => {
  let scenarioLab: NonNullable<LabShown['lab']>
  let link: { topic: string; partition: string; from: string; to: string }

  it('names the lab the run left on its card and links, and opens that lab’s records', async () => {
    const { page } = lab
    await runScenarioToEnd(page, SCENARIO, { everyMs: 250, stallMs: STALL_MS })
    scenarioLab = (await runningLab(page))!
    expect(scenarioLab.generation).toBeGreaterThan(1)
    const card = cardOf(page)
    await card.waitFor({ timeout: 10_000 })
    expect(await card.getByTestId('evidence-lab').getAttribute('data-lab')).toBe(scenarioLab.id)
    expect(await card.getByTestId('evidence-lab').textContent()).toContain(`from lab ${scenarioLab.generation}`)
    expect(await card.getByTestId('evidence-records').getAttribute('data-state')).toBe('kept')
    expect(await card.getByTestId('evidence-link').first().getAttribute('data-lab')).toBe(scenarioLab.id)
    // While its lab runs, the link opens its records (openEvidence waits for the first offset).
    link = await openEvidence(page, SCENARIO, {
      boundMs: 10_000,
      named: (shown, topic, partition) => shown === `${topic}-${partition}`,
    })
    expect(await page.getByTestId('log-refusal').count()).toBe(0)
  })

  it('after a reset, the card says its records are gone and its links never show the new lab’s records', async () => {
    const { page } = lab
    await goTo(page, 'overview')
    await page.getByTestId('reset').click()
    await waitFor(
      async () => ((await runningLab(page))?.generation ?? 0) > scenarioLab.generation,
      'the reset to start a new lab',
      { boundMs: STATE_MS },
    )
    const now = (await runningLab(page))!

    await goTo(page, 'scenarios')
    const card = cardOf(page)
    await expect
      .poll(() => card.getByTestId('evidence-records').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('gone')
    expect(await card.getByTestId('evidence-records').textContent()).toContain('records gone: a reset replaced it')
    await card.screenshot({ path: path.join(SHOTS, 'evidence-records-gone.png') })

    // The partition log: the old lab's offsets are refused with why, in place of any records.
    await card.getByTestId('evidence-link').first().click()
    await page.getByTestId('page-partitions').waitFor({ timeout: STATE_MS })
    const refusal = page.getByTestId('log-refusal')
    await refusal.waitFor({ timeout: 10_000 })
    const said = (await refusal.textContent()) ?? ''
    expect(said).toContain(`were in lab ${scenarioLab.generation} (id ${scenarioLab.id}`)
    expect(said).toContain('no longer the running lab: a reset replaced it')
    expect(said).toContain(`the running lab is lab ${now.generation}`)
    await neverShows(page, 'partition log cells', () =>
      page.getByTestId('partition-log').getByTestId('log-cell').count(),
    )
    await page.getByTestId('partition-log').screenshot({ path: path.join(SHOTS, 'evidence-log-refused.png') })

    // The message browser: the same link's offsets, 410 from the API and the reason on the panel.
    await goTo(page, 'scenarios')
    await cardOf(page).getByTestId('evidence-messages').first().click()
    const browser = page.getByTestId('message-browser')
    await browser.waitFor({ timeout: STATE_MS })
    const error = browser.getByTestId('msg-error')
    await error.waitFor({ timeout: 10_000 })
    expect(await error.getAttribute('data-lab')).toBe(scenarioLab.id)
    expect((await error.textContent()) ?? '').toContain(
      `${link.topic}-${link.partition} [${link.from}, ${link.to}) were in lab ${scenarioLab.generation}`,
    )
    expect(await page.evaluate(() => window.location.search)).toContain(`msg.lab=${scenarioLab.id}`)
    await neverShows(page, 'message browser rows', () => browser.getByTestId('msg-row').count())
    expect(await browser.getByTestId('msg-summary').count()).toBe(0)
    await browser.screenshot({ path: path.join(SHOTS, 'evidence-messages-refused.png') })

    // The running lab is a click away: Newest reads it, the old lab left behind.
    await browser.getByTestId('msg-newest').click()
    await expect.poll(() => browser.getByTestId('msg-row').count(), { timeout: 10_000 }).toBeGreaterThan(0)
    expect(await page.evaluate(() => window.location.search)).not.toContain('msg.lab=')
  })
})
