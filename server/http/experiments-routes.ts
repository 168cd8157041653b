// The experiments' REST API, served before the lab's:
//
//   GET  /api/experiments               stored experiments (newest first), whether one is running, backends;
//                                       ?limit=N (100 by default, at most 500)&offset=M pages the list
//                                       (total: how many are kept)
//   POST /api/experiments               start one; body {"intervals":[10,100,1000],
//                                       "guarantees":["at_least_once","exactly_once"],
//                                       "repeat":1,"backend":"embedded"}; 202 with the record; 400 bad body (nothing
//                                       starts; also exactly_once_v2 on kafka), 409 one is already running,
//                                       501 backend kafka while the server has no brokers (KAFKA_BROKERS)
//   GET  /api/experiments/current       {"experiment": the running (or last) record, or null}
//   POST /api/experiments/cancel        cancel the running one; {"ok":true,"cancelled":true|false}
//   GET  /api/experiments/:id           a stored record as JSON; :id.json and :id.csv download it
//
// Bodies are JSON, at most 16 KB; POSTs from another origin's page get 403.

import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  DEFAULT_SWEEP_GUARANTEES,
  DEFAULT_SWEEP_INTERVALS,
  DEFAULT_SWEEP_REPEAT,
  EXPERIMENT_ID_PATTERN,
  parseSweepRequest,
  summarize,
  toCsv,
} from '../../lib/experiment-protocol.ts'
import type { ExperimentService } from '../experiments/experiment-service.ts'
import { isSameOrigin } from './origin.ts'
import { noteOutcome } from './outcome.ts'
import { pathOf } from './rest.ts'
import { HttpError, readJsonBody, send, sendFailure, sendJson } from './json-body.ts'

export const EXPERIMENT_ROUTES = [
  { method: 'GET', path: '/api/experiments', does: 'stored experiments, running state, backends' },
  { method: 'POST', path: '/api/experiments', does: 'start an experiment ({intervals, guarantees, repeat, backend})' },
  { method: 'GET', path: '/api/experiments/current', does: 'the running (or last) experiment' },
  { method: 'POST', path: '/api/experiments/cancel', does: 'cancel the running experiment' },
  { method: 'GET', path: '/api/experiments/:id(.json|.csv)', does: 'a stored experiment, as JSON or CSV' },
] as const

/** Experiments a list page holds by default, and at most. */
export const EXPERIMENTS_PAGE_DEFAULT = 100
export const EXPERIMENTS_PAGE_MAX = 500

/** ?limit=N&offset=M of GET /api/experiments: bad or unknown parameters are refused (400). */
export function parseListQuery(params: URLSearchParams): { limit: number; offset: number } {
  const value = (name: string, min: number, max: number, fallback: number) => {
    const raw = params.getAll(name)
    if (raw.length === 0) return fallback
    const n = Number(raw[0])
    if (raw.length > 1 || !/^\d{1,9}$/.test(raw[0]!) || n < min || n > max)
      throw new HttpError(400, `${name} must be a whole number from ${min} to ${max}`)
    return n
  }
  for (const k of params.keys())
    if (k !== 'limit' && k !== 'offset')
      throw new HttpError(400, `unknown parameter ${JSON.stringify(k.slice(0, 40))}: use limit and offset`)
  return {
    limit: value('limit', 1, EXPERIMENTS_PAGE_MAX, EXPERIMENTS_PAGE_DEFAULT),
    offset: value('offset', 0, 100_000_000, 0),
  }
}

/** Handles /api/experiments[/...]; returns false (doing nothing) for any other path. */
export function createExperimentsHandler(service: ExperimentService, log: (msg: string) => void = () => {}) {
  return async function handleExperiments(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const pathname = pathOf(req).replace(/\/+$/, '')
    if (pathname !== '/api/experiments' && !pathname.startsWith('/api/experiments/')) return false
    const method = req.method ?? 'GET'
    try {
      const rest = pathname.slice('/api/experiments'.length).replace(/^\//, '')
      if (method === 'POST') {
        if (!isSameOrigin(req)) throw new HttpError(403, 'cross-origin requests are refused')
        if (rest === '') {
          noteOutcome(res, { command: 'startExperiment' })
          const body = await readJsonBody(req)
          if (body === null) throw new HttpError(400, 'invalid experiment: the body must be a JSON object, not null')
          const parsed = parseSweepRequest(body)
          if (!parsed.ok) throw new HttpError(400, parsed.error)
          const started = service.start(parsed.request)
          if (!started.ok) throw new HttpError(started.status, started.error)
          sendJson(res, 202, { ok: true, experiment: started.record })
          return true
        }
        if (rest === 'cancel') {
          noteOutcome(res, { command: 'cancelExperiment' })
          const body = await readJsonBody(req)
          if (
            body !== undefined &&
            !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)
          )
            throw new HttpError(400, 'cancel takes no body (or {})')
          sendJson(res, 200, { ok: true, cancelled: await service.cancel() })
          return true
        }
        throw new HttpError(
          rest === 'current' ? 405 : 404,
          rest === 'current' ? 'use GET for /api/experiments/current' : `no such endpoint: POST ${pathname}`,
        )
      }
      if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, `use GET or POST for ${pathname}`)
      if (rest === '') {
        const { limit, offset } = parseListQuery(new URL(req.url ?? '/', 'http://localhost').searchParams)
        // The in-memory record is newer than its file while a save is under way.
        const live = service.current()
        const stored = await service.store.list()
        const page = stored.slice(offset, offset + limit)
        sendJson(res, 200, {
          experiments: live ? page.map((e) => (e.id === live.id ? summarize(live) : e)) : page,
          total: stored.length,
          limit,
          offset,
          running: service.isRunning(),
          backends: service.backends,
          unavailableBackends: service.unavailableBackends,
          defaults: {
            intervals: DEFAULT_SWEEP_INTERVALS,
            guarantees: DEFAULT_SWEEP_GUARANTEES,
            repeat: DEFAULT_SWEEP_REPEAT,
          },
        })
        return true
      }
      if (rest === 'current') {
        sendJson(res, 200, { experiment: service.current() })
        return true
      }
      if (rest === 'cancel') throw new HttpError(405, 'use POST for /api/experiments/cancel')
      const m = /^([^/]+?)(\.json|\.csv)?$/.exec(rest)
      const id = m?.[1] ?? ''
      if (!m || !EXPERIMENT_ID_PATTERN.test(id)) throw new HttpError(404, `no such experiment: ${rest.slice(0, 80)}`)
      const running = service.current()
      const record = running?.id === id ? running : await service.store.load(id)
      if (!record) throw new HttpError(404, `no such experiment: ${id}`)
      if (m[2] === '.csv')
        send(res, 200, toCsv(record.cells), 'text/csv; charset=utf-8', {
          'content-disposition': `attachment; filename="eoscope-sweep-${id}.csv"`,
        })
      else if (m[2] === '.json')
        sendJson(res, 200, record, { 'content-disposition': `attachment; filename="eoscope-sweep-${id}.json"` })
      else sendJson(res, 200, record)
    } catch (err) {
      sendFailure(res, err, log, `REST ${method} ${pathname}`)
    }
    return true
  }
}
