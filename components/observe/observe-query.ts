// The /observe page's target in its URL (a permalink): the same words as `eoscope observe`'s
// flags and GET /api/observe's query. Pure, so the page and its tests read it one way.

export interface ObserveWords {
  applicationId: string
  input: string
  output: string
  /** '' (no validator) or a record format. */
  format: string
  changelog: string
  deadLetter: string
}

export const EMPTY_WORDS: ObserveWords = {
  applicationId: '',
  input: '',
  output: '',
  format: '',
  changelog: '',
  deadLetter: '',
}

const KEYS = ['applicationId', 'input', 'output', 'format', 'changelog', 'deadLetter'] as const

export function wordsFromSearch(search: string): ObserveWords {
  const q = new URLSearchParams(search)
  const w = { ...EMPTY_WORDS }
  for (const k of KEYS) w[k] = (q.get(k) ?? '').trim()
  return w
}

/** The query string of a target: only the words given, in a fixed order (one permalink per target). */
export function searchOfWords(w: ObserveWords): string {
  const q = new URLSearchParams()
  for (const k of KEYS) if (w[k].trim() !== '') q.set(k, w[k].trim())
  return q.toString()
}
