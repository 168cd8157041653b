// What the partitions table and the partition log view show, read from one rendered snapshot in
// the page: shared by the embedded and the Kafka browser tests.

import type { Page } from 'playwright-core'

export interface ShownRow {
  name: string
  role: string
  lso: number
  hw: number
  open: string
}

/** The table's rows and the partition log's figures, read from one rendered snapshot. */
export function shown(
  page: Page,
): Promise<{ rows: ShownRow[]; log: { name: string; lso: number; hw: number } | null }> {
  return page.evaluate(() => {
    const num = (el: Element | null) => Number((el?.textContent ?? '').replace(/,/g, ''))
    const rows = [...document.querySelectorAll('[data-testid="partition-row"]')].map((tr) => ({
      name: `${tr.getAttribute('data-topic')}-${tr.getAttribute('data-partition')}`,
      role: tr.getAttribute('data-role') ?? '',
      lso: num(tr.querySelector('[data-testid="pt-lso"]')),
      hw: num(tr.querySelector('[data-testid="pt-hw"]')),
      open: tr.querySelector('[data-testid="pt-open"]')?.textContent ?? '',
    }))
    const name = document.querySelector('[data-testid="log-partition-name"]')?.textContent?.trim()
    const log = name
      ? {
          name,
          lso: num(document.querySelector('[data-testid="log-figure-lso"]')),
          hw: num(document.querySelector('[data-testid="log-figure-hw"]')),
        }
      : null
    return { rows, log }
  })
}
