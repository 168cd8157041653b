// The steps of a guided scenario run from the dashboard, the same on either backend: run it from its
// button until it ends, wait until the lab it leaves runs on, open its evidence card's link. Every
// wait is on progress (the narrative, the committed input), failing only once nothing has moved for
// `stallMs` (on Kafka a recovery first waits out a session timeout).

import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'
import { goTo } from './page-helpers.ts'
import { untilProgress, waitFor } from './progress.ts'

export interface LabNow {
  config: Record<string, unknown>
  workers: { id: string; state: string }[]
  totals: { committedInput: number; inputRecords: number }
  evidence?: { id: string; links: { topic: string; partition: number; fromOffset: number; toOffset: number }[] }[]
}

export function labNow(page: Page): Promise<LabNow> {
  return page.evaluate(async () => (await (await fetch('/api/lab')).json()) as LabNow)
}

export function scenarioView(page: Page, name: string): Locator {
  return page.locator(`[data-testid="scenario-view"][data-name="${name}"]`)
}

/** Waits until the scenario shown ends; fails unless it passed with every expectation holding. */
export async function scenarioEnds(
  page: Page,
  name: string,
  o: { everyMs: number; stallMs: number },
): Promise<Locator> {
  const view = scenarioView(page, name)
  await view.waitFor({ timeout: 10_000 })
  await untilProgress({
    what: `scenario ${name} to end`,
    read: async () => ({
      status: await view.getAttribute('data-status'),
      said: await view.getByTestId('scenario-narrative').locator('li').count(),
      committed: (await labNow(page)).totals.committedInput,
    }),
    done: (v) => v.status !== 'running',
    stallMs: o.stallMs,
    everyMs: o.everyMs,
  })
  expect(await view.getAttribute('data-status'), `scenario ${name}: ${(await view.textContent()) ?? ''}`).toBe('passed')
  expect(await view.getByTestId('scenario-expectation').count()).toBeGreaterThan(0)
  expect(await view.locator('[data-testid="scenario-expectation"][data-holds="false"]').count()).toBe(0)
  return view
}

/** Runs a scenario from its Run button until it ends, passed. */
export async function runScenarioToEnd(
  page: Page,
  name: string,
  o: { everyMs: number; stallMs: number },
): Promise<Locator> {
  await goTo(page, 'scenarios')
  await page.getByTestId(`run-scenario-${name}`).click()
  return scenarioEnds(page, name, o)
}

/**
 * After a scenario ended: every worker running, and the lab taking input and committing past where
 * it stood at the end. Answers how long that took from `endedAt` (Date.now()).
 */
export async function labRunsOn(
  page: Page,
  name: string,
  o: { endedAt: number; everyMs: number; stallMs: number },
): Promise<number> {
  const atEnd = await labNow(page)
  await untilProgress({
    what: `the lab after ${name} to run every worker and commit past ${atEnd.totals.committedInput}`,
    read: () => labNow(page),
    done: (lab) =>
      lab.workers.length > 0 &&
      lab.workers.every((w) => w.state === 'running') &&
      lab.totals.committedInput > atEnd.totals.committedInput &&
      lab.totals.inputRecords > atEnd.totals.inputRecords,
    stallMs: o.stallMs,
    everyMs: o.everyMs,
  })
  return Date.now() - o.endedAt
}

export interface EvidenceLinkShown {
  topic: string
  partition: string
  from: string
  to: string
}

/**
 * Clicks the first link of the scenario's evidence card (passed) and waits until the partition log
 * shows that partition from the link's first offset. `named(topic, partition)`: whether the log's
 * partition name is that one (on Kafka the lab's topics carry the application's prefix).
 */
export async function openEvidence(
  page: Page,
  name: string,
  o: { boundMs: number; named: (shown: string, topic: string, partition: string) => boolean },
): Promise<EvidenceLinkShown> {
  await goTo(page, 'scenarios')
  const card = page.locator(`[data-testid="evidence-card"][data-id="${name}-1"]`)
  await card.waitFor({ timeout: 10_000 })
  expect(await card.getAttribute('data-status')).toBe('passed')
  const link = card.getByTestId('evidence-link').first()
  const [topic, partition, from, to] = await Promise.all(
    ['data-topic', 'data-partition', 'data-from', 'data-to'].map(async (a) => (await link.getAttribute(a)) ?? ''),
  )
  await link.click()
  const grid = page.getByTestId('log-grid')
  await waitFor(
    async () =>
      (await grid.getAttribute('data-window')) === 'at' &&
      (await grid.getAttribute('data-from')) === from &&
      o.named((await page.getByTestId('log-partition-name').textContent()) ?? '', topic!, partition!),
    `the partition log to open on ${topic}-${partition} from ${from}`,
    { boundMs: o.boundMs },
  )
  await waitFor(
    async () => Number(await grid.getByTestId('log-cell').first().getAttribute('data-offset')) === Number(from),
    `the partition log's first cell at offset ${from}`,
    { boundMs: o.boundMs },
  )
  return { topic: topic!, partition: partition!, from: from!, to: to! }
}
