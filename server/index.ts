// eoscope's server: Next (App Router) and socket.io on one http.Server, with the lab running inside.
//
//   node --import tsx server/index.ts [--dev]
//
// PORT (default 3000; 0 picks a free port) and HOST (default 127.0.0.1) choose where it listens.
// Without --dev it serves the production build (`next build` first; `npm start` does that).

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import next from 'next'
import { createLab } from './lab/index.ts'
import { createRestHandler } from './http/rest.ts'
import { attachLiveSocket } from './http/live-socket.ts'
import { createExperimentsHandler } from './http/experiments-routes.ts'
import { ExperimentService } from './experiments/experiment-service.ts'

const dev = process.argv.includes('--dev')
const host = process.env.HOST || '127.0.0.1'
const port = Number.parseInt(process.env.PORT ?? '3000', 10)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be an integer in [0, 65535], got ${JSON.stringify(process.env.PORT)}`)
  process.exit(2)
}

const log = (msg: string) => console.log(`[eoscope] ${msg}`)

async function main(): Promise<void> {
  const httpServer = createServer()
  const app = next({ dev, dir: process.cwd(), hostname: host, port, httpServer })
  const lab = await createLab()
  await app.prepare()
  const handleNext = app.getRequestHandler()
  const handleRest = createRestHandler(lab, log)
  const handleExperiments = createExperimentsHandler(new ExperimentService({ log }), log)

  httpServer.on('request', (req, res) => {
    // socket.io answers its own path through its own request listener.
    if (req.url?.startsWith('/socket.io/')) return
    handleExperiments(req, res)
      .then((handled) => handled || handleRest(req, res))
      .then((handled) => (handled ? undefined : handleNext(req, res)))
      .catch((err: unknown) => {
        log(`request ${req.method} ${req.url} failed: ${err instanceof Error ? err.message : String(err)}`)
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
        res.end('internal error')
      })
  })
  const live = attachLiveSocket(httpServer, { lab, log })

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject)
    httpServer.listen(port, host, () => resolve())
  })
  const addr = httpServer.address() as AddressInfo
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
  log(`${dev ? 'dev' : 'production'} server ready on http://${shown}:${addr.port} (backend: ${lab.snapshot().backend})`)

  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    log(`${signal}: shutting down`)
    const force = setTimeout(() => process.exit(1), 5000)
    force.unref()
    // Closing socket.io closes the http server too.
    Promise.allSettled([live.close(), app.close(), lab.close()]).then(() => process.exit(0))
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
