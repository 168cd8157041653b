// The dashboard in Chromium against the server on the Kafka backend (EOSCOPE_BACKEND=kafka and the
// broker npm run test:kafka starts), its workers 1 ms from the broker (EOSCOPE_NETWORK_LATENCY_MS):
// worker cards are real processes, Kill is SIGKILL, Pause is SIGSTOP; recovery, transactions and the
// validator's figures come from the real topics.
// Chromium and the broker are prerequisites: either missing fails the run.

import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { anotherPage, CHROMIUM_PATH, chromiumAvailable, firstPage, launchBrowser, type Browser } from '../browser.ts'
import { goTo, numberIn, waitForNumber, whilePaused } from '../page-helpers.ts'
import { ROOT, startServer, type ServerProcess } from '../server-process.ts'
import { shown } from '../partitions-shown.ts'
import { shownGroup, type ShownGroup } from '../group-shown.ts'
import { untilProgress, waitFor } from '../progress.ts'
import { labNow, labRunsOn, openEvidence, runScenarioToEnd } from '../scenario-steps.ts'
import { openFromLedger, shownRows } from '../message-browser-steps.ts'
import { labSnapshot, offsetIn, rowsOfTasks, txnIdRows } from '../transactions-shown.ts'
import { KAFKA_GROUP_TIMEOUTS } from '../../server/log/kafka/capabilities.ts'
import { kafkaAppTopics } from '../../server/runtime/kafka/kafka-app.ts'
import { SCENARIOS } from '../../server/lab/scenarios/index.ts'
import { writeHangingTransaction } from '../../server/log/kafka/kip664/__fixtures__/hanging-transaction.ts'

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
    if (!chromiumAvailable())
      throw new Error(
        `chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (or set ` +
          `CHROMIUM_PATH)`,
      )
    if (!brokers) throw new Error('no Kafka broker: run these tests with npm run test:kafka')
    mkdirSync(SHOTS, { recursive: true })
    // The workers a network away (1 ms each way, eoscope's proxy), as a deployment's are from their brokers.
    server = await startServer({
      env: { EOSCOPE_BACKEND: 'kafka', KAFKA_BROKERS: brokers, EOSCOPE_NETWORK_LATENCY_MS: '1' },
      timeoutMs: 90_000,
    })
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
    await page.getByTestId('dashboard').waitFor({ timeout: STATE_MS })
    expect(await page.getByTestId('backend').textContent()).toContain('kafka')
    expect(await page.getByTestId('application-id').textContent()).toMatch(/^eoscope-lab-/)
    expect(await page.getByTestId('network').textContent()).toBe('workers 1 ms from the brokers')
    await page.locator('[data-testid="health"][data-reachable="true"]').waitFor({ timeout: STATE_MS })
    // exactly_once_v2 through KIP-447 (TxnOffsetCommit v3, OffsetFetch require_stable).
    expect(await page.getByTestId('guarantee-exactly_once_v2').isDisabled()).toBe(false)
    expect(await page.getByTestId('unavailable-eos-v2').count()).toBe(0)
    // Lost acks go through the ack-drop proxy between the worker processes and the broker.
    expect(await page.getByTestId('drop-ack').isDisabled()).toBe(false)
  })

  it('shows worker processes and live throughput read from the cluster', async () => {
    const id = await runningWorker(page)
    const pid = await pidOf(page, id)
    expect(processState(pid)).not.toBeNull()
    await waitForNumber(page, 'stat-processed', (n) => n > 0, STATE_MS)
    await waitForNumber(page, 'stat-visible', (n) => n > 0, STATE_MS)
  })

  it(
    "observes its own lab as an application it did not start (/observe, from the header's link): its members " +
      'are the worker processes, its transactions commit, the validator at 0',
    TEST_BOUND,
    async () => {
      const applicationId = (await page.getByTestId('application-id').textContent())!.trim()
      const topics = kafkaAppTopics(applicationId)
      expect(await page.getByTestId('nav-observe').getAttribute('href')).toBe('/observe')
      const tab = await anotherPage(browser, consoleErrors)
      try {
        await tab.goto(`${server.url}/observe`)
        await tab.getByTestId('observe-applicationId').fill(applicationId)
        await tab.getByTestId('observe-input').fill(topics.input)
        await tab.getByTestId('observe-output').fill(topics.output)
        await tab.getByTestId('observe-format').selectOption('eoscope')
        await tab.getByTestId('observe-changelog').fill(topics.changelog)
        await tab.getByTestId('observe-submit').click()
        // A permalink: the target is in the URL.
        expect(new URL(tab.url()).searchParams.get('applicationId')).toBe(applicationId)
        const workers = await page.locator('article.worker-card[data-state="running"]').count()
        // Read in one go from the DOM: a locator's textContent on an element not there yet would wait for it.
        const seen = () =>
          tab.evaluate(() => {
            const text = (id: string) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null
            return {
              members: document.querySelectorAll('[data-testid="observe-member"]').length,
              transactions: document.querySelectorAll('[data-testid="observe-transaction"]').length,
              state: text('observe-group-state'),
              verdict: text('observe-verdict'),
              error: text('observe-error'),
            }
          })
        const s = await untilProgress({
          what: "the observe page to show the lab's group, transactions and validator",
          read: seen,
          done: (x) => x.members === workers && x.state === 'Stable' && x.transactions > 0,
          stallMs: STALL_MS,
          everyMs: 500,
        })
        expect(s.error).toBeNull()
        // Each member is a worker process of the lab: its consumer's client.id is the worker's id.
        const clientIds = (await tab.getByTestId('observe-member').locator('td:first-child').allTextContents()).sort()
        const running = (
          await page
            .locator('article.worker-card[data-state="running"]')
            .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-testid')!.replace(/^worker-/, '')))
        ).sort()
        expect(clientIds).toEqual(running)
        // Generations come from __consumer_offsets, the validator's figures from the topics.
        expect(Number(await tab.getByTestId('observe-generation').textContent())).toBeGreaterThan(0)
        await untilProgress({
          what: 'the validator on /observe to read input records',
          read: async () => (await seen()).verdict ?? '',
          done: (t) => /over [1-9][\d,]* input records/.test(t),
          stallMs: STALL_MS,
          everyMs: 500,
        })
        for (const row of ['duplicates', 'lost', 'abortedReads', 'stateMismatches'])
          expect(await tab.getByTestId(`observe-check-${row}`).getAttribute('data-value')).toBe('0')
        expect(await tab.getByTestId('observe-verdict').textContent()).toContain('No violation of exactly-once')
        expect(await tab.locator('[data-testid="observe-partition"][data-role="input"]').count()).toBeGreaterThan(0)
        await tab.screenshot({ path: path.join(SHOTS, 'kafka-observe.png'), fullPage: true })
      } finally {
        await tab.close()
      }
    },
  )

  it(
    'Kill sends SIGKILL to the process; the recovery completes and exactly_once shows 0 duplicates',
    TEST_BOUND,
    async () => {
      const id = await runningWorker(page)
      const pid = await pidOf(page, id)
      await page.getByTestId(`kill-${id}`).click()
      await waitFor(() => processState(pid) === null, `process ${pid} ended`, { boundMs: STATE_MS })
      await page
        .locator(`article.worker-card[data-testid="worker-${id}"][data-state="killed"]`)
        .waitFor({ timeout: STATE_MS })
      await page.locator('[data-testid="recovery"][data-complete="true"]').first().waitFor({ timeout: STATE_MS })
      // The validator has read past the recovery: every figure exactly_once must hold at 0 is 0.
      const lab = () =>
        page.evaluate(
          async () =>
            (await (await fetch('/api/lab')).json()) as {
              totals: { committedInput: number }
              correctness: { inputChecked: number } | null
            },
        )
      const committedAfter = (await lab()).totals.committedInput
      await untilProgress({
        what: `validator read past ${committedAfter} input records`,
        read: async () => (await lab()).correctness?.inputChecked ?? 0,
        done: (checked) => checked >= committedAfter,
        stallMs: STALL_MS,
        everyMs: 250,
      })
      for (const f of ['duplicates', 'lost', 'abortedReads', 'stateMismatches'])
        expect(await numberIn(page, `correctness-${f}-value`), f).toBe(0)
      await goTo(page, 'transactions')
      const totals = (await page.getByTestId('txn-totals').textContent()) ?? ''
      expect(Number(/([\d,]+) committed/.exec(totals)?.[1]?.replace(/,/g, '') ?? 0), totals).toBeGreaterThan(0)
      // The transaction history counts what the dashboard counts, with the EndTxn
      // latencies the worker processes measured.
      type Counts = { count: number; endTxnMs: { count: number } }
      const s = await page.evaluate(
        async () =>
          (await (await fetch('/api/lab')).json()) as {
            txnTotals: { committed: number; aborted: number }
            txnStats?: { run: { outcomes: { committed: Counts; aborted: Counts } } }
          },
      )
      expect(s.txnStats!.run.outcomes.committed.count).toBe(s.txnTotals.committed)
      expect(s.txnStats!.run.outcomes.aborted.count).toBe(s.txnTotals.aborted)
      expect(s.txnStats!.run.outcomes.committed.endTxnMs.count).toBeGreaterThan(0)
      // The slot is refilled with a new process.
      await goTo(page, 'overview')
      await page
        .locator(`article.worker-card[data-testid="worker-${id}.2"][data-state="running"]`)
        .waitFor({ timeout: STATE_MS })
      expect(await pidOf(page, `${id}.2`)).not.toBe(pid)
    },
  )

  it(
    'Drop ack loses a real produce ack through the proxy: the idempotent retry is not appended again, 0 duplicates',
    TEST_BOUND,
    async () => {
      const lab = () =>
        page.evaluate(
          async () =>
            (await (await fetch('/api/lab')).json()) as {
              totals: { committedInput: number; droppedAcks: number }
              correctness: { inputChecked: number; duplicates: number | null } | null
            },
        )
      const before = (await lab()).totals.droppedAcks
      await goTo(page, 'overview')
      await page.getByTestId('drop-ack').click()
      await untilProgress({
        what: 'a produce ack dropped by the proxy',
        read: async () => (await lab()).totals.droppedAcks,
        done: (n) => n > before,
        stallMs: STALL_MS,
        everyMs: 250,
      })
      const committedAfter = (await lab()).totals.committedInput
      await untilProgress({
        what: `validator read past ${committedAfter} input records`,
        read: async () => (await lab()).correctness?.inputChecked ?? 0,
        done: (checked) => checked >= committedAfter,
        stallMs: STALL_MS,
        everyMs: 250,
      })
      expect((await lab()).correctness?.duplicates).toBe(0)
    },
  )

  it('Pause is SIGSTOP and Resume SIGCONT', TEST_BOUND, async () => {
    await goTo(page, 'overview')
    const id = await runningWorker(page)
    const pid = await pidOf(page, id)
    await page.getByTestId(`pause-${id}`).click()
    await page
      .locator(`article.worker-card[data-testid="worker-${id}"][data-state="paused"]`)
      .waitFor({ timeout: STATE_MS })
    await waitFor(() => processState(pid) === 'T', `process ${pid} stopped`, { boundMs: STATE_MS })
    await page.getByTestId(`resume-${id}`).click()
    await page
      .locator(`article.worker-card[data-testid="worker-${id}"]:not([data-state="paused"])`)
      .waitFor({ timeout: STATE_MS })
    await waitFor(() => processState(pid) !== 'T', `process ${pid} continued`, { boundMs: STATE_MS })
  })

  it(
    "the partitions table reads the cluster: held on one moment, the partition log's partition has the log's " +
      'LSO and HW',
    TEST_BOUND,
    async () => {
      await goTo(page, 'partitions')
      await page.getByTestId('partitions-table').scrollIntoViewIfNeeded()
      const roles = ['input', 'output', 'changelog']
      await untilProgress({
        what:
          "the partitions table to list 6 partitions of the input, output and changelog topics, and the group's " +
          '__consumer_offsets partition',
        read: () => shown(page),
        done: (s) =>
          roles.every((role) => s.rows.filter((r) => r.role === role).length === 6) &&
          s.rows.some((r) => r.role === 'offsets') &&
          s.log !== null,
        stallMs: STALL_MS,
        everyMs: 250,
      })
      await whilePaused(page, async () => {
        const held = await shown(page)
        const row = held.rows.find((r) => r.name === held.log!.name)
        expect(row, `a row for ${held.log!.name}`).toBeDefined()
        expect({ lso: row!.lso, hw: row!.hw }).toEqual({ lso: held.log!.lso, hw: held.log!.hw })
        for (const r of held.rows) expect(r.lso, r.name).toBeLessThanOrEqual(r.hw)
        // The cluster's own internal topics: the partition of __consumer_offsets that holds the group.
        expect(held.rows.filter((r) => r.role === 'offsets').length).toBe(1)
      })
    },
  )

  it(
    "a hanging transaction on the lab's output topic: the lab API lists it by find-hanging (KIP-664) and " +
      'aborts it (WriteTxnMarkers), after which LSO = HW',
    TEST_BOUND,
    async () => {
      type Lab = {
        partitions?: {
          topic: string
          partition: number
          role: string
          lastStableOffset: number
          highWatermark: number
        }[]
        transactionsView?: {
          hanging: number
          injectUnavailable: string | null
          producers: {
            role: string
            partition: number
            producerId: number
            verdict: string | null
            firstOffset: number | null
            transactionalId: string | null
          }[]
        }
      }
      const lab = () => page.evaluate(async () => (await (await fetch('/api/lab')).json()) as Lab)
      // From the test, not the page: the refusals it expects (400, 409) would be the page's console errors.
      const post = async (path: string, body: unknown) => {
        const r = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        return { status: r.status, body: (await r.json()) as { error?: string; message?: string } }
      }
      const output0 = (l: Lab) => l.partitions?.find((r) => r.role === 'output' && r.partition === 0)
      const first = await untilProgress({
        what: 'the Transactions view read from the cluster',
        read: lab,
        done: (l) => l.transactionsView !== undefined && output0(l) !== undefined,
        stallMs: STALL_MS,
        everyMs: 250,
      })
      // Kafka refuses the fault point (its brokers verify transactional writes): the
      // test makes the hanging transaction itself.
      expect(first.transactionsView!.injectUnavailable).toMatch(/transaction.partition.verification.enable/)
      expect((await post('/api/faults/hanging-transaction', { topic: 'output', partition: 0 })).status).toBe(400)
      // Input stopped, so that once the workers' transactions end, only the hanging one holds the LSO back.
      expect((await post('/api/lab/config', { inputRatePerSec: 0 })).status).toBe(200)
      try {
        const producerId = 800_000_000 + Math.floor(Math.random() * 1_000_000)
        await writeHangingTransaction(
          brokers.split(','),
          'eoscope-dashboard-kafka',
          { topic: output0(first)!.topic, partition: 0 },
          producerId,
        )
        const listed = await untilProgress({
          what: `find-hanging to list producer ${producerId} on output-0`,
          read: lab,
          done: (l) =>
            (l.transactionsView?.producers ?? []).some((p) => p.producerId === producerId && p.verdict === 'hanging'),
          stallMs: STALL_MS,
          everyMs: 250,
        })
        const hung = listed.transactionsView!.producers.find((p) => p.producerId === producerId)!
        expect(hung).toMatchObject({ role: 'output', partition: 0, transactionalId: null })
        await untilProgress({
          what: 'the LSO of output-0 to stop at the hanging transaction',
          read: lab,
          done: (l) =>
            output0(l)!.lastStableOffset === hung.firstOffset && output0(l)!.highWatermark > hung.firstOffset!,
          stallMs: STALL_MS,
          everyMs: 250,
        })
        const aborted = await post('/api/transactions/abort-hanging', { topic: 'output', partition: 0, producerId })
        expect(aborted.status, aborted.body.error).toBe(200)
        expect(aborted.body.message).toContain(`producer ${producerId}`)
        await untilProgress({
          what: 'LSO = HW on output-0 after the abort',
          read: lab,
          done: (l) => output0(l)!.lastStableOffset === output0(l)!.highWatermark && l.transactionsView!.hanging === 0,
          stallMs: STALL_MS,
          everyMs: 250,
        })
        // Not hanging any more: a second abort is refused and writes nothing.
        expect(
          (await post('/api/transactions/abort-hanging', { topic: 'output', partition: 0, producerId })).status,
        ).toBe(409)
      } finally {
        // Input again, whatever happened: the next tests need records flowing.
        expect((await post('/api/lab/config', { inputRatePerSec: 500 })).status).toBe(200)
      }
    },
  )

  it(
    'the Transactions view lists an open transaction Ongoing at its coordinator (ListTransactions, ' +
      'DescribeTransactions) and, after its worker is killed at step 4, that transactional id aborted',
    TEST_BOUND,
    async () => {
      await goTo(page, 'transactions')
      const view = page.getByTestId('transactions-view')
      await view.scrollIntoViewIfNeeded()
      // A worker whose tasks' transactional ids are Ongoing at the coordinator, as the view shows them.
      const chosen = await untilProgress({
        what: 'a running worker with a transaction Ongoing at its coordinator',
        read: async () => {
          const rows = await txnIdRows(page)
          return (
            (await labSnapshot(page)).workers.find(
              (w) => w.state === 'running' && rowsOfTasks(rows, w.taskIds).some((r) => r.state === 'Ongoing'),
            ) ?? null
          )
        },
        done: (w) => w !== null,
        stallMs: STALL_MS,
        everyMs: 250,
      })
      const worker = chosen!
      const open = page.locator('[data-testid="producer-state-row"][data-verdict="ongoing"]')
      await open.first().waitFor({ timeout: STATE_MS })
      expect(offsetIn(await open.first().getByTestId('producer-first-offset').textContent())).toBeGreaterThanOrEqual(0)
      const t0 = (await labSnapshot(page)).atMs
      // Killed at step 4 (produced, no ack yet) its transaction is open; the new owners' initTransactions abort it.
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
      await untilProgress({
        what: `a transactional id of ${worker.id}'s tasks shown aborted after ${t0}`,
        read: async () => rowsOfTasks(await txnIdRows(page), worker.taskIds),
        done: (rows) => rows.some((r) => r.state === 'CompleteAbort' || (r.abortAt !== null && r.abortAt >= t0)),
        stallMs: STALL_MS,
        everyMs: 250,
      })
      await view.screenshot({ path: path.join(SHOTS, 'kafka-transactions-view.png') })
    },
  )

  it(
    'the group view: its members are the running worker processes, and the generation moves after a kill',
    TEST_BOUND,
    async () => {
      await goTo(page, 'recovery')
      await page.getByTestId('group-view').scrollIntoViewIfNeeded()
      // The generation comes from the members' own reports (DescribeGroups has none): shown once they agree.
      const before = await untilProgress({
        what: 'the group view to show a Stable generation with one member per running worker',
        read: () => shownGroup(page),
        done: (g) =>
          g.state === 'Stable' &&
          g.generation !== null &&
          g.running.length > 0 &&
          g.members.length === g.running.length &&
          g.running.every((w) => g.members.some((m) => m.worker === w)),
        stallMs: STALL_MS,
        everyMs: 250,
      }).catch((e: unknown) => {
        // A worker shown running but outside the group: what its process and the server said is the diagnosis.
        throw new Error(
          `${e instanceof Error ? e.message : e}\nserver log (last lines):\n` +
            `${server.output().split('\n').slice(-80).join('\n')}`,
        )
      })
      expect(before.members.flatMap((m) => m.partitions.split(',')).sort()).toEqual(['0', '1', '2', '3', '4', '5'])
      const n = before.generation!
      const id = await runningWorker(page)
      const victim = before.members.find((m) => m.worker === id)!
      await page.getByTestId(`kill-${id}`).click()
      const next = (g: ShownGroup) =>
        g.generations.find((x) => x.generation !== null && x.generation > n && !x.members.includes(victim.member))
      const after = await untilProgress({
        what: `a generation after ${n} without ${victim.member}`,
        read: () => shownGroup(page),
        done: (g) => next(g) !== undefined && g.generation! > n,
        stallMs: STALL_MS,
        everyMs: 250,
      }).catch(async (e: unknown) => {
        // The kill's fate (still pending, refused with a reason, or done) is on the
        // victim's card and in the server's log.
        const card = await page.getByTestId(`worker-${id}`).evaluate((el) => ({
          state: el.getAttribute('data-state'),
          killPending: el.querySelector('button.danger')?.hasAttribute('disabled') ?? null,
          text: el.textContent,
        }))
        throw new Error(
          `${e instanceof Error ? e.message : e}\nthe victim's card: ${JSON.stringify(card)}\nserver log (last ` +
            `lines):\n${server.output().split('\n').slice(-80).join('\n')}`,
        )
      })
      expect(next(after)!.partitions).toBe('0,1,2,3,4,5')
      expect(after.generations.some((x) => x.members.includes(victim.member) && x.end.includes(`${id} killed`))).toBe(
        true,
      )
      await page.getByTestId('group-view').screenshot({ path: path.join(SHOTS, 'kafka-group-view.png') })
    },
  )

  it('at_least_once: a kill at step 4 makes duplicates appear, none lost', TEST_BOUND, async () => {
    await goTo(page, 'overview')
    await page.getByTestId('guarantee-at_least_once').click()
    await page.locator('[data-testid="stat-guarantee"]', { hasText: 'at_least_once' }).waitFor({ timeout: STATE_MS })
    const id = await runningWorker(page)
    const status = await page.evaluate(
      async (workerId) =>
        (
          await fetch(`/api/workers/${encodeURIComponent(workerId)}/kill`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ step: 4 }),
          })
        ).status,
      id,
    )
    expect(status).toBe(200)
    await page
      .locator(`article.worker-card[data-testid="worker-${id}"][data-state="killed"]`)
      .waitFor({ timeout: STATE_MS })
    await waitForNumber(page, 'correctness-duplicates-value', (n) => n > 0, STATE_MS + STALL_MS)
    expect(await numberIn(page, 'correctness-lost-value')).toBe(0)
  })

  it(
    'opens both copies of a duplicate in the message browser from a duplicate-ledger row, read from the cluster',
    TEST_BOUND,
    async () => {
      const copies = await openFromLedger(page)
      const both = async () =>
        (await shownRows(page)).filter((r) => r.offset === copies.first || r.offset === copies.copy)
      const rows = await untilProgress({
        what: `output-${copies.partition} offsets ${copies.first} and ${copies.copy} in the message browser`,
        read: both,
        done: (r) => r.length === 2,
        stallMs: STALL_MS,
        everyMs: 250,
      })
      // Both visible to read_committed (at_least_once writes no transaction), each marked as the other's copy.
      for (const r of rows) expect(r).toMatchObject({ state: 'non-transactional', rc: 'true', ru: 'true', copy: true })
      // Only the copies of that input record are listed, whatever else its key wrote between them.
      expect((await shownRows(page)).every((r) => r.copy)).toBe(true)
      expect(await page.getByTestId('msg-summary').textContent()).toContain(`output-${copies.partition}`)
      await page
        .getByTestId('message-browser')
        .screenshot({ path: path.join(SHOTS, 'kafka-message-browser-duplicate.png') })
    },
  )

  it(
    'runs a guided scenario on the Kafka lab from its button: every expectation holds, the lab runs on with ' +
      'the settings from before it, its evidence card opens the partition log on the records it names',
    TEST_BOUND,
    async () => {
      await goTo(page, 'scenarios')
      await expect
        .poll(() => page.locator('[data-testid^="run-scenario-"]').count(), { timeout: 10_000 })
        .toBe(SCENARIOS.length)
      expect(await page.getByTestId('unavailable-scenarios').count()).toBe(0)
      const before = await labNow(page)
      const appBefore = await page.getByTestId('application-id').textContent()
      const name = 'crash-before-commit-eos'
      // A scenario's lab is a fresh application of worker processes; a recovery waits a session timeout.
      await runScenarioToEnd(page, name, { everyMs: 500, stallMs: STALL_MS })
      // The lab on screen is the scenario's last application, running on with the settings from before it.
      expect(await page.getByTestId('application-id').textContent()).not.toBe(appBefore)
      await labRunsOn(page, name, { endedAt: Date.now(), everyMs: 250, stallMs: STALL_MS })
      const after = await labNow(page)
      for (const k of ['processing.guarantee', 'commit.interval.ms', 'enable.idempotence'] as const)
        expect(after.config[k], k).toEqual(before.config[k])
      expect(after.workers.length).toBe(before.workers.length)
      // Its evidence card opens the partition log, read from the cluster, on the partition and offsets its link names.
      await openEvidence(page, name, {
        boundMs: STATE_MS,
        named: (shown, topic, partition) => shown.endsWith(`-${topic}-${partition}`),
      })
      await goTo(page, 'scenarios')
      await page.getByTestId('scenarios').screenshot({ path: path.join(SHOTS, 'kafka-scenario-verdict.png') })
    },
  )

  it('logs no console errors', () => {
    expect(consoleErrors).toEqual([])
  })
})
