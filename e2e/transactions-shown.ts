// The Transactions view as Chromium renders it, read the same way on both backends: its
// transactional-id rows (coordinator state, the last abort the lab saw) and the lab's workers.

import type { Page } from 'playwright-core'

/** An offset as the view shows it (1,234). */
export const offsetIn = (text: string | null) => Number((text ?? '').replace(/,/g, ''))

export interface TxnIdShown {
  id: string
  state: string
  abortAt: number | null
}

/** The Transactions view's transactional-id rows as rendered. */
export function txnIdRows(page: Page): Promise<TxnIdShown[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="txn-id-row"]')].map((tr) => ({
      id: tr.getAttribute('data-transactional-id') ?? '',
      state: tr.getAttribute('data-state') ?? '',
      abortAt: tr.getAttribute('data-last-abort-at') ? Number(tr.getAttribute('data-last-abort-at')) : null,
    })),
  )
}

export interface LabWorkersShown {
  atMs: number
  workers: { id: string; state: string; taskIds: string[] }[]
}

export function labSnapshot(page: Page): Promise<LabWorkersShown> {
  return page.evaluate(async () => (await (await fetch('/api/lab')).json()) as LabWorkersShown)
}

/** The rows of a worker's tasks: under exactly_once each task has its transactional id, <application.id>-<task>. */
export function rowsOfTasks(rows: readonly TxnIdShown[], taskIds: readonly string[]): TxnIdShown[] {
  return rows.filter((r) => taskIds.some((t) => r.id.endsWith(`-${t}`)))
}
