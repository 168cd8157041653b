// The server's http layer on one http.Server: access checks (Host, token, rate limit, origin), the
// security headers (CSP, no framing), the experiments, observe and lab REST APIs, /metrics, socket.io, and
// whatever serves the rest (Next).
// server/index.ts runs it with Next; tests run it with a real or fake lab and no Next.

import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http'
import type { LabController } from '../lab/lab-controller.ts'
import type { ExperimentService } from '../experiments/experiment-service.ts'
import { silentLogger, type Logger } from '../logging.ts'
import { AccessGate, clientAddress, type AccessPolicy, type Rejection } from './access.ts'
import { createExperimentsHandler } from './experiments-routes.ts'
import { createObserveHandler } from './observe-route.ts'
import type { ObserverRegistry } from '../observe/observer-registry.ts'
import { attachLiveSocket, type LiveSocket, type LiveSocketHooks } from './live-socket.ts'
import { createLabMetrics, type LabMetrics } from './metrics.ts'
import { isSameOrigin } from './origin.ts'
import { noteOutcome, outcomeOf, rejectionReason } from './outcome.ts'
import { createRestHandler, pathOf } from './rest.ts'
import { setApiSecurityHeaders, setPageSecurityHeaders } from './security-headers.ts'

export interface EoscopeHttpOptions {
  lab: LabController
  policy: AccessPolicy
  experiments?: ExperimentService
  /** The /observe page's observers; absent on a server without a Kafka cluster (501). */
  observe?: ObserverRegistry
  logger?: Logger
  /** Serves what the APIs do not (Next's handler); default: 404 JSON. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => Promise<void>
  /** Live socket push interval (tests). */
  minIntervalMs?: number
  /** Node's process metrics in /metrics (default true). */
  defaultMetrics?: boolean
  /** Clock of the rate limiter (tests). */
  now?: () => number
  /** Next runs in development mode: the pages' CSP allows eval (React's dev tools). */
  dev?: boolean
}

export interface EoscopeHttp {
  live: LiveSocket
  metrics: LabMetrics
  gate: AccessGate
  close(): Promise<void>
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err))

function sendError(res: ServerResponse, status: number, error: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  noteOutcome(res, { error })
  const text = JSON.stringify({ error })
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...extra,
  })
  res.end(text)
}

/** Where the page learns whether its controls need a token (the header offers "unlock controls" only then). */
export const ACCESS_PATH = '/api/access'

function serveAccess(gate: AccessGate, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendError(res, 405, `use GET for ${ACCESS_PATH}`)
    return
  }
  const text = JSON.stringify({ controlNeedsToken: gate.controlNeedsToken, readsNeedToken: gate.readsNeedToken })
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  })
  res.end(req.method === 'HEAD' ? undefined : text)
}

const isApiPath = (p: string) => p === '/api' || p.startsWith('/api/') || p === '/metrics'

function refuse(res: ServerResponse, r: Rejection): void {
  sendError(
    res,
    r.status,
    r.error,
    r.status === 401
      ? { 'www-authenticate': 'Bearer realm="eoscope"' }
      : r.retryAfterSec
        ? { 'retry-after': String(r.retryAfterSec) }
        : {},
  )
}

async function serveMetrics(metrics: LabMetrics, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'use GET for /metrics')
  const text = await metrics.render()
  res.writeHead(200, {
    'content-type': metrics.contentType,
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  })
  res.end(req.method === 'HEAD' ? undefined : text)
}

/** An API request's access: a read needs the token only when reads are locked; a control action
 * from another origin's page is refused first, then the token is checked, then the rate. */
function checkApiAccess(gate: AccessGate, req: IncomingMessage): Rejection | null {
  if (req.method === 'GET' || req.method === 'HEAD') return gate.checkRead(req)
  if (!isSameOrigin(req)) return { status: 403, error: 'cross-origin requests are refused', reason: 'cross_origin' }
  return gate.checkControl(req)
}

/** Logs and counts a finished API request (or a refused Host): the command it ran, its refusal, or its failure. */
function logOutcome(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  client: string,
  metrics: LabMetrics,
  logger: Logger,
): void {
  const outcome = outcomeOf(res)
  const fields = {
    via: 'rest',
    method: req.method,
    path: pathname.slice(0, 200),
    status: res.statusCode,
    client,
    ...(res.statusCode === 421 ? { host: String(req.headers.host).slice(0, 100) } : {}),
  }
  if (outcome?.command && res.statusCode !== 401 && res.statusCode !== 403 && res.statusCode !== 429) {
    const ok = res.statusCode < 400
    metrics.countCommand('rest', outcome.command, ok)
    logger.info(
      { ...fields, event: 'command', command: outcome.command, ok, ...(ok ? {} : { error: outcome.error }) },
      `command ${outcome.command} ${ok ? 'ok' : 'refused'}`,
    )
  } else if (res.statusCode >= 400) {
    const reason = rejectionReason(res.statusCode)
    metrics.countRejected('rest', reason)
    logger.warn({ ...fields, event: 'rejected', reason, error: outcome?.error }, `request refused: ${reason}`)
  } else logger.debug({ ...fields, event: 'request' }, 'request')
  if (outcome?.cause !== undefined)
    logger.error({ ...fields, event: 'error', err: outcome.cause }, `request failed: ${errorText(outcome.cause)}`)
}

/** The socket's commands, refusals and failures, to the log and the metrics. */
function socketHooks(metrics: LabMetrics, logger: Logger): LiveSocketHooks {
  return {
    command({ name, ok, error, client }) {
      metrics.countCommand('socket', name, ok)
      logger.info(
        { event: 'command', via: 'socket', command: name, ok, ...(ok ? {} : { error }), client },
        `command ${name} ${ok ? 'ok' : 'refused'}`,
      )
    },
    rejected({ reason, error, client }) {
      metrics.countRejected('socket', reason)
      logger.warn({ event: 'rejected', via: 'socket', reason, error, client }, `socket message refused: ${reason}`)
    },
    failed({ where, err, client }) {
      logger.error({ event: 'error', via: 'socket', where, client, err }, `${where} failed: ${errorText(err)}`)
    },
  }
}

/** Attaches the http layer to `httpServer` (before it listens). */
export function attachEoscopeHttp(httpServer: HttpServer, options: EoscopeHttpOptions): EoscopeHttp {
  const { lab, policy, experiments, logger = silentLogger, fallback } = options
  const gate = new AccessGate(policy, options.now)
  const handleRest = createRestHandler(lab, (msg) => logger.debug(msg))
  const handleExperiments = experiments
    ? createExperimentsHandler(experiments, (msg) => logger.debug(msg))
    : async () => false
  const handleObserve = createObserveHandler(options.observe ?? null, (msg) => logger.debug(msg))
  let live: LiveSocket | null = null
  const metrics = createLabMetrics({
    lab,
    socketClients: () => live?.io.of('/').sockets.size ?? 0,
    socketSessions: () => ({ sessions: live?.sessions.sessions ?? 0, queuedBytes: live?.sessions.queuedBytes ?? 0 }),
    defaultMetrics: options.defaultMetrics,
  })

  const onRequest = async (req: IncomingMessage, res: ServerResponse, pathname: string) => {
    // A Host this server does not answer to (DNS rebinding) is refused on every route.
    const misdirected = gate.checkHost(req)
    if (misdirected) {
      setApiSecurityHeaders(res)
      return refuse(res, misdirected)
    }
    if (!isApiPath(pathname)) {
      setPageSecurityHeaders(req, res, options.dev ? 'development' : 'production')
      if (fallback) await fallback(req, res)
      else sendError(res, 404, `no such page: ${pathname.slice(0, 80)}`)
      return
    }
    setApiSecurityHeaders(res)
    const refused = checkApiAccess(gate, req)
    if (refused) return refuse(res, refused)
    if (pathname === '/metrics') return serveMetrics(metrics, req, res)
    if (pathname === ACCESS_PATH) return serveAccess(gate, req, res)
    if (await handleExperiments(req, res)) return
    if (await handleObserve(req, res)) return
    if (await handleRest(req, res)) return
    sendError(res, 404, `no such endpoint: ${pathname.slice(0, 80)}`)
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    // socket.io answers its own path through its own request listener.
    if (req.url?.startsWith('/socket.io/')) return
    const pathname = pathOf(req)
    const client = clientAddress(req)
    if (isApiPath(pathname) || !gate.hosts.allows(req.headers.host)) {
      res.once('finish', () => logOutcome(req, res, pathname, client, metrics, logger))
    }
    onRequest(req, res, pathname).catch((err: unknown) => {
      // Never a stack trace to the client: the full error goes to the log.
      logger.error(
        { event: 'error', method: req.method, path: pathname.slice(0, 200), client, err },
        `request failed: ${errorText(err)}`,
      )
      if (isApiPath(pathname)) sendError(res, 500, 'internal error')
      else if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
        res.end('internal error')
      } else res.destroy()
    })
  }
  httpServer.on('request', listener)

  live = attachLiveSocket(httpServer, {
    lab,
    gate,
    minIntervalMs: options.minIntervalMs,
    log: (msg) => logger.debug(msg),
    hooks: socketHooks(metrics, logger),
    sessions: policy.sessions,
  })

  return {
    live,
    metrics,
    gate,
    async close() {
      httpServer.off('request', listener)
      await live!.close()
      metrics.close()
    },
  }
}
