// The message browser's query and page, as the REST API and the dashboard share them: which
// records of which lab topic, and every stored record of the range as read_committed and
// read_uncommitted consumers each see it, with its producer fields and provenance.

import { z } from 'zod'
import { LAB_ID_PATTERN } from './evidence.ts'
import type { DuplicateLedgerEntry } from './lab-protocol.ts'
import type { LabTopicRole } from './log-range.ts'

/** Records returned at most per page, and by default. */
export const MESSAGE_PAGE_MAX = 500
export const MESSAGE_PAGE_DEFAULT = 100
/** Stored records examined at most per request (key and time filters skip most of them). */
export const MESSAGE_SCAN_MAX = 5_000

const TOPICS = ['input', 'output', 'changelog'] as const satisfies readonly LabTopicRole[]

const whole = (name: string) =>
  z
    .string()
    .regex(/^\d{1,16}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n), `${name} is too large`)

/** The query string of GET /api/lab/messages: every parameter a string, each checked. */
export const MessageQuerySchema = z
  .object({
    topic: z.enum(TOPICS, { error: `topic must be one of ${TOPICS.join(', ')}` }),
    partition: whole('partition').default(0),
    from: whole('from').optional(),
    to: whole('to').optional(),
    key: z.string().min(1, 'key must not be empty').max(256, 'key must be at most 256 characters').optional(),
    /** Only the records made from this input record, PARTITION@OFFSET (a duplicate's copies). */
    source: z
      .string()
      .regex(/^\d{1,9}@\d{1,16}$/, 'source must be PARTITION@OFFSET of an input record, as 2@944')
      .transform((v) => ({ partition: Number(v.split('@')[0]), offset: Number(v.split('@')[1]) }))
      .optional(),
    sinceMs: whole('sinceMs').optional(),
    untilMs: whole('untilMs').optional(),
    limit: whole('limit')
      .refine((n) => n >= 1 && n <= MESSAGE_PAGE_MAX, `limit must be from 1 to ${MESSAGE_PAGE_MAX}`)
      .default(MESSAGE_PAGE_DEFAULT),
    /**
     * The lab whose records are asked for (an evidence card's link names it): refused with 410 unless
     * it is the running lab, whose offsets name other records. Absent: the running lab.
     */
    lab: z.string().regex(LAB_ID_PATTERN, 'lab must be a lab id, as 1a2b3c-4').optional(),
  })
  .strict()
  .refine((q) => q.from === undefined || q.to === undefined || q.from < q.to, {
    error: 'from must be below to (the range is [from, to), to excluded)',
  })
  .refine((q) => q.sinceMs === undefined || q.untilMs === undefined || q.sinceMs < q.untilMs, {
    error: 'sinceMs must be below untilMs',
  })

export type MessageQuery = z.output<typeof MessageQuerySchema>

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string }

/** Parses a query string's parameters; a repeated or unknown parameter is refused, never guessed at. */
export function parseMessageQuery(params: URLSearchParams): Parsed<MessageQuery> {
  const raw: Record<string, string> = {}
  for (const [k, v] of params) {
    if (k in raw) return { ok: false, error: `parameter ${JSON.stringify(k.slice(0, 40))} is given twice` }
    raw[k] = v
  }
  const r = MessageQuerySchema.safeParse(raw)
  if (r.success) return { ok: true, value: r.data }
  const issue = r.error.issues[0]!
  if (issue.code === 'unrecognized_keys')
    return {
      ok: false,
      error:
        `unknown parameter ${JSON.stringify(String(issue.keys[0]).slice(0, 40))}: use topic, partition, from, ` +
        `to, key, source, sinceMs, untilMs, limit and lab`,
    }
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
  return { ok: false, error: `invalid message query: ${where}${issue.message}` }
}

/** What a stored record is, for the transaction it belongs to. */
export type MessageState = 'committed' | 'aborted' | 'pending' | 'non-transactional' | 'control'

/** The input record an output or changelog record came from (its value's provenance). */
export interface MessageSource {
  topic: 'input'
  partition: number
  offset: number
}

export interface MessageRow {
  offset: number
  timestamp: number
  key: string | null
  value: string | null
  headers: Record<string, string>
  producerId: number
  producerEpoch: number
  sequence: number
  transactional: boolean
  /** A COMMIT or ABORT marker (no key, no value; no consumer is given it). */
  control: 'COMMIT' | 'ABORT' | null
  state: MessageState
  /** At or above the last stable offset: a read_committed consumer has not reached it yet. */
  aboveLso: boolean
  /** Whether a consumer at each isolation level is given this record. */
  readCommitted: boolean
  readUncommitted: boolean
  source: MessageSource | null
  /** Other offsets on this page whose record came from the same input record (duplicates). */
  sameSourceAs: number[]
}

export interface MessagePage {
  topic: string
  role: LabTopicRole
  partition: number
  partitions: number
  logStartOffset: number
  lastStableOffset: number
  highWatermark: number
  /** The range examined: [from, scannedTo). */
  from: number
  scannedTo: number
  /** Where the next page starts (the same filters), or null when the range is done. */
  nextOffset: number | null
  records: MessageRow[]
}

/**
 * A duplicate-ledger key's latest duplicate: its input record and the output offsets of its first copy and of the extra
 * one.
 */
export interface LedgerCopies {
  partition: number
  first: number
  copy: number
  source: { partition: number; offset: number }
}

/**
 * A duplicate-ledger row as the lab sends it: the entry, and where its latest duplicate's copies are (the message
 * browser opens them).
 */
export type LedgerEntryWithCopies = DuplicateLedgerEntry & { copies?: LedgerCopies }

/** The copies a ledger row names, if the lab sent them. */
export function ledgerCopies(e: DuplicateLedgerEntry): LedgerCopies | undefined {
  return (e as LedgerEntryWithCopies).copies
}
