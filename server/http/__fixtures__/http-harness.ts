// The http layer (attachEoscopeHttp, as server/index.ts runs it) on a fake lab and a free loopback
// port, with socket.io clients that the harness disconnects when it closes.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { io as connect, type Socket } from 'socket.io-client'
import type { AccessPolicy } from '../access.ts'
import { attachEoscopeHttp, type EoscopeHttp, type EoscopeHttpOptions } from '../app.ts'
import { createFakeLab, type FakeLab } from './fake-lab.ts'

/** A rate limit nothing in a test reaches. */
export const WIDE_OPEN = { perSec: 1e6, burst: 1e6 }

export interface OpenOptions {
  auth?: Record<string, unknown>
  headers?: Record<string, string>
}

export interface HttpHarness {
  lab: FakeLab
  http: EoscopeHttp
  server: Server
  port: number
  url: string
  /** A fresh socket (websocket, no reconnection). */
  open(options?: OpenOptions): Socket
  close(): Promise<void>
}

export async function startHttp(
  policy: Partial<AccessPolicy>,
  options: { lab?: FakeLab } & Pick<EoscopeHttpOptions, 'now' | 'fallback'> = {},
): Promise<HttpHarness> {
  const lab = options.lab ?? createFakeLab()
  const server = createServer()
  const http = attachEoscopeHttp(server, {
    lab,
    policy: { token: null, lockReads: false, controlRate: WIDE_OPEN, ...policy },
    minIntervalMs: 20,
    defaultMetrics: false,
    now: options.now,
    fallback: options.fallback,
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}`
  const clients: Socket[] = []
  return {
    lab,
    http,
    server,
    port,
    url,
    open(o = {}) {
      const c = connect(url, {
        transports: ['websocket'],
        auth: o.auth,
        extraHeaders: o.headers,
        reconnection: false,
        forceNew: true,
      })
      clients.push(c)
      return c
    },
    async close() {
      for (const c of clients.splice(0)) c.disconnect()
      await http.close()
      await lab.close()
    },
  }
}

/** Resolves once the socket connects; rejects with the handshake's refusal. */
export const connected = (c: Socket) =>
  new Promise<void>((resolve, reject) => {
    c.on('connect', () => resolve())
    c.on('connect_error', (e) => reject(e))
  })
