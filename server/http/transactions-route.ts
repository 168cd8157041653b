// GET /api/lab/transactions: the transaction history's rows a filter selects, with its statistics
// and the window the rows cover, as JSON or as a CSV download (the window in its file name and in
// the X-Eoscope-Window header).
//
// Bounded: JSON is a page of the newest TXN_PAGE_DEFAULT matching rows unless `limit` asks for up
// to TXN_PAGE_MAX (older rows: untilMs set to the oldest row's endMs); the CSV export holds every
// matching row the history keeps (at most its capacity, TXN_CSV_MAX) and is streamed, a chunk of
// rows at a time as the client takes them, never built as one string. X-Eoscope-Matched says how
// many rows matched, X-Eoscope-Limit how many the answer could hold.

import type { ServerResponse } from 'node:http'
import type { LabController } from '../lab/lab-controller.ts'
import { HISTORY_ABORT_ROWS, HISTORY_ROWS } from '../lab/transaction-history.ts'
import { CSV_COLUMNS, csvField, exportFileName, parseTxnHistoryQuery } from '../lab/transaction-history-export.ts'
import type { TxnRow } from '../lab/txn-columns.ts'
import { HttpError, sendJson } from './json-body.ts'

/** Rows of a JSON page by default, and at most (about 300 bytes a row). */
export const TXN_PAGE_DEFAULT = 500
export const TXN_PAGE_MAX = 5_000
/** Rows of a CSV export by default and at most: everything the history keeps. */
export const TXN_CSV_MAX = HISTORY_ROWS + HISTORY_ABORT_ROWS
/** Rows written per chunk of the CSV; the event loop runs between chunks. */
export const CSV_CHUNK_ROWS = 1_000

const csvLine = (r: TxnRow) => `${CSV_COLUMNS.map((c) => csvField(r[c])).join(',')}\r\n`

/** Writes the rows as CSV (header first, CRLF line ends), a chunk at a time, waiting while the client is behind. */
async function streamCsv(res: ServerResponse, rows: readonly TxnRow[]): Promise<void> {
  const wait = () =>
    new Promise<void>((resolve) => {
      res.once('drain', resolve)
      res.once('close', resolve)
    })
  if (!res.write(`${CSV_COLUMNS.join(',')}\r\n`)) await wait()
  for (let i = 0; i < rows.length && !res.destroyed; i += CSV_CHUNK_ROWS) {
    let text = ''
    for (const r of rows.slice(i, i + CSV_CHUNK_ROWS)) text += csvLine(r)
    if (!res.write(text)) await wait()
    else await new Promise<void>((resolve) => setImmediate(resolve))
  }
  if (!res.destroyed) res.end()
}

export function sendTransactionHistory(lab: LabController, res: ServerResponse, params: URLSearchParams): void {
  const q = parseTxnHistoryQuery(params)
  if (!q.ok) throw new HttpError(400, q.error)
  const max = q.format === 'json' ? TXN_PAGE_MAX : TXN_CSV_MAX
  if (q.filter.limit !== null && q.filter.limit > max)
    throw new HttpError(
      400,
      q.format === 'json'
        ? `limit must be from 1 to ${TXN_PAGE_MAX} for JSON (older rows: set untilMs); ` +
            `format=csv exports up to ${TXN_CSV_MAX}`
        : `limit must be from 1 to ${TXN_CSV_MAX} for CSV (all the history keeps)`,
    )
  if (!lab.transactionHistory) throw new HttpError(404, 'this lab keeps no transaction history')
  const limit = q.filter.limit ?? (q.format === 'json' ? TXN_PAGE_DEFAULT : TXN_CSV_MAX)
  const page = lab.transactionHistory({ ...q.filter, limit })
  const headers = {
    'x-eoscope-window': page.window.text,
    'x-eoscope-matched': String(page.matched),
    'x-eoscope-limit': String(limit),
  }
  if (q.format === 'json') {
    sendJson(res, 200, page, headers)
    return
  }
  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
    'content-disposition': `attachment; filename="${exportFileName(page, 'csv')}"`,
  })
  if (res.req?.method === 'HEAD') {
    res.end()
    return
  }
  streamCsv(res, page.rows).catch(() => res.destroy())
}
