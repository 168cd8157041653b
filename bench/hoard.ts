// npm run bench:hoard -- [--hoarders 60] [--clients 20] [--seconds 60] [--warmup-s 20]
// Clients that never take what they are sent, beside clients that do (issue 37's probe): starts the
// real server on the embedded lab (any production build; no page is measured) with its default
// session limits, and a control server beside it that never gets a client. Connects --clients
// normal socket.io clients (polling, then WebSocket, as a browser does; each applies the deltas to
// its snapshot and asks to resync when it misses one, as the dashboard does), then opens --hoarders
// polling sessions that never fetch: GET /socket.io/?EIO=4&transport=polling for a sid, POST `40`,
// then every 500 ms POST `42N["resync"]` (a resync with an acknowledgement id, which the server
// used to answer with a full snapshot of ~96 KB) and now and then a pong (`3`) so the session stays
// alive; never a GET. A session the server closes is opened again. For --seconds it measures:
// - the server's resident memory (process_resident_memory_bytes) every 5 s, its growth from the
//   start of the window, and the control server's over the same time (the lab's own growth);
// - each normal client's messages per second (snapshot and delta events), and its resyncs;
// - GET /api/lab latency, one request every 100 ms through the window (p50, p99);
// - the lab's processed throughput (eoscope_committed_input_records_total) and the sessions refused
//   or closed by the server (eoscope_rejected_requests_total, via socket).
// The same client and latency figures are taken first for 20 s without the hoarders (the machine as
// it is then). Then the hoarders close their sessions, and memory is read again 30 s later. Loopback only;
// bounded in time (about warmup + seconds + 60 s) and in count. Writes bench/results/hoard.json.

import os from 'node:os'
import path from 'node:path'
import { io as connect, type Socket } from 'socket.io-client'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { applyPatch, type SnapshotDelta } from '../lib/live-delta.ts'
import { parseCommandLine } from '../server/cli/flags.ts'
import { ROOT, startServer, type ServerProcess } from '../e2e/server-process.ts'
import { median, writeResult } from './figures.ts'

const TARGETS = {
  rssGrowthMB: { max: 50 },
  messagesPerSecPerClient: { min: 9 },
  apiLabP99Ms: { max: 50 },
}
const RESYNC_EVERY_MS = 500
const PONG_EVERY = 20 // posts: a pong every 10 s
const API_EVERY_MS = 100
const SAMPLE_EVERY_MS = 5_000
const AFTER_MS = 30_000
const BASELINE_S = 20

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round1 = (n: number) => Math.round(n * 10) / 10
const mb = (bytes: number | null) => (bytes === null ? null : round1(bytes / 1024 / 1024))
const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100)
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : Number.NaN
}

// ---- the server's figures ----

/** One figure from the Prometheus text format: the first sample of that name whose labels hold `labels`. */
function metric(text: string, name: string, labels = ''): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue
    if (labels && !line.includes(labels)) continue
    const v = Number(line.slice(line.lastIndexOf(' ') + 1))
    if (Number.isFinite(v)) return v
  }
  return null
}

interface Sample {
  atSec: number
  rssMB: number | null
  heapUsedMB: number | null
  controlRssMB: number | null
  socketClients: number | null
  /** Engine.io sessions (connected to the lab or not), and the bytes queued for them all (KB). */
  socketSessions: number | null
  queuedKB: number | null
  /** The server's event-loop lag p99 since the previous scrape (prom-client resets it at each). */
  eventLoopLagP99Ms: number | null
}

/** The server's CPU use between two /metrics texts `secs` apart, in percent of one core. */
function cpuPercent(m0: string, m1: string, secs: number): number | null {
  const a = metric(m0, 'process_cpu_seconds_total')
  const b = metric(m1, 'process_cpu_seconds_total')
  return a === null || b === null ? null : Math.round(((b - a) / secs) * 100)
}

const lagMs = (m: string) => {
  const v = metric(m, 'nodejs_eventloop_lag_p99_seconds')
  return v === null ? null : round1(v * 1000)
}

async function scrape(url: string): Promise<string> {
  const r = await fetch(`${url}/metrics`)
  if (!r.ok) throw new Error(`/metrics answered ${r.status}`)
  return r.text()
}

// ---- a polling session that never fetches ----

class Hoarder {
  sid: string | null = null
  private ackId = 0
  posts = 0
  opened = 0
  refused: Record<string, number> = {}

  constructor(private readonly url: string) {}

  private get path() {
    return `${this.url}/socket.io/?EIO=4&transport=polling&sid=${encodeURIComponent(this.sid!)}`
  }

  private post(body: string) {
    return fetch(this.path, { method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8' }, body })
  }

  /** A new session: the handshake (the only GET it ever sends) and socket.io's connect. */
  async open(): Promise<boolean> {
    this.sid = null
    const r = await fetch(`${this.url}/socket.io/?EIO=4&transport=polling`)
    const text = await r.text()
    if (r.status !== 200) {
      this.refused[r.status] = (this.refused[r.status] ?? 0) + 1
      return false
    }
    this.sid = (JSON.parse(text.slice(1)) as { sid: string }).sid
    this.opened++
    const c = await this.post('40')
    await c.arrayBuffer()
    return c.ok
  }

  /** One resync with an acknowledgement id (and now and then a pong); a session the server closed is opened again. */
  async step(): Promise<void> {
    if (this.sid === null && !(await this.open())) return
    const packets = [`42${this.ackId++}["resync"]`]
    if (this.posts % PONG_EVERY === 0) packets.push('3')
    const r = await this.post(packets.join('\x1e'))
    await r.arrayBuffer()
    this.posts++
    if (!r.ok) {
      this.refused[r.status] = (this.refused[r.status] ?? 0) + 1
      this.sid = null
    }
  }

  async close(): Promise<void> {
    if (this.sid === null) return
    await (await this.post('1').catch(() => null))?.arrayBuffer()
    this.sid = null
  }
}

// ---- a client that keeps up, as the dashboard does ----

class Watcher {
  messages = 0
  resyncs = 0
  private latest: LabSnapshot | null = null
  readonly socket: Socket

  constructor(url: string) {
    this.socket = connect(url, { reconnection: false, forceNew: true, timeout: 20_000 })
    this.socket.on('snapshot', (s: LabSnapshot) => {
      this.messages++
      this.latest = s
    })
    this.socket.on('delta', (d: SnapshotDelta) => {
      this.messages++
      if (this.latest && this.latest.seq === d.base) this.latest = applyPatch(this.latest, d.patch)
      else if (this.latest?.seq !== d.seq) {
        this.resyncs++
        this.socket.timeout(5_000).emit('resync', (err: Error | null, s: LabSnapshot | null) => {
          if (!err && s) this.latest = s
        })
      }
    })
  }

  connected(): Promise<boolean> {
    return new Promise((resolve) => {
      this.socket.once('connect', () => resolve(true))
      this.socket.once('connect_error', () => resolve(false))
    })
  }
}

// ---- the bench ----

async function pacedApiLab(url: string, until: () => boolean): Promise<number[]> {
  const latencies: number[] = []
  let next = performance.now()
  while (!until()) {
    const t0 = performance.now()
    const r = await fetch(`${url}/api/lab`)
    await r.arrayBuffer()
    if (r.ok) latencies.push(performance.now() - t0)
    next += API_EVERY_MS
    await sleep(Math.max(0, next - performance.now()))
  }
  return latencies
}

const REJECTED = (reason: string) => `via="socket",reason="${reason}"`

interface Servers {
  server: ServerProcess
  control: ServerProcess
}

/** Memory of both servers and the measured one's socket clients, `t0` being the window's start. */
async function sample({ server, control }: Servers, t0: number): Promise<Sample> {
  const [m, c] = await Promise.all([scrape(server.url), scrape(control.url)])
  return {
    atSec: round1((performance.now() - t0) / 1000),
    rssMB: mb(metric(m, 'process_resident_memory_bytes')),
    heapUsedMB: mb(metric(m, 'nodejs_heap_size_used_bytes')),
    controlRssMB: mb(metric(c, 'process_resident_memory_bytes')),
    socketClients: metric(m, 'eoscope_socket_clients'),
    socketSessions: metric(m, 'eoscope_socket_sessions'),
    queuedKB: ((q) => (q === null ? null : round1(q / 1024)))(metric(m, 'eoscope_socket_queued_bytes')),
    eventLoopLagP99Ms: lagMs(m),
  }
}

interface Window {
  samples: Sample[]
  latencies: number[]
  /** Per normal client: messages per second, and resyncs, over the window. */
  rates: number[]
  resyncs: number[]
  secs: number
  opened: number
  /** /metrics at the window's start and end. */
  m0: string
  m1: string
}

interface Baseline {
  messagesPerSec: { min: number; median: number }
  apiLab: { p50Ms: number; p99Ms: number; requests: number }
  serverCpuPercent: number | null
  eventLoopLagP99Ms: number | null
  secs: number
}

/** The normal clients alone for `seconds`, before the hoarders: the same figures, for comparison. */
async function baselineWindow(url: string, watchers: Watcher[], seconds: number): Promise<Baseline> {
  const m0 = await scrape(url)
  const t0 = performance.now()
  const counts0 = watchers.map((w) => w.messages)
  const latencies = await pacedApiLab(url, () => performance.now() >= t0 + seconds * 1000)
  const secs = (performance.now() - t0) / 1000
  const rates = watchers.map((w, i) => (w.messages - counts0[i]!) / secs)
  const m1 = await scrape(url)
  const b = {
    messagesPerSec: { min: round1(Math.min(...rates)), median: round1(median(rates)) },
    apiLab: {
      p50Ms: round1(quantile(latencies, 0.5)),
      p99Ms: round1(quantile(latencies, 0.99)),
      requests: latencies.length,
    },
    serverCpuPercent: cpuPercent(m0, m1, secs),
    eventLoopLagP99Ms: lagMs(m1),
    secs: round1(secs),
  }
  process.stdout.write(`baseline: ${JSON.stringify(b)}\n`)
  return b
}

/** The hoarders hoard for `seconds` while the normal clients watch; memory, messages and GET /api/lab measured. */
async function hoardWindow(servers: Servers, crowd: Hoarder[], watchers: Watcher[], seconds: number): Promise<Window> {
  const url = servers.server.url
  const m0 = await scrape(url)
  const t0 = performance.now()
  const samples: Sample[] = [await sample(servers, t0)]
  const counts0 = watchers.map((w) => w.messages)
  const resyncs0 = watchers.map((w) => w.resyncs)
  const opened = (await Promise.all(crowd.map((h) => h.open()))).filter(Boolean).length
  process.stdout.write(`${opened} of ${crowd.length} hoarding sessions opened; hoarding for ${seconds} s\n`)
  const end = t0 + seconds * 1000
  const over = () => performance.now() >= end
  const hoarding = crowd.map(async (h, i) => {
    await sleep((i * RESYNC_EVERY_MS) / crowd.length) // spread over the period
    while (!over()) {
      const next = performance.now() + RESYNC_EVERY_MS
      await h.step().catch(() => {})
      await sleep(Math.max(0, next - performance.now()))
    }
  })
  const sampling = (async () => {
    while (!over()) {
      await sleep(Math.min(SAMPLE_EVERY_MS, Math.max(0, end - performance.now())))
      if (!over()) samples.push(await sample(servers, t0))
    }
  })()
  const latencies = await pacedApiLab(url, over)
  await Promise.all([...hoarding, sampling])
  const secs = (performance.now() - t0) / 1000
  const rates = watchers.map((w, i) => (w.messages - counts0[i]!) / secs)
  const resyncs = watchers.map((w, i) => w.resyncs - resyncs0[i]!)
  samples.push(await sample(servers, t0))
  const m1 = await scrape(url)
  process.stdout.write(`${JSON.stringify(samples.at(-1))}\n`)
  return { samples, latencies, rates, resyncs, secs, opened, m0, m1 }
}

/** Growth from the window's first sample: at its end and at its peak. */
function growth(samples: Sample[], pick: (s: Sample) => number | null): { end: number; peak: number } | null {
  const base = pick(samples[0]!)
  const last = pick(samples.at(-1)!)
  const xs = samples.map(pick).filter((x): x is number => x !== null)
  return base === null || last === null || xs.length === 0
    ? null
    : { end: round1(last - base), peak: round1(Math.max(...xs) - base) }
}

/**
 * The largest growth of the server's RSS beyond the control server's at the same moment: max over samples of
 * (rss - rss at the start) - (control rss - control rss at the start).
 */
function growthBeyondControl(samples: Sample[]): number | null {
  const [first] = samples
  if (!first || first.rssMB === null || first.controlRssMB === null) return null
  const xs = samples
    .filter((s) => s.rssMB !== null && s.controlRssMB !== null)
    .map((s) => s.rssMB! - first.rssMB! - (s.controlRssMB! - first.controlRssMB!))
  return round1(Math.max(...xs))
}

/** Each target with its measured value and whether it was met. */
function judge(beyondControl: number | null, minRate: number, p99: number) {
  return {
    rssGrowthMB: {
      value: beyondControl,
      met: beyondControl === null ? null : beyondControl < TARGETS.rssGrowthMB.max,
      target: `< ${TARGETS.rssGrowthMB.max}`,
      of:
        "the server's RSS growth from the window's start beyond the control server's at the same moment, at its " +
        'largest over the samples (the lab alone grows in its first minutes); raw growth in memory.rssGrowthMB',
    },
    messagesPerSecPerClient: {
      value: minRate,
      met: minRate >= TARGETS.messagesPerSecPerClient.min,
      target: `>= ${TARGETS.messagesPerSecPerClient.min}`,
      of: 'the slowest normal client over the window',
    },
    apiLabP99Ms: {
      value: p99,
      met: p99 <= TARGETS.apiLabP99Ms.max,
      target: `<= ${TARGETS.apiLabP99Ms.max}`,
      of: `GET /api/lab, one request every ${API_EVERY_MS} ms through the window`,
    },
  }
}

interface Run {
  loadBefore: number[]
  config: Record<string, unknown>
  crowd: Hoarder[]
  clients: number
  connected: number
  warmupS: number
  baseline: Baseline
  w: Window
  after: Sample
}

/** The result document. */
function report({ loadBefore, config, crowd, clients, connected, warmupS, baseline, w, after }: Run) {
  const rss = growth(w.samples, (s) => s.rssMB)
  const controlRss = growth(w.samples, (s) => s.controlRssMB)
  const beyondControl = growthBeyondControl(w.samples)
  const committed = (t: string) => metric(t, 'eoscope_committed_input_records_total') ?? Number.NaN
  const rejected = (reason: string) =>
    (metric(w.m1, 'eoscope_rejected_requests_total', REJECTED(reason)) ?? 0) -
    (metric(w.m0, 'eoscope_rejected_requests_total', REJECTED(reason)) ?? 0)
  const p99 = round1(quantile(w.latencies, 0.99))
  const minRate = round1(Math.min(...w.rates))
  const lags = w.samples
    .slice(1)
    .map((s) => s.eventLoopLagP99Ms)
    .filter((x): x is number => x !== null)
  const refused: Record<string, number> = {}
  for (const h of crowd) for (const [k, v] of Object.entries(h.refused)) refused[k] = (refused[k] ?? 0) + v
  const targets = judge(beyondControl, minRate, p99)
  const missed = Object.entries(targets)
    .filter(([, t]) => t.met !== true)
    .map(([k]) => k)
  return {
    bench: 'hoard',
    at: new Date().toISOString(),
    machine: {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cpus: os.cpus().length,
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadAverage(),
    },
    backend: 'embedded',
    lab: {
      inputRatePerSec: config.inputRatePerSec,
      guarantee: config['processing.guarantee'],
      workers: config.workers,
      'commit.interval.ms': config['commit.interval.ms'],
    },
    load: {
      hoarders: {
        asked: crowd.length,
        opened: w.opened,
        sessionsOpened: crowd.reduce((n, h) => n + h.opened, 0),
        posts: crowd.reduce((n, h) => n + h.posts, 0),
        refusedByStatus: refused,
        pattern:
          `GET /socket.io/?EIO=4&transport=polling (sid), POST 40, then every ${RESYNC_EVERY_MS} ms ` +
          `POST 42N["resync"] (a pong 3 every ${PONG_EVERY} posts); never a GET`,
      },
      normalClients: { asked: clients, connected, transport: 'polling, upgraded to websocket' },
      windowSec: round1(w.secs),
      warmupSec: warmupS,
      serverEnv: 'default session limits (EOSCOPE_MAX_SESSIONS 1000, _PER_CLIENT 100, _BUFFER_BYTES 1 MiB)',
    },
    memory: {
      samples: w.samples,
      rssGrowthMB: rss,
      controlRssGrowthMB: controlRss,
      rssGrowthBeyondControlMB: beyondControl,
      queuedForSessionsKB: {
        max: Math.max(...w.samples.map((s) => s.queuedKB ?? 0)),
        of: 'eoscope_socket_queued_bytes: what the server holds queued for every session, at its largest sample',
      },
      note:
        "the lab's own RSS grows in steps (tens of MB) in its first minutes, in both servers at their own moments: " +
        'growth beyond the control server is good to about one such step',
      afterHoardersLeft: { secondsAfter: AFTER_MS / 1000, ...after },
    },
    withoutHoarders: {
      ...baseline,
      of: 'the normal clients alone, just before the hoarders came (the machine as it was then)',
    },
    normalClients: {
      messagesPerSec: { min: minRate, median: round1(median(w.rates)), max: round1(Math.max(...w.rates)) },
      resyncs: { total: w.resyncs.reduce((a, b) => a + b, 0), max: Math.max(...w.resyncs) },
    },
    apiLab: {
      p50Ms: round1(quantile(w.latencies, 0.5)),
      p99Ms: p99,
      maxMs: round1(Math.max(...w.latencies)),
      requests: w.latencies.length,
    },
    server: {
      cpuPercent: cpuPercent(w.m0, w.m1, w.secs),
      eventLoopLagP99Ms: {
        median: round1(median(lags)),
        max: Math.max(...lags),
        of: 'per 5-s sample (prom-client resets it at each scrape)',
      },
      sessionsClosedOverBufferCap: rejected('slow_client'),
      handshakesRefusedOverSessionCap: rejected('too_many_sessions'),
      resyncsRateLimited: rejected('rate_limited'),
    },
    throughput: {
      processedPerSec: Math.round((committed(w.m1) - committed(w.m0)) / w.secs),
      of: 'eoscope_committed_input_records_total over the window',
    },
    targets,
    allTargetsMet: missed.length === 0,
    ...(missed.length ? { missed: `target not met: ${missed.join(', ')}` } : {}),
  }
}

async function bench(hoarders: number, clients: number, seconds: number, warmupS: number): Promise<void> {
  const loadBefore = loadAverage()
  const started: ServerProcess[] = []
  let watchers: Watcher[] = []
  const crowd: Hoarder[] = []
  try {
    const [server, control] = await Promise.all([
      startServer({ timeoutMs: 120_000, build: 'any' }),
      startServer({ timeoutMs: 120_000, build: 'any' }),
    ])
    started.push(server, control)
    const { config } = (await (await fetch(`${server.url}/api/lab`)).json()) as { config: Record<string, unknown> }
    process.stdout.write(`servers up; warming up ${warmupS} s\n`)
    await sleep(warmupS * 1000)
    watchers = Array.from({ length: clients }, () => new Watcher(server.url))
    const connected = (await Promise.all(watchers.map((w) => w.connected()))).filter(Boolean).length
    process.stdout.write(`${connected} of ${clients} normal clients connected\n`)
    await sleep(5_000)
    const baseline = await baselineWindow(server.url, watchers, BASELINE_S)
    crowd.push(...Array.from({ length: hoarders }, () => new Hoarder(server.url)))
    const w = await hoardWindow({ server, control }, crowd, watchers, seconds)
    await Promise.all(crowd.map((h) => h.close()))
    process.stdout.write(`hoarders closed; waiting ${AFTER_MS / 1000} s\n`)
    await sleep(AFTER_MS)
    const after = await sample({ server, control }, performance.now() - w.secs * 1000 - AFTER_MS)
    const result = report({ loadBefore, config, crowd, clients, connected, warmupS, baseline, w, after })
    const out = path.join(ROOT, 'bench', 'results', 'hoard.json')
    writeResult(out, result)
    const summary = JSON.stringify({ targets: result.targets, allTargetsMet: result.allTargetsMet }, null, 2)
    process.stdout.write(`${summary}\nwrote ${path.relative(ROOT, out)}\n`)
  } finally {
    await Promise.all(crowd.map((h) => h.close().catch(() => {})))
    for (const w of watchers) w.socket.disconnect()
    await Promise.all(started.map((s) => s.stop()))
  }
}

const line = parseCommandLine(
  {
    program: 'npm run',
    name: 'bench:hoard',
    summary:
      'polling sessions that never fetch beside normal socket clients: server memory, messages per normal client, ' +
      'GET /api/lab latency',
    flags: {
      hoarders: {
        type: 'number',
        meaning: 'polling sessions that never fetch',
        range: { min: 1, max: 500 },
        integer: true,
        default: 60,
      },
      clients: {
        type: 'number',
        meaning: 'normal socket.io clients',
        range: { min: 1, max: 200 },
        integer: true,
        default: 20,
      },
      seconds: {
        type: 'number',
        meaning: 'seconds the hoarders hoard (the measured window)',
        range: { min: 5, max: 600 },
        integer: true,
        default: 60,
      },
      'warmup-s': {
        type: 'number',
        meaning: 'seconds the servers run before the normal clients connect',
        range: { min: 0, max: 600 },
        integer: true,
        default: 20,
      },
    },
  } as const,
  process.argv.slice(2),
)
if (line.help) process.exit(0)
await bench(line.flags.hoarders, line.flags.clients, line.flags.seconds, line.flags['warmup-s'])
process.exit(0)
