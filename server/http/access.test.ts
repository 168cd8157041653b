// The access policy's rules, the token comparison and the rate limiter; and the server process
// itself refusing to start on a non-loopback address without a token.

import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { RateLimiter, isLoopbackHost, resolveAccessPolicy, tokenMatches } from './access.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const TOKEN = 'a3f1c9d2e8b74a60b5c2d9e1f0a7b3c4'

describe('the access policy', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    'treats %s as loopback',
    (h) => {
      expect(isLoopbackHost(h)).toBe(true)
    },
  )
  it.each(['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '::ffff:10.0.0.1', '128.0.0.1'])(
    'treats %s as reachable from elsewhere',
    (h) => {
      expect(isLoopbackHost(h)).toBe(false)
    },
  )

  it('needs a token on a non-loopback address and makes it optional on loopback', () => {
    expect(resolveAccessPolicy({}, '0.0.0.0')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/EOSCOPE_TOKEN/),
    })
    expect(resolveAccessPolicy({}, '::')).toMatchObject({ ok: false })
    expect(resolveAccessPolicy({ EOSCOPE_TOKEN: TOKEN }, '0.0.0.0')).toMatchObject({
      ok: true,
      policy: { token: TOKEN, lockReads: false },
    })
    expect(resolveAccessPolicy({}, '127.0.0.1')).toMatchObject({ ok: true, policy: { token: null, lockReads: false } })
    expect(resolveAccessPolicy({ EOSCOPE_TOKEN: TOKEN }, '127.0.0.1')).toMatchObject({
      ok: true,
      policy: { token: TOKEN },
    })
  })

  it('refuses short tokens, locked reads without a token and a malformed flag', () => {
    expect(resolveAccessPolicy({ EOSCOPE_TOKEN: 'secret' }, '127.0.0.1')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/at least 16/),
    })
    expect(resolveAccessPolicy({ EOSCOPE_TOKEN: `${TOKEN} x` }, '127.0.0.1')).toMatchObject({ ok: false })
    expect(resolveAccessPolicy({ EOSCOPE_LOCK_READS: '1' }, '127.0.0.1')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/EOSCOPE_LOCK_READS=1 needs EOSCOPE_TOKEN/),
    })
    expect(resolveAccessPolicy({ EOSCOPE_LOCK_READS: 'yes', EOSCOPE_TOKEN: TOKEN }, '127.0.0.1')).toMatchObject({
      ok: false,
    })
    expect(resolveAccessPolicy({ EOSCOPE_LOCK_READS: '1', EOSCOPE_TOKEN: TOKEN }, '0.0.0.0')).toMatchObject({
      ok: true,
      policy: { lockReads: true },
    })
  })

  it('compares tokens exactly, whatever their type or length', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true)
    expect(tokenMatches(TOKEN, TOKEN.slice(0, -1))).toBe(false)
    expect(tokenMatches(TOKEN, `${TOKEN}0`)).toBe(false)
    expect(tokenMatches(TOKEN, TOKEN.toUpperCase())).toBe(false)
    for (const v of [undefined, null, 1, {}, [TOKEN], '', 'x'.repeat(10_000)])
      expect(tokenMatches(TOKEN, v)).toBe(false)
  })
})

describe('the rate limiter', () => {
  it('lets a burst through, then the rate, per key', () => {
    let now = 0
    const limiter = new RateLimiter({ perSec: 10, burst: 20 }, () => now)
    let allowed = 0
    for (let i = 0; i < 100; i++) if (limiter.take('a')) allowed++
    expect(allowed).toBe(20)
    expect(limiter.take('b')).toBe(true)
    expect(limiter.retryAfterSec('a')).toBe(1)
    now += 500 // five tokens back
    allowed = 0
    for (let i = 0; i < 100; i++) if (limiter.take('a')) allowed++
    expect(allowed).toBe(5)
    now += 60_000 // never more than the burst
    allowed = 0
    for (let i = 0; i < 100; i++) if (limiter.take('a')) allowed++
    expect(allowed).toBe(20)
  })

  it('stays bounded however many clients it sees', () => {
    let now = 0
    const limiter = new RateLimiter({ perSec: 10, burst: 20 }, () => now, 100)
    for (let i = 0; i < 10_000; i++) {
      now += 1
      limiter.take(`client-${i}`)
    }
    expect((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(100)
  })
})

describe('the server process', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', EOSCOPE_TOKEN: '', EOSCOPE_LOCK_READS: '', LOG_LEVEL: '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    })

  it('refuses to start on a non-loopback address without EOSCOPE_TOKEN: exit 2 and a clear message', () => {
    for (const host of ['0.0.0.0', '::']) {
      const r = run({ HOST: host })
      expect(r.status).toBe(2)
      expect(r.stderr).toMatch(
        new RegExp(`HOST=${host.replace(/[.:]/g, '\\$&')} is not a loopback address: set EOSCOPE_TOKEN`),
      )
      expect(r.stderr).not.toMatch(/\n\s+at /)
    }
  })

  it('refuses a short token, locked reads without a token and an unknown LOG_LEVEL with exit 2', () => {
    expect(run({ HOST: '0.0.0.0', EOSCOPE_TOKEN: 'short' })).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/at least 16 characters/),
    })
    expect(run({ HOST: '127.0.0.1', EOSCOPE_LOCK_READS: '1' })).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/EOSCOPE_LOCK_READS=1 needs EOSCOPE_TOKEN/),
    })
    expect(run({ HOST: '127.0.0.1', LOG_LEVEL: 'loud' })).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/LOG_LEVEL must be one of/),
    })
  })
})
