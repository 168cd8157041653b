// The dashboard in Chromium against the real server and the embedded lab.

import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import {
  goTo,
  labCommitsMore,
  labFigures,
  numberIn,
  STATE_MS,
  validatorReadsPastNow,
  waitForNumber,
} from './page-helpers.ts'
import { findAbortedOutput, openFromLedger, readFromForm, shownRows } from './message-browser-steps.ts'

/**
 * Kills a running worker through the REST API at a chosen step of the five (with its transaction
 * surely open at step 4: produced and acknowledged, not committed), and waits for its card to say so.
 */
async function killRunningWorkerAtStep(page: Page, step: number): Promise<string> {
  const card = page.locator('article.worker-card[data-state="running"]').first()
  const id = (await card.getAttribute('data-testid'))!.replace(/^worker-/, '')
  const status = await page.evaluate(
    async ([workerId, s]) =>
      (
        await fetch(`/api/workers/${encodeURIComponent(workerId)}/kill`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ step: s }),
        })
      ).status,
    [id, step] as const,
  )
  expect(status).toBe(200)
  await page
    .locator(`article.worker-card[data-testid="worker-${id}"][data-state="killed"]`)
    .waitFor({ timeout: STATE_MS })
  return id
}

async function killRunningWorker(page: Page): Promise<string> {
  const card = page.locator('article.worker-card[data-state="running"]').first()
  const id = (await card.getAttribute('data-testid'))!.replace(/^worker-/, '')
  await page.getByTestId(`kill-${id}`).click()
  await page
    .locator(`article.worker-card[data-testid="worker-${id}"][data-state="killed"]`)
    .waitFor({ timeout: STATE_MS })
  return id
}

describeInChromium('the dashboard in chromium', {}, (lab) => {
  it('shows live data from the embedded lab', async () => {
    const { page } = lab
    await page.getByTestId('dashboard').waitFor({ timeout: STATE_MS })
    await expect.poll(() => page.getByTestId('backend').textContent()).toContain('embedded')
    await expect.poll(() => page.getByTestId('connection').textContent()).toContain('live')
    const seq0 = Number(await page.getByTestId('dashboard').getAttribute('data-seq'))
    const input0 = await numberIn(page, 'stat-committed-input')
    // A new snapshot arrives: the sequence moves on.
    await expect
      .poll(async () => Number(await page.getByTestId('dashboard').getAttribute('data-seq')), { timeout: STATE_MS })
      .toBeGreaterThan(seq0)
    await waitForNumber(page, 'stat-committed-input', (n) => n > input0, STATE_MS)
    await waitForNumber(page, 'stat-processed', (n) => n > 0, STATE_MS)
    expect(await page.locator('[data-testid^="task-0_"]').count()).toBeGreaterThan(0)
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-live.png'), fullPage: true })
  })

  it('under exactly_once, a kill aborts a transaction and causes 0 duplicates', async () => {
    const { page } = lab
    await expect.poll(() => page.getByTestId('stat-guarantee').textContent()).toBe('exactly_once')
    await labCommitsMore(page)
    // Killed at step 4 its transaction is open for sure; a kill between two transactions has nothing to abort.
    const killed = await killRunningWorkerAtStep(page, 4)
    // The dead worker's open transaction is aborted when the new owner fences it: it shows in the
    // aborted count of the headline, on every page, so watch from the kill on.
    const abortSeen = expect
      .poll(async () => (await numberIn(page, 'stat-aborted')) > 0, { timeout: STATE_MS, interval: 50 })
      .toBe(true)
    await page.getByTestId('recovery').first().waitFor({ timeout: STATE_MS })
    await page.locator('[data-testid="recovery"][data-complete="true"]').first().waitFor({ timeout: STATE_MS })
    await abortSeen
    // Let the validator read past the recovery, then check the duplicates it found.
    await validatorReadsPastNow(page)
    expect(await numberIn(page, 'correctness-duplicates-value')).toBe(0)
    expect(await numberIn(page, 'correctness-lost-value')).toBe(0)
    expect(await page.getByTestId('correctness').locator('[data-violation="true"]').count()).toBe(0)
    expect(await page.getByTestId('recovery-timeline').textContent()).toContain(killed)
    await page.screenshot({ path: path.join(SHOTS, 'exactly-once-after-kill.png'), fullPage: true })
  })

  it('the message browser shows an aborted record to read_uncommitted only', async () => {
    const { page } = lab
    const found = await findAbortedOutput(page)
    expect(found, 'the kill left an aborted record on the output').not.toBeNull()
    await readFromForm(page, found!.partition, found!.offset)
    await expect
      .poll(async () => (await shownRows(page)).find((r) => r.offset === found!.offset), { timeout: STATE_MS })
      .toEqual({ offset: found!.offset, state: 'aborted', rc: 'false', ru: 'true', copy: expect.any(Boolean) })
    // Its headers, producer and source on expand.
    await page
      .getByTestId('message-browser')
      .locator(`[data-testid="msg-row"][data-offset="${found!.offset}"] button`)
      .click()
    await expect
      .poll(() => page.getByTestId('msg-detail').textContent(), { timeout: STATE_MS })
      .toMatch(/producer.*transactional.*headers.*came from/)
    await page.getByTestId('message-browser').screenshot({ path: path.join(SHOTS, 'message-browser-aborted.png') })
  })

  const historyListsKilledTransaction =
    'after that kill, the transaction history lists the aborted transaction with its cause, counts what the ' +
    'dashboard counts, and exports it as CSV'
  it(historyListsKilledTransaction, async () => {
    const { page } = lab
    await goTo(page, 'transactions')
    const view = page.getByTestId('txn-history-view')
    await view.scrollIntoViewIfNeeded()
    await page.getByTestId('txn-filter-outcome').selectOption('aborted')
    const crashRow = view.locator('[data-testid="txn-history-rows"] tr[data-outcome="aborted"][data-cause="crash"]')
    await crashRow.first().waitFor({ timeout: STATE_MS })
    // One number for one fact: read in one go from one rendered snapshot.
    const figures = () =>
      page.evaluate(() => {
        const n = (id: string) =>
          Number((document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '').replace(/[^0-9]/g, ''))
        const totals = document.querySelector('[data-testid="txn-totals"]')?.textContent ?? ''
        return {
          tile: n('stat-aborted'),
          panel: n('txn-aborted'),
          history: n('txn-stats-count-aborted'),
          committedHistory: n('txn-stats-count-committed'),
          committedPanel: Number(/([\d,]+) committed/.exec(totals)?.[1]?.replace(/,/g, '')),
        }
      })
    const f = await figures()
    expect(f.history).toBeGreaterThan(0)
    expect(f.history).toBe(f.tile)
    expect(f.history).toBe(f.panel)
    expect(f.committedHistory).toBe(f.committedPanel)
    expect(await numberIn(page, 'txn-cause-crash')).toBeGreaterThan(0)
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('txn-export-csv').click()])
    expect(download.suggestedFilename()).toMatch(/^eoscope-transactions_.*\.csv$/)
    const csv = await readFile((await download.path())!, 'utf8')
    const lines = csv.trimEnd().split('\r\n')
    expect(lines[0]).toMatch(/^endMs,beginMs,durationMs,outcome,cause,transactionalId,/)
    const rows = lines.slice(1).map((l) => l.split(','))
    expect(rows.length).toBe(
      (await crashRow.count()) +
        (await view
          .locator('[data-testid="txn-history-rows"] tr[data-outcome="aborted"]:not([data-cause="crash"])')
          .count()),
    )
    expect(rows.every((r) => r[3] === 'aborted')).toBe(true)
    expect(rows.filter((r) => r[4] === 'crash').length).toBe(await crashRow.count())
    await page.getByTestId('txn-filter-outcome').selectOption('all')
  })

  it('toggles processing.guarantee live', async () => {
    const { page } = lab
    await goTo(page, 'overview')
    await page.getByTestId('guarantee-at_least_once').click()
    await expect
      .poll(() => page.getByTestId('stat-guarantee').textContent(), { timeout: STATE_MS })
      .toBe('at_least_once')
    expect(await page.getByTestId('guarantee-at_least_once').getAttribute('aria-checked')).toBe('true')
    // enable.idempotence is only settable under at_least_once.
    await expect.poll(() => page.getByTestId('idempotence').isEnabled()).toBe(true)
  })

  it('under at_least_once without idempotence, a dropped ack and a kill make the duplicates counter rise', async () => {
    const { page } = lab
    await page.getByTestId('reset').click()
    await expect.poll(() => page.getByTestId('stat-kills').textContent(), { timeout: STATE_MS }).toBe('0')
    // Reset means the defaults (exactly_once): at_least_once again, then idempotence off.
    await expect
      .poll(() => page.getByTestId('stat-guarantee').textContent(), { timeout: STATE_MS })
      .toBe('exactly_once')
    await page.getByTestId('guarantee-at_least_once').click()
    await expect
      .poll(() => page.getByTestId('stat-guarantee').textContent(), { timeout: STATE_MS })
      .toBe('at_least_once')
    const idem = page.getByTestId('idempotence')
    if (await idem.isChecked()) await idem.click()
    await expect.poll(() => idem.isChecked(), { timeout: STATE_MS }).toBe(false)
    await labCommitsMore(page)
    const dropped = (await labFigures(page)).totals.droppedAcks
    await page.getByTestId('drop-ack').click()
    await expect
      .poll(async () => (await labFigures(page)).totals.droppedAcks, { timeout: STATE_MS })
      .toBeGreaterThan(dropped)
    await killRunningWorker(page)
    await page.getByTestId('recovery').first().waitFor({ timeout: STATE_MS })
    const dupes = await waitForNumber(page, 'correctness-duplicates-value', (n) => n > 0, STATE_MS)
    expect(dupes).toBeGreaterThan(0)
    expect(await numberIn(page, 'correctness-lost-value')).toBe(0)
    await page.locator('[data-testid="recovery"][data-complete="true"]').first().waitFor({ timeout: STATE_MS })
    await page.screenshot({ path: path.join(SHOTS, 'at-least-once-duplicates.png'), fullPage: true })
  })

  it('opens both copies of a duplicate in the message browser from a duplicate-ledger row', async () => {
    const { page } = lab
    const copies = await openFromLedger(page)
    await expect
      .poll(() => page.evaluate(() => window.location.search), { timeout: STATE_MS })
      .toContain(`msg.from=${copies.first}`)
    const both = async () =>
      (await shownRows(page)).filter((r) => r.offset === copies.first || r.offset === copies.copy)
    await expect.poll(async () => (await both()).length, { timeout: STATE_MS }).toBe(2)
    // Both read_committed-visible (at_least_once writes no transaction), each marked as the other's copy.
    for (const r of await both())
      expect(r).toMatchObject({ state: 'non-transactional', rc: 'true', ru: 'true', copy: true })
    // Only the copies of that input record are listed, whatever else its key wrote between them.
    expect((await shownRows(page)).every((r) => r.copy)).toBe(true)
    expect(await page.getByTestId('msg-summary').textContent()).toContain(`output-${copies.partition}`)
  })

  it('switches to the light theme', async () => {
    const { page } = lab
    const before = await page.evaluate(() => document.documentElement.dataset.theme)
    await page.getByTestId('theme-toggle').click()
    const after = await page.evaluate(() => document.documentElement.dataset.theme)
    expect(after).not.toBe(before)
    await page.screenshot({ path: path.join(SHOTS, `dashboard-${after}.png`), fullPage: true })
  })

  it('refuses a bad command with a clear error and changes nothing', async () => {
    const { server } = lab
    const before = (await (await fetch(`${server.url}/api/lab`)).json()) as { config: Record<string, unknown> }
    const r = await fetch(`${server.url}/api/lab/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ 'commit.interval.ms': 5 }),
    })
    expect(r.status).toBe(400)
    expect(((await r.json()) as { error: string }).error).toMatch(/commit\.interval\.ms/)
    const after = (await (await fetch(`${server.url}/api/lab`)).json()) as { config: Record<string, unknown> }
    expect(after.config).toEqual(before.config)
  })
})
