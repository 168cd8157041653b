// The message browser driven in Chromium: opened from the form on an aborted record (read_committed
// and read_uncommitted differ), and from a duplicate-ledger row (both copies, at their offsets).

import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import type { MessagePage } from '../lib/message-browser.ts'
import { goTo, STATE_MS } from './page-helpers.ts'

/**
 * An aborted data record of the output topic: the journal names the aborted transactions'
 * partitions and when they began; the API is searched there, over the records of the seconds before.
 */
export async function findAbortedOutput(page: Page): Promise<{ partition: number; offset: number } | null> {
  return page.evaluate(async () => {
    const get = async <T>(url: string) => (await (await fetch(url)).json()) as T
    const output = (await get<MessagePage>('/api/lab/messages?topic=output&limit=1')).topic
    const journal = await get<{
      entries: {
        fact: { kind: string; outcome?: string; partitions?: string[]; outputRecords?: number; beginMs?: number }
      }[]
    }>('/api/lab/journal?category=transactions&limit=2000')
    const aborted = journal.entries
      .map((e) => e.fact)
      .filter((f) => f.kind === 'txn' && f.outcome === 'aborted' && (f.outputRecords ?? 0) > 0)
    for (const txn of aborted) {
      for (const name of txn.partitions ?? []) {
        const m = /^(.*)-(\d+)$/.exec(name)
        if (!m || m[1] !== output) continue
        let from: number | null = 0
        while (from !== null) {
          const sinceMs = Math.floor(txn.beginMs! - 10_000)
          const body: MessagePage = await get(
            `/api/lab/messages?topic=output&partition=${m[2]}&from=${from}&sinceMs=${sinceMs}&limit=500`,
          )
          const hit = body.records.find((x) => x.state === 'aborted' && x.control === null)
          if (hit) return { partition: Number(m[2]), offset: hit.offset }
          from = body.nextOffset
        }
      }
    }
    return null
  })
}

/** Reads [offset, offset + 2) of an output partition from the panel's form. */
export async function readFromForm(page: Page, partition: number, offset: number): Promise<void> {
  await goTo(page, 'partitions')
  const panel = page.getByTestId('message-browser')
  await panel.scrollIntoViewIfNeeded()
  await panel.getByTestId('msg-topic').selectOption('output')
  await panel.getByTestId('msg-partition').selectOption(String(partition))
  await panel.getByTestId('msg-from').fill(String(offset))
  await panel.getByTestId('msg-to').fill(String(offset + 2))
  await panel.getByTestId('msg-read').click()
  await expect
    .poll(() => page.evaluate(() => window.location.search), { timeout: STATE_MS })
    .toContain(`msg.from=${offset}`)
}

/** The rows the panel shows: offset, state and what each isolation level is given. */
export function shownRows(
  page: Page,
): Promise<{ offset: number; state: string; rc: string; ru: string; copy: boolean }[]> {
  return page
    .getByTestId('message-browser')
    .getByTestId('msg-row')
    .evaluateAll((rows) =>
      rows.map((r) => ({
        offset: Number(r.getAttribute('data-offset')),
        state: r.getAttribute('data-state')!,
        rc: r.getAttribute('data-rc')!,
        ru: r.getAttribute('data-ru')!,
        copy: r.classList.contains('msg-dup'),
      })),
    )
}

/** Opens the browser from the first ledger row's copies link; returns the copies' offsets it names. */
export async function openFromLedger(page: Page): Promise<{ partition: number; first: number; copy: number }> {
  await goTo(page, 'partitions')
  const link = page.getByTestId('duplicate-ledger').getByTestId('ledger-messages').first()
  await link.waitFor({ timeout: STATE_MS })
  // Read and clicked in one turn of the page: the ledger re-renders as new duplicates arrive, and a
  // link read, then clicked a moment later, could be a newer duplicate's (seen on a busy machine).
  const text = await link.evaluate((el) => {
    const said = el.textContent ?? ''
    ;(el as HTMLElement).click()
    return said
  })
  const m = /^out-(\d+) @ (\d+), (\d+)$/.exec(text.trim())
  expect(m, 'the link names the output partition and both offsets').not.toBeNull()
  return { partition: Number(m![1]), first: Number(m![2]), copy: Number(m![3]) }
}
