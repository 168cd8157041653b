// Small inputs refused in the same words on the socket and REST: a null payload, an input rate
// that is not a whole number of records a second; and bodies REST alone sees: a byte-order mark
// before the JSON, a body of whitespace alone. Nothing refused reaches the lab. On the fake lab.

import { afterEach, describe, expect, it } from 'vitest'
import type { FakeLab } from './__fixtures__/fake-lab.ts'
import { connected, startHttp, type HttpHarness } from './__fixtures__/http-harness.ts'

let harness: HttpHarness | null = null
let lab: FakeLab
let url: string

afterEach(async () => {
  await harness?.close()
  harness = null
})

async function start(): Promise<void> {
  harness = await startHttp({})
  ;({ lab, url } = harness)
}

async function post(path: string, body: string | undefined): Promise<{ status: number; error?: string }> {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body,
  })
  return { status: r.status, ...((await r.json()) as { error?: string }) }
}

async function socket() {
  const c = harness!.open()
  await connected(c)
  return c
}

describe('the same refusal on the socket and REST', () => {
  it('refuses a null dropAcks payload (it was taken for {} and dropped an ack)', async () => {
    await start()
    const rest = await post('/api/faults/drop-acks', 'null')
    expect(rest).toEqual({
      status: 400,
      error: 'invalid dropAcks: the body must be a JSON object, not null (or send no body)',
    })
    const c = await socket()
    expect(await c.emitWithAck('command', 'dropAcks', null)).toEqual({ ok: false, error: rest.error })
    expect(await c.emitWithAck('command', 'reset', null)).toEqual({
      ok: false,
      error: 'invalid reset: the body must be a JSON object, not null (or send no body)',
    })
    expect(lab.executed).toEqual([])
    // No payload at all, or {}, is still the default.
    expect(await c.emitWithAck('command', 'dropAcks', {})).toEqual({ ok: true })
    expect((await post('/api/faults/drop-acks', undefined)).status).toBe(200)
    expect(lab.executed.map((e) => e.payload)).toEqual([{ count: 1 }, { count: 1 }])
  })

  it('refuses an input rate that is not a whole number of records a second', async () => {
    await start()
    const error = 'invalid setConfig: inputRatePerSec: must be an integer from 0 to 200000; got 0.001'
    expect(await post('/api/lab/config', '{"inputRatePerSec":0.001}')).toEqual({ status: 400, error })
    const c = await socket()
    expect(await c.emitWithAck('command', 'setConfig', { inputRatePerSec: 0.001 })).toEqual({ ok: false, error })
    expect(await c.emitWithAck('command', 'setConfig', { inputRatePerSec: 2.5 })).toMatchObject({ ok: false })
    expect(lab.executed).toEqual([])
    for (const rate of [0, 1, 200_000]) {
      expect(await c.emitWithAck('command', 'setConfig', { inputRatePerSec: rate }), String(rate)).toEqual({
        ok: true,
      })
    }
  })
})

describe('REST bodies', () => {
  it('refuses a byte-order mark before the JSON', async () => {
    await start()
    for (const path of ['/api/lab/config', '/api/faults/drop-acks', '/api/workers']) {
      const body = path === '/api/lab/config' ? '\uFEFF{"inputRatePerSec":5}' : '\uFEFF{}'
      expect(await post(path, body), path).toEqual({
        status: 400,
        error: 'body is not valid JSON: it starts with a byte-order mark; send UTF-8 without one',
      })
    }
    expect(lab.executed).toEqual([])
  })

  it('refuses a body of whitespace alone (a kill too), and takes no body, or JSON with whitespace around', async () => {
    await start()
    const worker = lab.snapshot().workers[0]!.id
    for (const body of [' ', '\n', ' \r\n\t ']) {
      expect(await post(`/api/workers/${worker}/kill`, body), JSON.stringify(body)).toEqual({
        status: 400,
        error: 'body is not valid JSON: it holds only whitespace; send no body, or a JSON object',
      })
    }
    expect(lab.executed).toEqual([])
    expect((await post(`/api/workers/${worker}/pause`, ' {} \n')).status).toBe(200)
    expect((await post(`/api/workers/${worker}/kill`, undefined)).status).toBe(200)
    expect(lab.executed.map((e) => e.name)).toEqual(['pauseWorker', 'killWorker'])
  })
})
