// The query strings of GET /api/lab/journal and GET /api/lab/at, checked: a bad parameter is
// refused with what was expected, never guessed at.

import { JOURNAL_CATEGORIES, type JournalCategory } from '../../../lib/journal.ts'
import { MAX_PAGE, type JournalQuery } from './lab-journal.ts'

export const DEFAULT_PAGE = 500

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string }

const KNOWN = new Set(['after', 'limit', 'category', 'commits'])

function integer(raw: string | null, name: string, min: number, max: number): Parsed<number | null> {
  if (raw === null) return { ok: true, value: null }
  if (!/^\d{1,16}$/.test(raw))
    return {
      ok: false,
      error: `${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw.slice(0, 40))}`,
    }
  const n = Number(raw)
  if (n < min || n > max) return { ok: false, error: `${name} must be from ${min} to ${max}, not ${n}` }
  return { ok: true, value: n }
}

/**
 * ?after=ID&limit=N&category=a,b&commits=all|none (limit 500 by default, at most 2000; categories of
 * JOURNAL_CATEGORIES; commits=none leaves committed transactions out).
 */
export function parseJournalQuery(params: URLSearchParams): Parsed<JournalQuery> {
  for (const k of params.keys())
    if (!KNOWN.has(k))
      return {
        ok: false,
        error: `unknown parameter ${JSON.stringify(k.slice(0, 40))}: use after, limit, category and commits`,
      }
  const after = integer(params.get('after'), 'after', 0, Number.MAX_SAFE_INTEGER)
  if (!after.ok) return after
  const limit = integer(params.get('limit'), 'limit', 1, MAX_PAGE)
  if (!limit.ok) return limit
  const raw = params.get('category')
  let categories: JournalCategory[] | null = null
  if (raw !== null) {
    const names = raw.split(',')
    const bad = names.find((c) => !(JOURNAL_CATEGORIES as readonly string[]).includes(c))
    if (bad !== undefined)
      return {
        ok: false,
        error: `unknown category ${JSON.stringify(bad.slice(0, 40))}: use ${JOURNAL_CATEGORIES.join(', ')}`,
      }
    categories = names as JournalCategory[]
  }
  const commits = params.get('commits') ?? 'all'
  if (commits !== 'all' && commits !== 'none')
    return { ok: false, error: `commits must be all or none, not ${JSON.stringify(commits.slice(0, 40))}` }
  return { ok: true, value: { after: after.value ?? 0, limit: limit.value ?? DEFAULT_PAGE, categories, commits } }
}

/** ?t=MS: an instant in milliseconds since the epoch. */
export function parseFrameQuery(params: URLSearchParams): Parsed<number> {
  for (const k of params.keys())
    if (k !== 't') return { ok: false, error: `unknown parameter ${JSON.stringify(k.slice(0, 40))}: use t` }
  const t = integer(params.get('t'), 't', 0, Number.MAX_SAFE_INTEGER)
  if (!t.ok) return t
  if (t.value === null)
    return { ok: false, error: 't is required: an instant in milliseconds since the epoch, e.g. t=1700000000000' }
  return { ok: true, value: t.value }
}
