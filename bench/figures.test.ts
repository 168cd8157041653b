import { describe, expect, it } from 'vitest'
import { unknownFlags } from './figures.ts'

describe('unknownFlags', () => {
  it('names a flag the benchmark does not know, and the ones it does', () => {
    expect(unknownFlags(['runs', 'out'], ['--runs', '3', '--ruhs', '5'])).toBe(
      'unknown flag --ruhs; this benchmark takes --runs, --out (--help for their meaning)',
    )
  })
  it('accepts known flags and their values', () => {
    expect(unknownFlags(['runs', 'out'], ['--runs', '3', '--out', '/tmp/x.json'])).toBeNull()
    expect(unknownFlags(['runs'], [])).toBeNull()
  })
})
