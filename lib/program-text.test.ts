import { describe, expect, it } from 'vitest'
import { programText } from './program-text.ts'

// The checker of program text, tested on text with and without it: it must catch each kind, and
// leave a reader's words alone.
describe('the program-text check', () => {
  it('finds camelCase keys, raw floats and -1 sentinels', () => {
    const found = programText('duplicatesInReplayWindow 4 · open for 3000.843505859375 ms · producer id -1 (none: -1)')
    expect(found.map((f) => f.split(':')[0])).toEqual([
      'a camelCase identifier',
      'a number with more than three decimals',
      'a -1 sentinel',
      'a -1 sentinel',
    ])
  })

  it('leaves words, units, ranges, negative figures and Kafka names alone', () => {
    expect(
      programText(
        'exactly_once 1,234 records/s · 12.5 ms · p0-1 · offsets 10-11 · −1.5% · overhead -12.3% · ' +
          'transactional.id · initTransactions · PRODUCER_FENCED · CompleteCommit · read_committed · LSO ' +
          '1003·0·295 · worker-1.2-4',
      ),
    ).toEqual([])
  })
})
