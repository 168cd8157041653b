import { describe, expect, expectTypeOf, it } from 'vitest'
import { type CommandPayload, LIMITS, parseCommand } from './lab-protocol.ts'
import { rangeOf } from './streams-config.ts'

describe('lab commands', () => {
  it('parseCommand returns the payload typed by the command name, defaults applied', () => {
    const p = parseCommand('dropAcks', {})
    expect(p).toEqual({ ok: true, name: 'dropAcks', payload: { count: 1 } })
    if (!p.ok) return
    switch (p.name) {
      case 'dropAcks':
        expectTypeOf(p.payload).toEqualTypeOf<CommandPayload<'dropAcks'>>()
        expect(p.payload.count).toBe(1)
        break
      case 'killWorker':
        expectTypeOf(p.payload).toEqualTypeOf<{ workerId: string; step?: number | undefined }>()
        break
    }
  })

  it("refuses a bad value in the settings table's words, naming the field", () => {
    expect(parseCommand('setConfig', { workers: 13 })).toEqual({
      ok: false,
      error: 'invalid setConfig: workers: must be an integer from 1 to 12; got 13',
    })
    expect(parseCommand('injectPoison', { count: 0 })).toEqual({
      ok: false,
      error: 'invalid injectPoison: count: must be an integer from 1 to 100; got 0',
    })
    expect(parseCommand('selectPartition', { topic: 'input', partition: 256 })).toMatchObject({
      ok: false,
      error: 'invalid selectPartition: partition: must be an integer from 0 to 255; got 256',
    })
    expect(parseCommand('setConfig', {})).toEqual({
      ok: false,
      error: 'invalid setConfig: name at least one setting to change',
    })
    expect(parseCommand('formatDisk', {})).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^unknown command "formatDisk"/),
    })
  })

  it("the dashboard's limits are the live lab's ranges of the settings table", () => {
    expect(LIMITS.commitIntervalMs).toEqual({ min: 10, max: 30_000 })
    expect(LIMITS.workers).toBe(rangeOf('workers', 'lab'))
    expect(LIMITS.inputRatePerSec).toBe(rangeOf('inputRatePerSec', 'lab'))
  })
})
