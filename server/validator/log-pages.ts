// Reading a partition's stored records a page at a time: the validators and the dump never hold a
// whole log.

import type { LogInspector, StoredRecordView, TopicPartition } from '../log/types.ts'

/** Records per readRaw call unless the caller says otherwise. */
export const DEFAULT_PAGE_SIZE = 5_000

/** Feeds every stored record of a partition in [from, to) to visit, a page at a time in offset order. */
export async function forEachPage(
  inspector: LogInspector,
  tp: TopicPartition,
  from: number,
  to: number,
  pageSize: number,
  visit: (page: StoredRecordView[]) => void | Promise<void>,
): Promise<void> {
  let next = from
  while (next < to) {
    const page = await inspector.readRaw(tp, next, to, pageSize)
    if (page.length === 0) break
    await visit(page)
    next = page[page.length - 1]!.offset + 1
  }
}

/** Feeds every stored record of a partition in [from, to) to visit, in offset order, a page at a time. */
export async function forEachRecord(
  inspector: LogInspector,
  tp: TopicPartition,
  from: number,
  to: number,
  pageSize: number,
  visit: (r: StoredRecordView) => void,
): Promise<void> {
  await forEachPage(inspector, tp, from, to, pageSize, (page) => {
    for (const r of page) visit(r)
  })
}
