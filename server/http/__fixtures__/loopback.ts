// The http layer listening on a free loopback port, for tests that talk to it over the network.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { attachEoscopeHttp, type EoscopeHttp, type EoscopeHttpOptions } from '../app.ts'

export interface LoopbackHttp {
  http: EoscopeHttp
  /** http://127.0.0.1:<port> */
  url: string
}

export async function listenOnLoopback(options: EoscopeHttpOptions): Promise<LoopbackHttp> {
  const server = createServer()
  const http = attachEoscopeHttp(server, options)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { http, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}
