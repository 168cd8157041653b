// GET /api/lab/transactions: its query string checked with zod (a bad parameter is refused with
// what was expected, never guessed at), and the page written as JSON or CSV.

import { z } from 'zod'
import { TXN_HISTORY_OUTCOMES, type TxnHistoryOutcome } from '../../lib/txn-statistics.ts'
import type { TxnRow } from './txn-columns.ts'
import type { TxnHistoryFilter, TxnHistoryPage } from './transaction-history.ts'

export type TxnHistoryFormat = 'json' | 'csv'

const MAX_INSTANT = 8_640_000_000_000_000
const instant = (name: string) =>
  z
    .string()
    .regex(/^\d{1,16}$/, `${name} must be a whole number of milliseconds since the epoch`)
    .transform(Number)
    .pipe(z.number().max(MAX_INSTANT, `${name} is beyond any date`))

const QUERY = z
  .object({
    outcome: z
      .string()
      .transform((s) => s.split(','))
      .pipe(
        z.array(
          z.enum(TXN_HISTORY_OUTCOMES as [TxnHistoryOutcome, ...TxnHistoryOutcome[]], {
            message: `outcome must be ${TXN_HISTORY_OUTCOMES.join(', ')} (comma-separated)`,
          }),
        ),
      )
      .optional(),
    transactionalId: z
      .string()
      .min(1, 'transactionalId must not be empty')
      .max(256, 'transactionalId is at most 256 characters')
      .optional(),
    sinceMs: instant('sinceMs').optional(),
    untilMs: instant('untilMs').optional(),
    minDurationMs: z
      .string()
      .regex(/^\d{1,9}(\.\d{1,3})?$/, 'minDurationMs must be a number of milliseconds ≥ 0 (e.g. 150 or 12.5)')
      .transform(Number)
      .optional(),
    limit: z
      .string()
      .regex(/^[1-9]\d{0,5}$/, 'limit must be a whole number from 1 to 999999')
      .transform(Number)
      .optional(),
    format: z.enum(['json', 'csv'], { message: 'format must be json or csv' }).optional(),
  })
  .strict()
  .refine((q) => q.sinceMs === undefined || q.untilMs === undefined || q.sinceMs <= q.untilMs, {
    message: 'sinceMs must not be after untilMs',
  })

type Parsed = { ok: true; filter: TxnHistoryFilter; format: TxnHistoryFormat } | { ok: false; error: string }

/** ?outcome=committed,aborted,teardown&transactionalId=&sinceMs=&untilMs=&minDurationMs=&limit=&format=json|csv */
export function parseTxnHistoryQuery(params: URLSearchParams): Parsed {
  const raw: Record<string, string> = {}
  for (const [k, v] of params) {
    if (k in raw) return { ok: false, error: `parameter ${JSON.stringify(k.slice(0, 40))} is given twice` }
    raw[k] = v
  }
  const r = QUERY.safeParse(raw)
  if (!r.success) {
    const issue = r.error.issues[0]!
    const unknown =
      issue.code === 'unrecognized_keys'
        ? `unknown parameter ${JSON.stringify(String(issue.keys[0]).slice(0, 40))}: use outcome, ` +
          `transactionalId, sinceMs, untilMs, minDurationMs, limit and format`
        : null
    return { ok: false, error: unknown ?? issue.message }
  }
  const q = r.data
  return {
    ok: true,
    format: q.format ?? 'json',
    filter: {
      outcomes: q.outcome ?? null,
      transactionalId: q.transactionalId ?? null,
      sinceMs: q.sinceMs ?? null,
      untilMs: q.untilMs ?? null,
      minDurationMs: q.minDurationMs ?? null,
      limit: q.limit ?? null,
    },
  }
}

export const CSV_COLUMNS: readonly (keyof TxnRow)[] = [
  'endMs',
  'beginMs',
  'durationMs',
  'outcome',
  'cause',
  'transactionalId',
  'workerId',
  'producerId',
  'epoch',
  'partitions',
  'outputRecords',
  'changelogRecords',
  'offsetsCommitted',
  'endTxnMs',
  'sendOffsetsMs',
]

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled.
 * A text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading '.
 */
export function csvField(v: string | number | null): string {
  if (v === null) return ''
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000)
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** The rows as CSV, a header line first; lines end with CRLF. */
export function toCsv(rows: readonly TxnRow[]): string {
  const lines = [CSV_COLUMNS.join(',')]
  for (const r of rows) lines.push(CSV_COLUMNS.map((c) => csvField(r[c])).join(','))
  return `${lines.join('\r\n')}\r\n`
}

/** The download's file name, with the window its rows cover. */
export function exportFileName(page: TxnHistoryPage, format: TxnHistoryFormat): string {
  const stamp = (ms: number | null) => (ms === null ? 'none' : new Date(ms).toISOString().replace(/[:.]/g, '-'))
  const rows = page.rows
  return `eoscope-transactions_${stamp(rows[0]?.endMs ?? null)}_to_${stamp(rows.at(-1)?.endMs ?? null)}.${format}`
}
