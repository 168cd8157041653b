// The partitions table in Chromium against the real server and the embedded lab: a row for every
// partition of the input, output and changelog topics, live; sorting by a header; and, held on one
// moment, the row of the partition the partition log shows has the log's LSO and high watermark.
// Beside it the Transactions view: an open transaction Ongoing at its coordinator, its abort after a
// kill, and a hanging transaction (the fault point) aborted through the view's confirmation, after
// which the partitions table shows LSO = HW.

import path from 'node:path'
import { expect, it } from 'vitest'
import { SHOTS, describeInChromium } from './chromium-page.ts'
import { goTo, labCommitsMore, STALL_MS, STATE_MS, whilePaused } from './page-helpers.ts'
import { shown, type ShownRow } from './partitions-shown.ts'
import { shownGroup, type ShownGroup } from './group-shown.ts'
import { untilProgress } from './progress.ts'
import { labSnapshot, offsetIn, rowsOfTasks, txnIdRows } from './transactions-shown.ts'

const MAIN_ROLES = ['input', 'output', 'changelog']

describeInChromium('the partitions table in chromium', { waitForDashboard: true }, (lab) => {
  it('lists every input, output and changelog partition, and their offsets move live', async () => {
    const { page } = lab
    await goTo(page, 'partitions')
    const table = page.getByTestId('partitions-table')
    await table.scrollIntoViewIfNeeded()
    const first = await untilProgress({
      what: 'the partitions table to list 6 partitions of each topic',
      read: () => shown(page),
      done: (s) => MAIN_ROLES.every((role) => s.rows.filter((r) => r.role === role).length === 6),
      stallMs: STALL_MS,
    })
    const names = first.rows.map((r) => r.name)
    expect(new Set(names).size).toBe(names.length)
    for (const r of first.rows) expect(r.lso).toBeLessThanOrEqual(r.hw)
    // The group's offsets partition where the log has the topic (the embedded log has one partition).
    expect(first.rows.filter((r) => r.role === 'offsets').map((r) => r.name)).toEqual(['__consumer_offsets-0'])
    const total = (s: { rows: ShownRow[] }) => s.rows.filter((r) => r.role === 'input').reduce((n, r) => n + r.hw, 0)
    const before = total(first)
    await untilProgress({
      what: `the input partitions' high watermarks to pass ${before}`,
      read: async () => total(await shown(page)),
      done: (n) => n > before,
      stallMs: STALL_MS,
    })
    // Kafka's names under the labels.
    for (const name of ['LSO', 'HW', 'LAG · records-lag'])
      expect(await table.locator('.kafka-name', { hasText: name }).count()).toBeGreaterThan(0)
  })

  it('sorts by a header, either way, and back to the lab order', async () => {
    const { page } = lab
    const hws = async () => (await shown(page)).rows.map((r) => r.hw)
    await page.getByTestId('partitions-sort-hw').click()
    await expect
      .poll(() => page.getByTestId('partitions-col-hw').getAttribute('aria-sort'), { timeout: STATE_MS })
      .toBe('descending')
    const desc = await hws()
    expect(desc).toEqual([...desc].sort((a, b) => b - a))
    await page.getByTestId('partitions-sort-hw').click()
    await expect
      .poll(() => page.getByTestId('partitions-col-hw').getAttribute('aria-sort'), { timeout: STATE_MS })
      .toBe('ascending')
    const asc = await hws()
    expect(asc).toEqual([...asc].sort((a, b) => a - b))
    await page.getByTestId('partitions-sort-partition').click()
    await expect
      .poll(() => page.getByTestId('partitions-col-partition').getAttribute('aria-sort'), { timeout: STATE_MS })
      .toBe('ascending')
    const roles = (await shown(page)).rows.map((r) => r.role).filter((r) => MAIN_ROLES.includes(r))
    expect(roles).toEqual([...roles].sort((a, b) => MAIN_ROLES.indexOf(a) - MAIN_ROLES.indexOf(b)))
  })

  const heldRowHasLsoAndHw =
    "held on one moment, the row of the partition log's partition has the log's LSO and HW, and stays held"
  it(heldRowHasLsoAndHw, async () => {
    const { page } = lab
    await goTo(page, 'partitions')
    for (const [topic, partition] of [
      ['output', '0'],
      ['changelog', '2'],
    ] as const) {
      await page.getByTestId(`log-topic-${topic}`).click()
      await expect
        .poll(() => page.getByTestId('log-partition-name').textContent(), { timeout: STATE_MS })
        .toContain(topic)
      await page.getByTestId('log-partition').selectOption(partition)
      await expect
        .poll(() => page.getByTestId('log-partition-name').textContent(), { timeout: STATE_MS })
        .toMatch(new RegExp(`${topic}-${partition}$`))
      await whilePaused(page, async () => {
        const held = await shown(page)
        const row = held.rows.find((r) => r.name === held.log!.name)
        expect(row, `a row for ${held.log!.name}`).toBeDefined()
        expect({ lso: row!.lso, hw: row!.hw }).toEqual({ lso: held.log!.lso, hw: held.log!.hw })
        if (row!.lso < row!.hw) expect(row!.open).not.toMatch(/^0/)
        await labCommitsMore(page)
        expect(await shown(page)).toEqual(held)
        if (topic === 'output') {
          await page.getByTestId('partitions-table').screenshot({ path: path.join(SHOTS, 'partitions-table.png') })
        }
      })
      await expect.poll(() => page.getByTestId('time-status').textContent(), { timeout: STATE_MS }).toBe('Live')
    }
  })

  it('fits a 1280 px window, scrolling inside its panel', async () => {
    const { page } = lab
    await page.setViewportSize({ width: 1280, height: 900 })
    await goTo(page, 'partitions')
    const table = page.getByTestId('partitions-table')
    await table.scrollIntoViewIfNeeded()
    const fits = await page.evaluate(() => {
      const panel = document.querySelector('[data-testid="partitions-table"]')!.getBoundingClientRect()
      return { right: panel.right, page: document.documentElement.scrollWidth, width: window.innerWidth }
    })
    expect(fits.right).toBeLessThanOrEqual(fits.width)
    expect(fits.page).toBeLessThanOrEqual(fits.width)
  })

  const transactionsViewOpenThenAborted =
    'the Transactions view lists an open transaction Ongoing at its coordinator, and after its worker is killed ' +
    'shows that transactional id aborted'
  it(transactionsViewOpenThenAborted, async () => {
    const { page } = lab
    await page.setViewportSize({ width: 1440, height: 900 })
    await goTo(page, 'transactions')
    await page.getByTestId('transactions-view').scrollIntoViewIfNeeded()
    const snapshot = await labSnapshot(page)
    const worker = snapshot.workers.find((w) => w.state === 'running' && w.taskIds.length > 0)!
    const mine = (rows: Parameters<typeof rowsOfTasks>[0]) => rowsOfTasks(rows, worker.taskIds)
    await expect
      .poll(async () => mine(await txnIdRows(page)).some((r) => r.state === 'Ongoing'), {
        timeout: STATE_MS,
        interval: 100,
      })
      .toBe(true)
    const open = page.locator('[data-testid="producer-state-row"][data-verdict="ongoing"]')
    expect(await open.count()).toBeGreaterThan(0)
    expect(offsetIn(await open.first().getByTestId('producer-first-offset').textContent())).toBeGreaterThanOrEqual(0)
    const t0 = (await labSnapshot(page)).atMs
    // Killed at step 4 its transaction is surely open; the new owners of its tasks fence it.
    const status = await page.evaluate(
      async (id) =>
        (
          await fetch(`/api/workers/${encodeURIComponent(id)}/kill`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ step: 4 }),
          })
        ).status,
      worker.id,
    )
    expect(status).toBe(200)
    await expect
      .poll(
        async () =>
          mine(await txnIdRows(page)).some(
            (r) => r.state === 'CompleteAbort' || (r.abortAt !== null && r.abortAt >= t0),
          ),
        { timeout: STATE_MS, interval: 100 },
      )
      .toBe(true)
  })

  const hangingTransactionAborted =
    'a hanging transaction (the fault point) is shown by find-hanging, aborted through the confirmation, and ' +
    'then LSO = HW in the partitions table'
  it(hangingTransactionAborted, async () => {
    const { page } = lab
    // Input stopped: once the lab's own transactions end, the output partitions' LSO = HW.
    expect(
      await page.evaluate(
        async () =>
          (
            await fetch('/api/lab/config', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ inputRatePerSec: 0 }),
            })
          ).status,
      ),
    ).toBe(200)
    // The partitions table and the Transactions view are pages of their own: each read goes to its page.
    const output0 = async () => {
      await goTo(page, 'partitions')
      return (await shown(page)).rows.find((r) => r.role === 'output' && r.name.endsWith('-0'))!
    }
    const openShown = async () => {
      await goTo(page, 'transactions')
      return page.getByTestId('txnview-open').textContent()
    }
    await expect
      .poll(
        async () => {
          const r = await output0()
          return r.lso === r.hw && (await openShown()) === '0 open'
        },
        { timeout: STATE_MS, interval: 200 },
      )
      .toBe(true)
    await goTo(page, 'transactions')
    const view = page.getByTestId('transactions-view')
    await view.scrollIntoViewIfNeeded()
    await page.getByTestId('inject-hanging').click()
    const result = page.getByTestId('find-hanging-result')
    await expect.poll(() => result.getAttribute('data-hanging'), { timeout: STATE_MS }).toBe('1')
    const hanging = page.getByTestId('hanging-row')
    const producerId = (await hanging.getAttribute('data-producer-id'))!
    const row = page.locator(`[data-testid="producer-state-row"][data-producer-id="${producerId}"]`)
    expect(await row.getAttribute('data-verdict')).toBe('hanging')
    const first = offsetIn(await row.getByTestId('producer-first-offset').textContent())
    await expect
      .poll(
        async () => {
          const r = await output0()
          return r.lso === first && r.hw > r.lso
        },
        { timeout: STATE_MS, interval: 200 },
      )
      .toBe(true)
    await goTo(page, 'transactions')
    expect(await hanging.textContent()).toMatch(/no coordinator has a transactional id with that producer id/)
    await page.getByTestId(`abort-hanging-${producerId}`).click()
    await page.getByTestId('abort-cancel').waitFor({ timeout: STATE_MS })
    await view.screenshot({ path: path.join(SHOTS, 'transactions-view.png') })
    // Cancelled: nothing written, still hanging.
    await page.getByTestId('abort-cancel').click()
    expect(await result.getAttribute('data-hanging')).toBe('1')
    await page.getByTestId(`abort-hanging-${producerId}`).click()
    await page.getByTestId('abort-confirm').click()
    await expect.poll(() => result.getAttribute('data-hanging'), { timeout: STATE_MS }).toBe('0')
    await expect
      .poll(
        async () => {
          const r = await output0()
          return r.lso === r.hw && r.hw > first
        },
        { timeout: STATE_MS, interval: 200 },
      )
      .toBe(true)
    const journal = await page.evaluate(
      async () =>
        (await (await fetch('/api/lab/journal?category=transactions&limit=2000')).json()) as {
          entries: { fact: { kind: string; producerId?: number; fromOffset?: number } }[]
        },
    )
    expect(journal.entries.find((e) => e.fact.kind === 'hanging-aborted')?.fact).toMatchObject({
      producerId: Number(producerId),
      fromOffset: first,
    })
  })

  it('the Transactions view fits a 1280 px and a 1440 px window', async () => {
    const { page } = lab
    for (const width of [1280, 1440]) {
      await page.setViewportSize({ width, height: 900 })
      await goTo(page, 'transactions')
      await page.getByTestId('transactions-view').scrollIntoViewIfNeeded()
      const fits = await page.evaluate(() => ({
        right: document.querySelector('[data-testid="transactions-view"]')!.getBoundingClientRect().right,
        page: document.documentElement.scrollWidth,
        width: window.innerWidth,
      }))
      expect(fits.right, `${width} px`).toBeLessThanOrEqual(fits.width)
      expect(fits.page, `${width} px`).toBeLessThanOrEqual(fits.width)
      await page
        .getByTestId('transactions-view')
        .screenshot({ path: path.join(SHOTS, `transactions-view-${width}.png`) })
    }
  })

  // The Group view on the same lab: one member per live worker in the coordinator's generation N;
  // after a kill, a later generation without the dead member, its partitions on the others, and
  // the generation it was in ended with it killed.
  const groupViewAcrossKill =
    'the group view shows one member per live worker in generation N, and after a kill generation N+1 with the ' +
    'dead member’s partitions on the others'
  it(groupViewAcrossKill, async () => {
    const { page } = lab
    await goTo(page, 'recovery')
    await page.getByTestId('group-view').scrollIntoViewIfNeeded()
    const all = '0,1,2,3,4,5'
    const before = await untilProgress({
      what: 'the group view to show a Stable generation with one member per running worker',
      read: () => shownGroup(page),
      done: (g) =>
        g.state === 'Stable' &&
        g.running.length > 0 &&
        g.members.length === g.running.length &&
        g.running.every((w) => g.members.some((m) => m.worker === w)) &&
        g.generations[0]?.generation === g.generation &&
        g.generations[0]?.partitions === all,
      stallMs: STALL_MS,
    })
    const n = before.generation!
    const victim = before.members[0]!
    await page.getByTestId(`kill-${victim.worker}`).click()
    const next = (g: ShownGroup) =>
      g.generations.find((x) => x.generation !== null && x.generation > n && !x.members.includes(victim.member))
    const after = await untilProgress({
      what: `a generation after ${n} without ${victim.member}`,
      read: () => shownGroup(page),
      done: (g) => next(g) !== undefined,
      stallMs: STALL_MS,
    })
    expect(next(after)!.partitions).toBe(all)
    const ended = after.generations.find(
      (x) => x.members.includes(victim.member) && x.end.includes(`${victim.worker} killed`),
    )
    expect(ended, `a generation ended by ${victim.worker} killed`).toBeDefined()
    for (const p of victim.partitions.split(',')) expect(ended!.end).toContain(`p${p} ${victim.worker}→`)
    await page.getByTestId('group-view').screenshot({ path: path.join(SHOTS, 'group-view-after-kill.png') })
  })

  it('the group view fits 1440 and 1280 px windows', async () => {
    const { page } = lab
    for (const width of [1440, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await goTo(page, 'recovery')
      await page.getByTestId('group-view').scrollIntoViewIfNeeded()
      const fits = await page.evaluate(() => ({
        right: document.querySelector('[data-testid="group-view"]')!.getBoundingClientRect().right,
        page: document.documentElement.scrollWidth,
        width: window.innerWidth,
      }))
      expect(fits.right).toBeLessThanOrEqual(fits.width)
      expect(fits.page).toBeLessThanOrEqual(fits.width)
      await page.getByTestId('group-view').screenshot({ path: path.join(SHOTS, `group-view-${width}.png`) })
    }
  })
})
