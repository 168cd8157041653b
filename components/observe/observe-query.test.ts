import { describe, expect, it } from 'vitest'
import { EMPTY_WORDS, searchOfWords, wordsFromSearch } from './observe-query.ts'

describe('the /observe permalink', () => {
  it('round-trips a target, in one fixed order, leaving out what is not given', () => {
    const w = { ...EMPTY_WORDS, applicationId: 'app', output: 'out', input: 'in', format: 'eoscope' }
    const search = searchOfWords(w)
    expect(search).toBe('applicationId=app&input=in&output=out&format=eoscope')
    expect(wordsFromSearch(`?${search}`)).toEqual(w)
  })

  it('trims the words and drops empty ones; nothing given is the empty target', () => {
    expect(searchOfWords({ ...EMPTY_WORDS, applicationId: '  app ', changelog: '   ' })).toBe('applicationId=app')
    expect(searchOfWords(EMPTY_WORDS)).toBe('')
    expect(wordsFromSearch('')).toEqual(EMPTY_WORDS)
  })

  it('keeps comma-separated topic lists and encodes what a URL must', () => {
    const w = { ...EMPTY_WORDS, applicationId: 'a.b_c-d', input: 'x,y' }
    expect(wordsFromSearch(searchOfWords(w))).toEqual(w)
    expect(searchOfWords(w)).toBe('applicationId=a.b_c-d&input=x%2Cy')
  })
})
