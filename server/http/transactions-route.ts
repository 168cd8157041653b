// GET /api/lab/transactions: the transaction history's rows a filter selects, with its statistics
// and the window the rows cover, as JSON or as a CSV download (the window in its file name and in
// the X-Eoscope-Window header).

import type { ServerResponse } from 'node:http'
import type { LabController } from '../lab/lab-controller.ts'
import { exportFileName, parseTxnHistoryQuery, toCsv } from '../lab/transaction-history-export.ts'
import { HttpError, send, sendJson } from './json-body.ts'

export function sendTransactionHistory(lab: LabController, res: ServerResponse, params: URLSearchParams): void {
  const q = parseTxnHistoryQuery(params)
  if (!q.ok) throw new HttpError(400, q.error)
  if (!lab.transactionHistory) throw new HttpError(404, 'this lab keeps no transaction history')
  const page = lab.transactionHistory(q.filter)
  const headers = { 'x-eoscope-window': page.window.text }
  if (q.format === 'json') {
    sendJson(res, 200, page, headers)
    return
  }
  send(res, 200, toCsv(page.rows), 'text/csv; charset=utf-8', {
    ...headers,
    'content-disposition': `attachment; filename="${exportFileName(page, 'csv')}"`,
  })
}
