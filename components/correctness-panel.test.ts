import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { fixtureSnapshot } from './__fixtures__/lab-snapshot.ts'
import { CorrectnessPanel, FIGURES } from './correctness-panel.tsx'

describe('the correctness panel', () => {
  it('names the validator’s open-transaction figure for what it counts: partitions, not transactions', () => {
    // Issue 34: "Open transactions 12" beside "4 open" transactions; the validator counts partitions whose LSO < HW.
    const html = renderToString(
      createElement(CorrectnessPanel, {
        correctness: fixtureSnapshot.correctness,
        guarantee: 'exactly_once',
        startedAtMs: fixtureSnapshot.startedAtMs,
      }),
    )
    expect(html).toContain('Partitions with an open transaction')
    expect(html).not.toMatch(/>Open transactions</)
    const figure = FIGURES.find((f) => f.key === 'openTransactions')!
    expect(figure.definition).toMatch(/last stable offset \(LSO\) is below the high watermark/)
  })
})
