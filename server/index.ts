// eoscope's server: Next (App Router) and socket.io on one http.Server, with the lab running inside.
//
//   node --import tsx server/index.ts [--dev]
//
// PORT (default 3000; 0 picks a free port) and HOST (default 127.0.0.1) choose where it listens.
// Bound to anything but loopback, it refuses to start without EOSCOPE_TOKEN (exit status 2), which
// control actions must then carry; EOSCOPE_LOCK_READS=1 requires it for reads too. EOSCOPE_MAX_SESSIONS,
// EOSCOPE_MAX_SESSIONS_PER_CLIENT and EOSCOPE_SESSION_BUFFER_BYTES bound the live sessions. LOG_LEVEL sets
// the level of the JSON logs on stdout (default info). GET /metrics serves Prometheus metrics.
// EOSCOPE_BACKEND=kafka with KAFKA_BROKERS=host:port runs the lab on a Kafka cluster (worker
// processes; SASL and TLS from KAFKA_SASL_* and KAFKA_SSL_*); the default is the embedded log.
// Without --dev it serves the production build (`next build` first; `npm start` does that).

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import next from 'next'
import { firstReachableBroker, labChoiceFromEnv, startLab } from './lab/lab-from-env.ts'
import { ExperimentService } from './experiments/experiment-service.ts'
import { ObserverRegistry } from './observe/observer-registry.ts'
import { resolveAccessPolicy } from './http/access.ts'
import { attachEoscopeHttp } from './http/app.ts'
import { createLogger, logLevelFrom, messageLog } from './logging.ts'

/** Refuses to start: a one-line message on stderr, exit status 2. */
function refuse(message: string): never {
  process.stderr.write(`eoscope: ${message}\n`)
  process.exit(2)
}

const dev = process.argv.includes('--dev')
const host = process.env.HOST || '127.0.0.1'
const port = Number.parseInt(process.env.PORT ?? '3000', 10)
if (!/^\d+$/.test((process.env.PORT ?? '3000').trim()) || !Number.isInteger(port) || port < 0 || port > 65535) {
  refuse(`PORT must be an integer in [0, 65535], got ${JSON.stringify(process.env.PORT)}`)
}
const level = logLevelFrom(process.env)
if (!level.ok) refuse(level.error)
const access = resolveAccessPolicy(process.env, host)
if (!access.ok) refuse(access.error)
const policy = access.policy

const logger = createLogger(level.level)
// The full error of a crash reaches the log before Node ends the process.
process.on('uncaughtExceptionMonitor', (err, origin) =>
  logger.fatal({ event: 'crash', origin, err }, `${origin}: ${err instanceof Error ? err.message : String(err)}`),
)

async function main(): Promise<void> {
  const choice = await labChoiceFromEnv(process.env)
  if (!choice.ok) refuse(choice.error)
  if (choice.backend === 'kafka' && (await firstReachableBroker(choice.brokers)) === null) {
    logger.fatal({ event: 'start-failed', brokers: choice.brokers }, 'no Kafka broker reachable')
    process.stderr.write(
      `eoscope: no broker of KAFKA_BROKERS=${choice.brokers.join(',')} accepts connections: start one ` +
        `(scripts/kafka-broker.sh start runs one on 127.0.0.1:19092) or fix KAFKA_BROKERS\n`,
    )
    process.exit(1)
  }
  if (choice.backend === 'kafka')
    logger.info(
      { event: 'backend', backend: 'kafka', brokers: choice.brokers, security: choice.describe },
      `lab on Kafka at ${choice.brokers.join(',')} (${choice.describe})`,
    )
  const httpServer = createServer()
  const app = next({ dev, dir: process.cwd(), hostname: host, port, httpServer })
  const lab = await startLab(choice)
  // The /observe page: applications eoscope did not start, on the same cluster (read-only).
  const observeSource =
    choice.backend === 'kafka'
      ? (await import('./observe/kafka-observe-source.ts')).kafkaObserveSource({
          brokers: choice.brokers,
          clientId: 'eoscope-observe',
          ...choice.security,
        })
      : null
  let http: ReturnType<typeof attachEoscopeHttp>
  try {
    await app.prepare()
    const handleNext = app.getRequestHandler()
    http = attachEoscopeHttp(httpServer, {
      lab,
      policy,
      experiments: new ExperimentService({ log: messageLog(logger, { event: 'experiment' }) }),
      observe: observeSource ? new ObserverRegistry(observeSource) : undefined,
      logger,
      fallback: (req, res) => handleNext(req, res),
      dev,
    })
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject)
      httpServer.listen(port, host, () => resolve())
    })
  } catch (e) {
    // No build, a port in use: the lab's worker processes (Kafka backend) must not outlive the server.
    await lab.close().catch(() => {})
    await observeSource?.close().catch(() => {})
    throw e
  }
  const addr = httpServer.address() as AddressInfo
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
  const backend = lab.snapshot().backend
  logger.info(
    {
      event: 'start',
      address: addr.address,
      port: addr.port,
      url: `http://${shown}:${addr.port}`,
      mode: dev ? 'dev' : 'production',
      backend,
      controlNeedsToken: policy.token !== null,
      readsNeedToken: policy.lockReads,
      controlRate: policy.controlRate,
      sessions: policy.sessions,
      allowedHosts: ['loopback', ...(policy.allowedHosts?.extra ?? [])],
    },
    `${dev ? 'dev' : 'production'} server ready on http://${shown}:${addr.port} (backend: ${backend})`,
  )

  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    logger.info({ event: 'stop', signal }, `${signal}: shutting down`)
    // The Kafka lab kills its workers first, then tells followers and deletes its topics: give it time.
    const force = setTimeout(() => process.exit(1), 12_000)
    force.unref()
    // Closing socket.io closes the http server too.
    Promise.allSettled([http.close(), app.close(), lab.close(), observeSource?.close()]).then(() => process.exit(0))
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
}

main().catch((err: unknown) => {
  logger.fatal(
    { event: 'start-failed', err },
    `server failed to start: ${err instanceof Error ? err.message : String(err)}`,
  )
  process.exit(1)
})
