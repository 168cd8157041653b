// The dashboard in Chromium against the server on the Kafka backend (EOSCOPE_BACKEND=kafka and the
// broker npm run test:kafka starts): worker cards are real processes, Kill is SIGKILL, Pause is
// SIGSTOP; recovery, transactions and the validator's figures come from the real topics.
// Chromium and the broker are prerequisites: either missing fails the run.

import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { CHROMIUM_PATH, chromiumAvailable, firstPage, launchBrowser, type Browser } from '../browser.ts'
import { numberIn, waitForNumber } from '../page-helpers.ts'
import { ROOT, startServer, type ServerProcess } from '../server-process.ts'
import { untilProgress, waitFor } from '../progress.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'

const SHOTS = path.join(ROOT, 'test-results')
const brokers = inject('kafkaBrokers')

/** The process's state letter from /proc (R, S, T = stopped by SIGSTOP, ...), or null once it is gone. */
function processState(pid: number): string | null {
  const stat = `/proc/${pid}/stat`
  if (!existsSync(stat)) return null
  try {
    return readFileSync(stat, 'utf8').split(') ')[1]?.[0] ?? null
  } catch {
    return null
  }
}

async function pidOf(page: Page, workerId: string): Promise<number> {
  return numberIn(page, `pid-${workerId}`)
}

async function runningWorker(page: Page, withTasks = true): Promise<string> {
  const deadline = Date.now() + STATE_MS
  while (Date.now() < deadline) {
    for (const card of await page.locator('article.worker-card[data-state="running"]').all()) {
      const id = (await card.getAttribute('data-testid'))!.replace(/^worker-/, '')
      const tasks = (await card.locator('dd').first().textContent()) ?? ''
      if (!withTasks || /0_\d/.test(tasks)) return id
    }
    await page.waitForTimeout(250)
  }
  throw new Error(`no running worker with tasks within ${STATE_MS} ms`)
}

/** States reached after a failure (a kill detected, partitions moved, a process refilled): a few session timeouts. */
const STATE_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs + 30_000
/** How long a figure that should move (records validated) may stay still before the wait fails. */
const STALL_MS = 6 * KAFKA_GROUP_TIMEOUTS.sessionTimeoutMs
/** The overall bound of a test that waits on such figures. */
const TEST_BOUND = { timeout: 600_000 }

describe('the dashboard on the Kafka backend, in chromium', () => {
  let server: ServerProcess
  let browser: Browser
  let page: Page
  const consoleErrors: string[] = []

  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(`chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`)
    if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
    mkdirSync(SHOTS, { recursive: true })
    server = await startServer({ env: { EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: brokers }, timeoutMs: 90_000 })
    browser = await launchBrowser()
    page = await firstPage(browser, consoleErrors)
    await page.goto(server.url)
  }, 180_000)

  afterAll(async () => {
    await page?.screenshot({ path: path.join(SHOTS, 'kafka-dashboard.png'), fullPage: true }).catch(() => {})
    await browser?.close()
    await server?.stop()
  })

  it('says it is on Kafka, names its application.id, shows the cluster reachable and what it cannot do', async () => {
    await page.getByTestId('dashboard').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('backend').textContent()).toContain('kafka')
    expect(await page.getByTestId('application-id').textContent()).toMatch(/^eoscope-lab-/)
    await page.locator('[data-testid="health"][data-reachable="true"]').waitFor({ timeout: 10_000 })
    expect(await page.getByTestId('guarantee-exactly_once_v2').isDisabled()).toBe(true)
    expect(await page.getByTestId('unavailable-eos-v2').textContent()).toContain('KIP-447')
    expect(await page.getByTestId('drop-ack').isDisabled()).toBe(true)
    expect(await page.getByTestId('unavailable-scenarios').textContent()).toContain('embedded log')
  })

  it('shows worker processes and live throughput read from the cluster', async () => {
    const id = await runningWorker(page)
    const pid = await pidOf(page, id)
    expect(processState(pid)).not.toBeNull()
    await waitForNumber(page, 'stat-processed', (n) => n > 0, 30_000)
    await waitForNumber(page, 'stat-visible', (n) => n > 0, 30_000)
  })

  it('Kill sends SIGKILL to the process; the recovery completes and exactly_once shows 0 duplicates', TEST_BOUND, async () => {
    const id = await runningWorker(page)
    const pid = await pidOf(page, id)
    await page.getByTestId(`kill-${id}`).click()
    await waitFor(() => processState(pid) === null, `process ${pid} ended`, { boundMs: STATE_MS })
    await page.locator(`article.worker-card[data-testid="worker-${id}"][data-state="killed"]`).waitFor({ timeout: STATE_MS })
    await page.locator('[data-testid="recovery"][data-complete="true"]').first().waitFor({ timeout: STATE_MS })
    // The validator has read past the recovery: every figure exactly_once must hold at 0 is 0.
    const lab = () => page.evaluate(async () => (await (await fetch('/api/lab')).json()) as { totals: { committedInput: number }; correctness: { inputChecked: number } | null })
    const committedAfter = (await lab()).totals.committedInput
    await untilProgress({
      what: `validator read past ${committedAfter} input records`,
      read: async () => (await lab()).correctness?.inputChecked ?? 0,
      done: (checked) => checked >= committedAfter,
      stallMs: STALL_MS,
      everyMs: 250,
    })
    for (const f of ['duplicates', 'lost', 'abortedReads', 'stateMismatches']) expect(await numberIn(page, `correctness-${f}-value`), f).toBe(0)
    const totals = (await page.getByTestId('txn-totals').textContent()) ?? ''
    expect(Number(/([\d,]+) committed/.exec(totals)?.[1]?.replace(/,/g, '') ?? 0), totals).toBeGreaterThan(0)
    // The slot is refilled with a new process.
    await page.locator(`article.worker-card[data-testid="worker-${id}.2"][data-state="running"]`).waitFor({ timeout: STATE_MS })
    expect(await pidOf(page, `${id}.2`)).not.toBe(pid)
  })

  it('Pause is SIGSTOP and Resume SIGCONT', TEST_BOUND, async () => {
    const id = await runningWorker(page)
    const pid = await pidOf(page, id)
    await page.getByTestId(`pause-${id}`).click()
    await page.locator(`article.worker-card[data-testid="worker-${id}"][data-state="paused"]`).waitFor({ timeout: STATE_MS })
    await waitFor(() => processState(pid) === 'T', `process ${pid} stopped`, { boundMs: STATE_MS })
    await page.getByTestId(`resume-${id}`).click()
    await page.locator(`article.worker-card[data-testid="worker-${id}"]:not([data-state="paused"])`).waitFor({ timeout: STATE_MS })
    await waitFor(() => processState(pid) !== 'T', `process ${pid} continued`, { boundMs: STATE_MS })
  })

  it('at_least_once: a kill at step 4 makes duplicates appear, none lost', TEST_BOUND, async () => {
    await page.getByTestId('guarantee-at_least_once').click()
    await page.locator('[data-testid="stat-guarantee"]', { hasText: 'at_least_once' }).waitFor({ timeout: STATE_MS })
    const id = await runningWorker(page)
    const status = await page.evaluate(
      async (workerId) => (await fetch(`/api/workers/${encodeURIComponent(workerId)}/kill`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ step: 4 }) })).status,
      id,
    )
    expect(status).toBe(200)
    await page.locator(`article.worker-card[data-testid="worker-${id}"][data-state="killed"]`).waitFor({ timeout: STATE_MS })
    await waitForNumber(page, 'correctness-duplicates-value', (n) => n > 0, STATE_MS + STALL_MS)
    expect(await numberIn(page, 'correctness-lost-value')).toBe(0)
  })

  it('logs no console errors', () => {
    expect(consoleErrors).toEqual([])
  })
})
