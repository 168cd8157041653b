import { describe, expect, it } from 'vitest'
import { figureLabel } from './figure-labels.ts'
import { programText } from './program-text.ts'

describe('evidence figure labels', () => {
  it('give every figure the scenarios quote a reader’s words and a unit', () => {
    expect(figureLabel('duplicatesInReplayWindow')).toEqual({
      label: 'duplicates in the replay window',
      unit: 'records',
    })
    expect(figureLabel('exactly_once.abortedRecords')).toEqual({
      label: 'records aborted, exactly_once',
      unit: 'records',
    })
    expect(figureLabel('100.throughputPerSec')).toEqual({
      label: 'processed throughput, at commit.interval.ms 100',
      unit: 'records/s',
    })
    expect(figureLabel('5000.recoveryMs')).toEqual({ label: 'recovery time, at commit.interval.ms 5,000', unit: 'ms' })
  })

  it('read an unknown name as words, never as an identifier', () => {
    const { label } = figureLabel('someNewFigureName')
    expect(label).toBe('some new figure name')
    expect(programText(label)).toEqual([])
  })
})
