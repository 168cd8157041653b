// npm run bench:clients -- [--clients 500] [--window-s 10] [--runs 3] [--rate N]
// Many browsers on one server (a class watching one lab): starts the real server (production build)
// on the embedded lab, measures it with no socket clients, connects N socket.io clients (websocket
// transport, loopback, from two child processes so the clients do not share the server's CPU
// accounting), measures again while they stay, disconnects them and measures once more 60 s later.
// Writes bench/results/clients.json.
//
// Per window (median of --runs windows, with min and max):
// - socket messages per second per client (snapshot and delta events), min and median over clients;
// - GET /api/lab latency, p50 and p99 of requests paced through the window;
// - the server's event-loop lag p99 (prom-client's nodejs_eventloop_lag_p99_seconds, which resets
//   at each scrape: scraped at the window's start and read at its end);
// - processed throughput: the advance of eoscope_committed_input_records_total over the window;
// - resident memory (process_resident_memory_bytes) and V8 heap used at the window's end.
// - with --rate: the input fed and the input lag (eoscope_input_records_total, eoscope_input_lag_records),
//   and whether the lab keeps up with that rate while the clients watch (written to
//   bench/results/clients-rate-N.json; the lab is set to that rate as the controls panel does). No
//   control server then: a second lab at that rate would take the CPU the measured one needs, so
//   memory after the clients left is compared with the server's own idle windows only.
// The lab's own memory grows in its first minutes (logs filling up to their retention), so "RSS back
// after the clients left" compares with an idle server of the same age: a control server started
// beside the measured one, running the same lab, that never gets a socket client.

import { fork, type ChildProcess } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { io as connect, type Socket } from 'socket.io-client'
import { parseCommandLine } from '../server/cli/flags.ts'
import { ROOT, startServer } from '../e2e/server-process.ts'
import { type Spread, median, spread, writeResult } from './figures.ts'
import { keepsUp } from './keeps-up.ts'

const CHILD_URL = 'EOSCOPE_BENCH_CLIENTS_URL'
const CHILD_COUNT = 'EOSCOPE_BENCH_CLIENTS_COUNT'
const CLIENT_PROCESSES = 2
const REQUESTS_PER_WINDOW = 100
const SETTLE_AFTER_LEAVE_MS = 60_000
const TARGETS = {
  messagesPerSecPerClient: { min: 5 },
  apiLabP99Ms: { max: 50 },
  eventLoopLagP99Ms: { max: 50 },
  throughputRatio: { min: 0.9 },
  rssAfterLeaveRatio: { max: 1.1 },
  keepsUp: { fedRatio: 0.95, processedRatio: 0.95, lagSeconds: 1 },
}

type ToChild = { type: 'counts' } | { type: 'leave' }
type FromChild =
  | { type: 'connected'; connected: number; failed: number; errors: string[] }
  | { type: 'counts'; counts: number[]; connected: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round1 = (n: number) => Math.round(n * 10) / 10
const round3 = (n: number) => Math.round(n * 1000) / 1000

// ---- the client side: a child process holding COUNT sockets ----

async function runClientProcess(url: string, count: number): Promise<void> {
  const sockets: Socket[] = []
  const counts = new Array<number>(count).fill(0)
  const errors: string[] = []
  let failed = 0
  for (let start = 0; start < count; start += 25) {
    const batch = Array.from({ length: Math.min(25, count - start) }, (_, j) => {
      const i = start + j
      const s = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true, timeout: 20_000 })
      sockets.push(s)
      s.on('snapshot', () => counts[i]!++)
      s.on('delta', () => counts[i]!++)
      return new Promise<void>((resolve) => {
        s.once('connect', () => resolve())
        s.once('connect_error', (err) => {
          failed++
          if (errors.length < 5) errors.push(err.message)
          resolve()
        })
      })
    })
    await Promise.all(batch)
  }
  const send = (m: FromChild) => process.send!(m)
  send({ type: 'connected', connected: sockets.filter((s) => s.connected).length, failed, errors })
  process.on('message', (m: ToChild) => {
    if (m.type === 'counts')
      send({ type: 'counts', counts: [...counts], connected: sockets.filter((s) => s.connected).length })
    if (m.type === 'leave') {
      for (const s of sockets) s.disconnect()
      setTimeout(() => process.exit(0), 200)
    }
  })
  process.on('disconnect', () => process.exit(0))
}

// ---- the bench side ----

interface ClientProcess {
  child: ChildProcess
  ask(m: ToChild): Promise<FromChild>
}

function startClientProcess(url: string, count: number): { proc: ClientProcess; ready: Promise<FromChild> } {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, [CHILD_URL]: url, [CHILD_COUNT]: String(count) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const next = () =>
    new Promise<FromChild>((resolve, reject) => {
      child.once('message', (m) => resolve(m as FromChild))
      child.once('exit', (code) => reject(new Error(`client process exited with ${code}`)))
    })
  const ready = next()
  return {
    proc: {
      child,
      ask: (m) => {
        const r = next()
        child.send(m)
        return r
      },
    },
    ready,
  }
}

/** One figure from the Prometheus text format (the first sample of that name, without labels). */
function metric(text: string, name: string): number | null {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+|NaN)$`, 'm').exec(text)
  return m ? Number(m[1]) : null
}

async function scrape(url: string): Promise<string> {
  const r = await fetch(`${url}/metrics`)
  if (!r.ok) throw new Error(`/metrics answered ${r.status}`)
  return r.text()
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : NaN
}

/** GET /api/lab every windowMs / REQUESTS_PER_WINDOW, one at a time; the latencies in ms. */
async function pacedRequests(url: string, windowMs: number): Promise<number[]> {
  const latencies: number[] = []
  const every = windowMs / REQUESTS_PER_WINDOW
  const end = performance.now() + windowMs
  let next = performance.now()
  while (performance.now() < end) {
    const t0 = performance.now()
    const r = await fetch(`${url}/api/lab`)
    await r.arrayBuffer()
    if (r.ok) latencies.push(performance.now() - t0)
    next += every
    await sleep(Math.max(0, next - performance.now()))
  }
  return latencies
}

interface Window {
  apiLabP50Ms: number
  apiLabP99Ms: number
  requests: number
  eventLoopLagP99Ms: number | null
  processedPerSec: number
  /** Input records the load generator fed per second (eoscope_input_records_total's advance). */
  fedPerSec: number
  /** eoscope_input_lag_records at the window's end: input not yet committed. */
  inputLagRecords: number | null
  rssMB: number | null
  heapUsedMB: number | null
  /** The control server's (same age, never any client) resident memory at the window's end. */
  controlRssMB: number | null
  /** Per client, messages per second (absent without clients). */
  perClient?: { min: number; median: number; clients: number; silent: number }
}

async function allCounts(procs: ClientProcess[]): Promise<number[]> {
  const replies = await Promise.all(procs.map((p) => p.ask({ type: 'counts' })))
  return replies.flatMap((r) => (r.type === 'counts' ? r.counts : []))
}

const mb = (bytes: number | null) => (bytes === null ? null : round1(bytes / 1024 / 1024))

async function measureWindow({ url, control }: Servers, windowMs: number, procs: ClientProcess[]): Promise<Window> {
  const m0 = await scrape(url)
  const c0 = procs.length ? await allCounts(procs) : []
  const t0 = performance.now()
  const latencies = await pacedRequests(url, windowMs)
  const c1 = procs.length ? await allCounts(procs) : []
  const m1 = await scrape(url)
  const secs = (performance.now() - t0) / 1000
  const committed = (t: string) => metric(t, 'eoscope_committed_input_records_total') ?? NaN
  const fed = (t: string) => metric(t, 'eoscope_input_records_total') ?? NaN
  const lag = metric(m1, 'nodejs_eventloop_lag_p99_seconds')
  const controlMetrics = control === null ? null : await scrape(control)
  const w: Window = {
    apiLabP50Ms: round1(quantile(latencies, 0.5)),
    apiLabP99Ms: round1(quantile(latencies, 0.99)),
    requests: latencies.length,
    eventLoopLagP99Ms: lag === null ? null : round1(lag * 1000),
    processedPerSec: Math.round((committed(m1) - committed(m0)) / secs),
    fedPerSec: Math.round((fed(m1) - fed(m0)) / secs),
    inputLagRecords: metric(m1, 'eoscope_input_lag_records'),
    rssMB: mb(metric(m1, 'process_resident_memory_bytes')),
    heapUsedMB: mb(metric(m1, 'nodejs_heap_size_used_bytes')),
    controlRssMB: controlMetrics === null ? null : mb(metric(controlMetrics, 'process_resident_memory_bytes')),
  }
  if (procs.length) {
    const rates = c1.map((c, i) => (c - (c0[i] ?? 0)) / secs)
    w.perClient = {
      min: round1(Math.min(...rates)),
      median: round1(median(rates)),
      clients: rates.length,
      silent: rates.filter((r) => r === 0).length,
    }
  }
  process.stdout.write(`  window: ${JSON.stringify(w)}\n`)
  return w
}

/** The measured server, and a control server started beside it that never gets a socket client (none with --rate). */
interface Servers {
  url: string
  control: string | null
}

async function measurePhase(
  label: string,
  servers: Servers,
  windowMs: number,
  runs: number,
  procs: ClientProcess[],
): Promise<Window[]> {
  process.stdout.write(`${label}\n`)
  const out: Window[] = []
  for (let i = 0; i < runs; i++) out.push(await measureWindow(servers, windowMs, procs))
  return out
}

const figure = (ws: Window[], pick: (w: Window) => number | null | undefined, round = round1): Spread | null => {
  const xs = ws.map(pick).filter((x): x is number => typeof x === 'number' && Number.isFinite(x))
  return xs.length ? spread(xs, round) : null
}

function summarizePhase(ws: Window[]) {
  return {
    apiLabP50Ms: figure(ws, (w) => w.apiLabP50Ms),
    apiLabP99Ms: figure(ws, (w) => w.apiLabP99Ms),
    eventLoopLagP99Ms: figure(ws, (w) => w.eventLoopLagP99Ms),
    processedPerSec: figure(ws, (w) => w.processedPerSec, Math.round),
    fedPerSec: figure(ws, (w) => w.fedPerSec, Math.round),
    inputLagRecords: figure(ws, (w) => w.inputLagRecords, Math.round),
    rssMB: figure(ws, (w) => w.rssMB),
    heapUsedMB: figure(ws, (w) => w.heapUsedMB),
    controlRssMB: figure(ws, (w) => w.controlRssMB),
    ...(ws[0]?.perClient
      ? {
          messagesPerSecPerClientMin: figure(ws, (w) => w.perClient?.min),
          messagesPerSecPerClientMedian: figure(ws, (w) => w.perClient?.median),
          silentClients: figure(ws, (w) => w.perClient?.silent, Math.round),
        }
      : {}),
    requestsPerWindow: figure(ws, (w) => w.requests, Math.round),
  }
}

type Summary = ReturnType<typeof summarizePhase>

/** Each target with its measured value and whether it was met (null: not measured). */
function judge(
  idle: Summary,
  withClients: Summary,
  after: { rssMB: number | null; controlRssMB: number | null },
  rate: { asked: number; windows: Window[] } | null,
) {
  const target = (value: number | null | undefined, ok: (v: number) => boolean) => ({
    value: value ?? null,
    met: value === null || value === undefined ? null : ok(value),
  })
  const idleTput = idle.processedPerSec?.median ?? null
  return {
    messagesPerSecPerClient: {
      ...target(withClients.messagesPerSecPerClientMin?.min, (v) => v >= TARGETS.messagesPerSecPerClient.min),
      of: 'the slowest client in the worst window',
    },
    apiLabP99Ms: {
      ...target(withClients.apiLabP99Ms?.median, (v) => v <= TARGETS.apiLabP99Ms.max),
      of: 'median over windows',
      worstWindow: withClients.apiLabP99Ms?.max ?? null,
    },
    eventLoopLagP99Ms: {
      ...target(withClients.eventLoopLagP99Ms?.median, (v) => v <= TARGETS.eventLoopLagP99Ms.max),
      of: 'median over windows',
      worstWindow: withClients.eventLoopLagP99Ms?.max ?? null,
    },
    throughputRatio: {
      ...target(
        idleTput && withClients.processedPerSec ? round3(withClients.processedPerSec.median / idleTput) : null,
        (v) => v >= TARGETS.throughputRatio.min,
      ),
      of: 'processed/s with clients ÷ without (medians)',
    },
    ...(rate
      ? { keepsUp: keepsUp(rate.asked, rate.windows, TARGETS.keepsUp) }
      : {
          rssAfterLeaveRatio: {
            ...target(
              after.controlRssMB && after.rssMB ? round3(after.rssMB / after.controlRssMB) : null,
              (v) => v <= TARGETS.rssAfterLeaveRatio.max,
            ),
            of:
              `RSS ${SETTLE_AFTER_LEAVE_MS / 1000} s after the clients left ÷ RSS of the control server (same ` +
              `age, never a client) at that moment`,
          },
        }),
  }
}

const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100)

async function connectClients(
  url: string,
  clients: number,
): Promise<{ procs: ClientProcess[]; connected: number; failed: number; errors: string[] }> {
  const started = Array.from({ length: CLIENT_PROCESSES }, (_, k) =>
    startClientProcess(url, Math.floor(clients / CLIENT_PROCESSES) + (k < clients % CLIENT_PROCESSES ? 1 : 0)),
  )
  const ready = await Promise.all(started.map((s) => s.ready))
  const sum = (f: (r: Extract<FromChild, { type: 'connected' }>) => number) =>
    ready.reduce((a, r) => a + (r.type === 'connected' ? f(r) : 0), 0)
  return {
    procs: started.map((s) => s.proc),
    connected: sum((r) => r.connected),
    failed: sum((r) => r.failed),
    errors: ready.flatMap((r) => (r.type === 'connected' ? r.errors : [])),
  }
}

async function leave(procs: ClientProcess[]): Promise<void> {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.child.exitCode !== null) return resolve()
          p.child.once('exit', () => resolve())
          p.child.send({ type: 'leave' } satisfies ToChild)
          setTimeout(() => {
            p.child.kill('SIGKILL')
            resolve()
          }, 10_000)
        }),
    ),
  )
}

/** Sets a server's lab to an input rate as the controls panel does (POST /api/lab/config); refused: an error. */
async function setInputRate(url: string, rate: number): Promise<void> {
  const r = await fetch(`${url}/api/lab/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputRatePerSec: rate }),
  })
  const body = (await r.json().catch(() => null)) as { ok?: boolean } | null
  if (!r.ok || body?.ok !== true)
    throw new Error(`the lab at ${url} refused inputRatePerSec ${rate}: ${r.status} ${JSON.stringify(body)}`)
}

async function bench(clients: number, windowMs: number, runs: number, rate: number | undefined): Promise<void> {
  const loadBefore = loadAverage()
  // Every client comes from loopback: the session caps (EOSCOPE_MAX_SESSIONS*, default 100 per address) must
  // admit them all.
  const env = {
    EOSCOPE_MAX_SESSIONS: String(Math.max(1000, clients + 20)),
    EOSCOPE_MAX_SESSIONS_PER_CLIENT: String(clients + 20),
  }
  const [server, controlServer] = await Promise.all([
    startServer({ timeoutMs: 60_000, env }),
    rate === undefined ? startServer({ timeoutMs: 60_000, env }) : null,
  ])
  const servers: Servers = { url: server.url, control: controlServer?.url ?? null }
  let procs: ClientProcess[] = []
  try {
    await sleep(5_000) // the lab's first seconds: workers joining, the first commits
    if (rate !== undefined) {
      // The lab at the rate, then its first seconds at it.
      await setInputRate(server.url, rate)
      await sleep(5_000)
    }
    const { config } = (await (await fetch(`${server.url}/api/lab`)).json()) as { config: Record<string, unknown> }
    const idle = await measurePhase('no clients', servers, windowMs, runs, [])
    const conn = await connectClients(server.url, clients)
    procs = conn.procs
    const failed = `${conn.failed} failed${conn.errors.length ? `: ${conn.errors.join('; ')}` : ''}`
    process.stdout.write(`${conn.connected} of ${clients} clients connected (${failed})\n`)
    await sleep(3_000)
    const held = await measurePhase(`${conn.connected} clients`, servers, windowMs, runs, procs)
    await leave(procs)
    procs = []
    process.stdout.write(`clients left; waiting ${SETTLE_AFTER_LEAVE_MS / 1000} s\n`)
    await sleep(SETTLE_AFTER_LEAVE_MS)
    const afterWindows = await measurePhase('after the clients left', servers, windowMs, 1, [])
    const [idleS, heldS] = [summarizePhase(idle), summarizePhase(held)]
    const a = afterWindows[0]!
    const after = {
      rssMB: a.rssMB,
      heapUsedMB: a.heapUsedMB,
      controlRssMB: a.controlRssMB,
      rssVsOwnIdle: a.rssMB && idleS.rssMB ? round3(a.rssMB / idleS.rssMB.median) : null,
      processedPerSec: a.processedPerSec,
      secondsAfterLeave: SETTLE_AFTER_LEAVE_MS / 1000 + windowMs / 1000,
    }
    const progress =
      held.every((w) => w.perClient && w.perClient.clients > 0 && w.perClient.median > 0) && conn.connected > 0
    const targets = judge(idleS, heldS, after, rate === undefined ? null : { asked: rate, windows: held })
    const result = {
      bench: 'clients',
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
        inputRatePerSec: rate ?? config.inputRatePerSec,
        guarantee: config['processing.guarantee'],
        workers: config.workers,
        'commit.interval.ms': config['commit.interval.ms'],
        note:
          rate === undefined
            ? "the dashboard's default lab, as a class would watch it"
            : `the dashboard's default lab with its input rate set to ${rate}/s from the controls (POST ` +
              `/api/lab/config), as a class would watch it`,
      },
      clients: {
        asked: clients,
        connected: conn.connected,
        failed: conn.failed,
        errors: conn.errors,
        processes: CLIENT_PROCESSES,
        transport: 'websocket',
      },
      windowSec: windowMs / 1000,
      runs,
      progress: progress
        ? 'clients received messages in every window'
        : 'NO PROGRESS: some window had no clients or no messages; the figures below are not a measurement of N ' +
          'clients',
      idle: idleS,
      withClients: heldS,
      afterLeave: after,
      targets,
      allTargetsMet: progress && Object.values(targets).every((t) => t.met === true),
    }
    const out = path.join(ROOT, 'bench', 'results', rate === undefined ? 'clients.json' : `clients-rate-${rate}.json`)
    writeResult(out, result)
    process.stdout.write(
      `${JSON.stringify({ progress: result.progress, targets, allTargetsMet: result.allTargetsMet }, null, 2)}\n` +
        `wrote ${path.relative(ROOT, out)}\n`,
    )
  } finally {
    await leave(procs)
    await Promise.all([server.stop(), controlServer?.stop()])
  }
}

if (process.env[CHILD_URL]) {
  await runClientProcess(process.env[CHILD_URL]!, Number(process.env[CHILD_COUNT] ?? 0))
} else {
  const line = parseCommandLine(
    {
      program: 'npm run',
      name: 'bench:clients',
      summary:
        'many socket clients on one server: messages per client, GET /api/lab latency, event-loop lag, ' +
        'throughput, memory',
      flags: {
        clients: {
          type: 'number',
          meaning: 'socket.io clients to connect',
          range: { min: 1, max: 5_000 },
          integer: true,
          default: 500,
        },
        'window-s': {
          type: 'number',
          meaning: 'seconds per measurement window',
          range: { min: 2, max: 600 },
          integer: false,
          default: 10,
        },
        runs: {
          type: 'number',
          meaning: 'windows per phase (median, min, max)',
          range: { min: 1, max: 20 },
          integer: true,
          default: 3,
        },
        rate: {
          type: 'number',
          meaning:
            "input records/s of both servers' labs while measured, and whether the lab keeps up with it " +
            "(absent: the lab's default rate)",
          range: { min: 1, max: 200_000 },
          integer: true,
        },
      },
    } as const,
    process.argv.slice(2),
  )
  if (line.help) process.exit(0)
  await bench(line.flags.clients, line.flags['window-s'] * 1000, line.flags.runs, line.flags.rate)
  process.exit(0)
}
