// The message browser's query in the page's URL, pure: a link (a duplicate-ledger row, a traced
// record, an evidence card, a partitions-table row) opens the browser at the exact offsets, and
// the browser's own query is kept there so the address can be shared. Parameters are the REST
// API's, prefixed `msg.` so they never clash with another view's; they are checked by the same
// schema as the API's (lib/message-browser.ts).

import type { LabTopicRole, PartitionLink } from '../lib/log-range.ts'
import { parseMessageQuery, type MessageQuery } from '../lib/message-browser.ts'

export const PREFIX = 'msg.'
/** The panel's anchor: a link scrolls to it. */
export const MESSAGE_BROWSER_ID = 'message-browser'
/** Dispatched on window after a link changed the URL in place (no navigation). */
export const OPEN_EVENT = 'eoscope:messages'

/** What the browser is asked: a partition of a lab topic, an offset range, a key, a time range. */
export interface BrowserQuery {
  topic: LabTopicRole
  partition: number
  from?: number
  to?: number
  key?: string
  /** Only the records made from this input record: PARTITION@OFFSET. */
  source?: string
  sinceMs?: number
  untilMs?: number
  limit?: number
  /**
   * The lab whose records these are (an evidence card's link): the server refuses the read once that
   * lab no longer runs, rather than answer with the running lab's records at the same offsets.
   */
  lab?: string
}

const FIELDS = ['topic', 'partition', 'from', 'to', 'key', 'source', 'sinceMs', 'untilMs', 'limit', 'lab'] as const

/** The REST query string of a browser query (topic first, only the fields set). */
export function apiParams(q: BrowserQuery): URLSearchParams {
  const p = new URLSearchParams()
  for (const f of FIELDS) {
    const v = q[f]
    if (v !== undefined && v !== '') p.set(f, String(v))
  }
  return p
}

/** The browser's query in a page URL's search string; null when the URL names none, or a bad one. */
export function readBrowserQuery(search: string): BrowserQuery | null {
  const page = new URLSearchParams(search)
  const api = new URLSearchParams()
  for (const [k, v] of page) if (k.startsWith(PREFIX)) api.append(k.slice(PREFIX.length), v)
  if (!api.has('topic')) return null
  const q = parseMessageQuery(api)
  return q.ok ? fromParsed(q.value, api) : null
}

/** Keeps only what the URL said (the schema's defaults are left out, so the URL stays as written). */
function fromParsed(q: MessageQuery, said: URLSearchParams): BrowserQuery {
  const out: BrowserQuery = { topic: q.topic, partition: q.partition }
  if (q.from !== undefined) out.from = q.from
  if (q.to !== undefined) out.to = q.to
  if (q.key !== undefined) out.key = q.key
  if (q.source !== undefined) out.source = `${q.source.partition}@${q.source.offset}`
  if (q.sinceMs !== undefined) out.sinceMs = q.sinceMs
  if (q.untilMs !== undefined) out.untilMs = q.untilMs
  if (said.has('limit')) out.limit = q.limit
  if (q.lab !== undefined) out.lab = q.lab
  return out
}

/** A search string with the browser's query put in (or taken out, for null), every other parameter kept. */
export function writeBrowserQuery(search: string, q: BrowserQuery | null): string {
  const page = new URLSearchParams(search)
  for (const k of [...page.keys()]) if (k.startsWith(PREFIX)) page.delete(k)
  if (q) for (const [k, v] of apiParams(q)) page.set(PREFIX + k, v)
  const s = page.toString()
  return s ? `?${s}` : ''
}

/** The page that holds the message browser. */
export const MESSAGES_PAGE = '/partitions'

/** The href of a link into the browser: its page, the query in the URL, the panel as the anchor. */
export function messagesHref(q: BrowserQuery): string {
  return `${MESSAGES_PAGE}${writeBrowserQuery('', q)}#${MESSAGE_BROWSER_ID}`
}

/**
 * A partition link (an evidence card's, the journal's) as a browser query: its offsets when known, and the lab
 * whose records they are when the link names one.
 */
export function linkQuery(link: PartitionLink & { lab?: string }, key?: string): BrowserQuery {
  const q: BrowserQuery = { topic: link.topic, partition: link.partition }
  if (link.fromOffset !== undefined) q.from = link.fromOffset
  if (link.toOffset !== undefined) q.to = link.toOffset
  if (key !== undefined) q.key = key
  if (link.lab !== undefined) q.lab = link.lab
  return q
}

/**
 * The two copies of a duplicated output: the range from the first to the extra one, only the records made from
 * their input record.
 */
export function copiesQuery(
  key: string,
  copies: { partition: number; first: number; copy: number; source: { partition: number; offset: number } },
): BrowserQuery {
  const lo = Math.min(copies.first, copies.copy)
  const hi = Math.max(copies.first, copies.copy)
  return {
    topic: 'output',
    partition: copies.partition,
    from: lo,
    to: hi + 1,
    key,
    source: `${copies.source.partition}@${copies.source.offset}`,
  }
}
