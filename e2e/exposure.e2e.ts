// The real server process bound to a non-loopback address: it refuses to start without a token;
// with one, control needs it and reads stay open (or are locked with EOSCOPE_LOCK_READS=1); no
// error page shows a stack trace; /metrics answers; the logs are JSON lines.

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { connect as tcpConnect } from 'node:net'
import path from 'node:path'
import { io as connect, type Socket } from 'socket.io-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, ensureBuild, startServer, type ServerProcess } from './server-process.ts'

const TOKEN = 'e2e0c1b2a3f4e5d6c7b8a9f0e1d2c3b4'

/** Starts server/index.ts with this environment and waits for its start log line. */
function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  return startServer({
    env: { LOG_LEVEL: 'info', EOSCOPE_TOKEN: '', EOSCOPE_LOCK_READS: '', ...env },
    readyWhen: 'logged-start',
    timeoutMs: 120_000,
    build: 'any',
  })
}

const STACK = /\n\s+at |\bat \S+ \(|[\w/]+\.(ts|js|mjs):\d+:\d+|node_modules|webpack-internal/

beforeAll(() => {
  // Exposure does not depend on the page's content: any production build will do.
  if (!existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) ensureBuild()
})

describe('bound to 0.0.0.0', () => {
  it('refuses to start without EOSCOPE_TOKEN: exit status 2 and a clear message', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
      cwd: ROOT,
      env: { ...process.env, HOST: '0.0.0.0', PORT: '0', EOSCOPE_TOKEN: '' },
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/^eoscope: HOST=0\.0\.0\.0 is not a loopback address: set EOSCOPE_TOKEN/)
  })

  describe('with EOSCOPE_TOKEN', () => {
    let server: ServerProcess
    const sockets: Socket[] = []
    beforeAll(async () => {
      server = await startProcess({ HOST: '0.0.0.0', EOSCOPE_TOKEN: TOKEN })
    })
    afterAll(async () => {
      for (const s of sockets) s.disconnect()
      await server?.stop()
    })
    const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
    const open = (opts: { auth?: object; origin?: string } = {}) => {
      const s = connect(server.url, {
        transports: ['websocket'],
        auth: opts.auth as Record<string, unknown>,
        extraHeaders: opts.origin ? { origin: opts.origin } : {},
        reconnection: false,
        forceNew: true,
      })
      sockets.push(s)
      return new Promise<Socket>((resolve, reject) => {
        s.on('connect', () => resolve(s))
        s.on('connect_error', reject)
      })
    }

    it('logs its start as JSON with the address and the backend', () => {
      const start = server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.event === 'start')
      expect(start).toMatchObject({
        level: 30,
        address: '0.0.0.0',
        backend: 'embedded',
        controlNeedsToken: true,
        readsNeedToken: false,
      })
      expect(server.output()).not.toContain(TOKEN)
    })

    it('refuses control without the token (401) and runs it with the token (200); reads stay open', async () => {
      expect((await fetch(`${server.url}/api/lab`)).status).toBe(200)
      const none = await post('/api/lab/config', { inputRatePerSec: 300 })
      expect(none.status).toBe(401)
      expect(await none.json()).toEqual({ error: expect.stringMatching(/^unauthorized/) })
      expect(
        (await post('/api/lab/config', { inputRatePerSec: 300 }, { authorization: 'Bearer not-the-token-0000000' }))
          .status,
      ).toBe(401)
      expect((await post('/api/experiments/cancel', {})).status).toBe(401)
      const ok = await post('/api/lab/config', { inputRatePerSec: 300 }, { authorization: `Bearer ${TOKEN}` })
      expect(ok.status).toBe(200)
      expect(
        ((await (await fetch(`${server.url}/api/lab`)).json()) as { config: { inputRatePerSec: number } }).config
          .inputRatePerSec,
      ).toBe(300)
    })

    it('refuses socket commands without the token and from another origin', async () => {
      const anonymous = await open()
      expect(await anonymous.emitWithAck('command', 'addWorker', {})).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^unauthorized/),
      })
      const holder = await open({ auth: { token: TOKEN } })
      expect(await holder.emitWithAck('command', 'selectPartition', { topic: 'output', partition: 2 })).toEqual({
        ok: true,
      })
      await expect(open({ origin: 'http://evil.example', auth: { token: TOKEN } })).rejects.toBeTruthy()
    })

    it('serves /metrics', async () => {
      const r = await fetch(`${server.url}/metrics`)
      expect(r.status).toBe(200)
      const text = await r.text()
      expect(text).toMatch(/^eoscope_processed_records_per_second \d/m)
      expect(text).toMatch(/^eoscope_socket_clients \d/m)
      expect(text).toMatch(/^process_resident_memory_bytes \d/m)
    })

    it('shows no stack trace on any error page, Next included', async () => {
      const paths = [
        '/%',
        '/%E0%A4%A',
        '/no-such-page',
        '/_next/static/..%2f..%2fpackage.json',
        '/_next/image?url=%2F..%2F&w=1&q=1',
        '/_next/data/x/y.json',
        '/api/lab/%zz',
        '/experiments/%E0%A4%A',
        '/?__nextDataReq=1&x=%',
      ]
      for (const p of paths) {
        const r = await fetch(`${server.url}${p}`)
        const text = await r.text()
        expect(r.status, p).toBeGreaterThanOrEqual(200)
        expect(text, p).not.toMatch(STACK)
      }
      for (const body of ['{', '[[[[[[', '\u0000']) {
        const r = await fetch(`${server.url}/api/lab/config`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          body,
        })
        expect(r.status).toBe(400)
        expect(await r.text()).not.toMatch(STACK)
      }
      // Malformed HTTP straight on the socket: Node answers 400 without detail.
      const reply = await new Promise<string>((resolve) => {
        const s = tcpConnect(Number(new URL(server.url).port), '127.0.0.1', () =>
          s.write('GET /\u0001 HTTP/9.9\r\nHost: x\r\n\r\n'),
        )
        let got = ''
        s.on('data', (d) => (got += d.toString()))
        s.on('close', () => resolve(got))
        s.on('error', () => resolve(got))
        setTimeout(() => s.destroy(), 3000)
      })
      expect(reply).not.toMatch(STACK)
      // Still up.
      expect((await fetch(`${server.url}/api/lab`)).status).toBe(200)
    })
  })

  describe('with EOSCOPE_LOCK_READS=1', () => {
    let server: ServerProcess
    beforeAll(async () => {
      server = await startProcess({ HOST: '0.0.0.0', EOSCOPE_TOKEN: TOKEN, EOSCOPE_LOCK_READS: '1' })
    })
    afterAll(async () => {
      await server?.stop()
    })

    it('needs the token for reads, /metrics and the socket', async () => {
      for (const p of ['/api/lab', '/metrics', '/api/experiments']) {
        expect((await fetch(`${server.url}${p}`)).status, p).toBe(401)
        expect((await fetch(`${server.url}${p}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, p).toBe(
          200,
        )
      }
      const refused = connect(server.url, { transports: ['websocket'], reconnection: false, forceNew: true })
      await expect(
        new Promise((resolve, reject) => {
          refused.on('connect', () => resolve('connected'))
          refused.on('connect_error', reject)
        }),
      ).rejects.toThrow(/unauthorized/)
      refused.disconnect()
      const holder = connect(server.url, {
        transports: ['websocket'],
        auth: { token: TOKEN },
        reconnection: false,
        forceNew: true,
      })
      expect(await new Promise((resolve) => holder.on('snapshot', resolve))).toMatchObject({ backend: 'embedded' })
      holder.disconnect()
    })
  })
})
