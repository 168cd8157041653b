// UI responsiveness bench (docs/measures.md, "UI responsiveness"): drives the dashboard in Chromium for
// 30 s with the engine at full speed and writes bench/results/ui.json.
//
//   npm run bench:ui            (BENCH_UI_SECONDS=30; BENCH_UI_RATE=10000 by default: about the most
//                                the embedded engine keeps up with on 2 cores with a browser beside
//                                it; above that it falls behind and starves the browser of CPU.
//                                The result records the processed throughput, so a reader can tell.)
//
// - frames per second: counted with requestAnimationFrame in the page, per 10 s window;
// - socket messages and bytes per second for this browser: every WebSocket frame the page
//   receives, from the DevTools protocol (Network.webSocketFrameReceived), with its payload bytes
//   (after permessage-deflate is undone), and the wire bytes the socket connection really carried,
//   counted by a TCP relay between the browser and the server;
// - time to first data: navigation start → the performance mark the page sets when the first
//   live snapshot is on screen, over three fresh page loads.
// Each figure: median of the windows (or loads) with min and max.

import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { FIRST_DATA_MARK } from '../components/perf-marks.ts'
import type { CDPSession, Page } from 'playwright-core'
import { launchBrowser, type Browser } from '../e2e/browser.ts'
import { ROOT, startServer } from '../e2e/server-process.ts'
import { type Spread, spread, writeResult } from './figures.ts'

const SECONDS = Number(process.env.BENCH_UI_SECONDS ?? 30)
const WINDOWS = 3
const RATE = Number(process.env.BENCH_UI_RATE ?? 10_000)
const TARGETS = {
  fps: { min: 50 },
  messagesPerSec: { max: 20 },
  bytesPerSec: { max: 50 * 1024 },
  firstDataMs: { max: 2000 },
}

/** A TCP relay that counts the bytes the server sends on socket.io connections. */
async function countingRelay(target: URL): Promise<{ url: string; socketBytes: () => number; close: () => void }> {
  let socketBytes = 0
  const relay = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname)
    let isSocketIo: boolean | null = null
    client.on('data', (chunk: Buffer) => {
      if (isSocketIo === null) isSocketIo = chunk.subarray(0, 64).toString('latin1').includes(' /socket.io/')
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      if (isSocketIo) socketBytes += chunk.length
      client.write(chunk)
    })
    const end = () => {
      client.destroy()
      upstream.destroy()
    }
    client.on('close', end).on('error', end)
    upstream.on('close', end).on('error', end)
  })
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r))
  const port = (relay.address() as net.AddressInfo).port
  return { url: `http://127.0.0.1:${port}`, socketBytes: () => socketBytes, close: () => relay.close() }
}

const round1 = (n: number) => Math.round(n * 10) / 10
const summarize = (samples: number[]): Spread => spread(samples, round1)

/** Time to first data over three fresh page loads: navigation start to the page's first-data mark. */
async function timeToFirstData(browser: Browser, url: string): Promise<number[]> {
  const firstData: number[] = []
  for (let i = 0; i < 3; i++) {
    const p = await browser.context.newPage()
    await p.goto(url)
    await p.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, FIRST_DATA_MARK, {
      timeout: 15_000,
    })
    firstData.push(await p.evaluate((mark) => performance.getEntriesByName(mark)[0]!.startTime, FIRST_DATA_MARK))
    await p.close()
  }
  return firstData
}

/** Running totals of the WebSocket frames a page receives, from the DevTools protocol. */
interface SocketFrames {
  frames: number
  bytes: number
  /** socket.io events (snapshots and deltas). */
  events: number
}

function countSocketFrames(cdp: CDPSession): SocketFrames {
  const counts: SocketFrames = { frames: 0, bytes: 0, events: 0 }
  cdp.on('Network.webSocketFrameReceived', (e: { response: { opcode: number; payloadData: string } }) => {
    counts.frames++
    // Text frames carry the payload as is; binary ones base64-encoded.
    counts.bytes +=
      e.response.opcode === 1
        ? Buffer.byteLength(e.response.payloadData)
        : Math.floor((e.response.payloadData.length * 3) / 4)
    if (e.response.payloadData.startsWith('42')) counts.events++
  })
  return counts
}

/** Frames counted in the page. (A string, so the bundler's helpers never leak into the page.) */
async function countFrames(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.__benchFrames = 0
    const loop = () => { window.__benchFrames++; requestAnimationFrame(loop) }
    requestAnimationFrame(loop)
  })()`)
}

interface WindowRates {
  fps: number[]
  msgs: number[]
  bps: number[]
  eventRates: number[]
  wire: number[]
}

/** Per window: frames drawn, socket messages, payload bytes, events and wire bytes per second. */
async function measureWindows(
  page: Page,
  socket: SocketFrames,
  socketBytes: () => number,
  windowMs: number,
): Promise<WindowRates> {
  const rates: WindowRates = { fps: [], msgs: [], bps: [], eventRates: [], wire: [] }
  for (let w = 0; w < WINDOWS; w++) {
    const f0 = Number(await page.evaluate('window.__benchFrames'))
    const [m0, b0, e0, w0, t0] = [socket.frames, socket.bytes, socket.events, socketBytes(), performance.now()]
    await page.waitForTimeout(windowMs)
    const f1 = Number(await page.evaluate('window.__benchFrames'))
    const secs = (performance.now() - t0) / 1000
    rates.fps.push((f1 - f0) / secs)
    rates.msgs.push((socket.frames - m0) / secs)
    rates.bps.push((socket.bytes - b0) / secs)
    rates.eventRates.push((socket.events - e0) / secs)
    rates.wire.push((socketBytes() - w0) / secs)
  }
  return rates
}

async function main(): Promise<void> {
  const server = await startServer()
  const browser = await launchBrowser({ width: 1440, height: 1000 })
  const relay = await countingRelay(new URL(server.url))
  try {
    const setRate = await fetch(`${server.url}/api/lab/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputRatePerSec: RATE }),
    })
    if (!setRate.ok) throw new Error(`could not set the input rate: ${await setRate.text()}`)
    const firstData = await timeToFirstData(browser, server.url)

    const page = await browser.context.newPage()
    const cdp = await browser.context.newCDPSession(page)
    await cdp.send('Network.enable')
    const socket = countSocketFrames(cdp)
    await page.goto(relay.url)
    await page.getByTestId('dashboard').waitFor({ timeout: 15_000 })
    await page.waitForTimeout(1000)
    await countFrames(page)
    await cdp.send('Performance.enable')
    const metrics = async () =>
      Object.fromEntries(
        ((await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] }).metrics.map(
          (m) => [m.name, m.value],
        ),
      )
    const m0 = await metrics()
    const windowMs = (SECONDS * 1000) / WINDOWS
    const { fps, msgs, bps, eventRates, wire } = await measureWindows(page, socket, relay.socketBytes, windowMs)
    const m1 = await metrics()
    // Share of the page's main thread spent per kind of work over the run.
    const busy = Object.fromEntries(
      ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration'].map((k) => [
        k.replace('Duration', ''),
        Math.round(((m1[k]! - m0[k]!) / SECONDS) * 1000) / 10,
      ]),
    )
    const lab = (await (await fetch(`${server.url}/api/lab`)).json()) as {
      series: { processedPerSec: number }[]
      config: Record<string, unknown>
    }
    const processed = lab.series.slice(-20).map((p) => p.processedPerSec)
    await page.screenshot({ path: path.join(ROOT, 'test-results', 'bench-ui.png'), fullPage: false }).catch(() => {})

    const result = {
      bench: 'ui',
      at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.release()}` },
      browser: 'Debian chromium, headless, via playwright-core',
      durationSec: SECONDS,
      windowMs,
      engine: {
        inputRatePerSec: lab.config.inputRatePerSec,
        guarantee: lab.config['processing.guarantee'],
        processedPerSec: summarize(processed.length ? processed : [0]),
      },
      fps: summarize(fps),
      socketMessagesPerSec: summarize(msgs),
      socketSnapshotEventsPerSec: summarize(eventRates),
      socketBytesPerSec: summarize(wire),
      socketPayloadBytesPerSec: summarize(bps),
      firstDataMs: summarize(firstData),
      mainThreadBusyPercent: busy,
      targets: TARGETS,
      pass: {
        fps: summarize(fps).median >= TARGETS.fps.min,
        messagesPerSec: summarize(msgs).median <= TARGETS.messagesPerSec.max,
        bytesPerSec: summarize(wire).median <= TARGETS.bytesPerSec.max,
        firstDataMs: summarize(firstData).median <= TARGETS.firstDataMs.max,
      },
    }
    const out = path.join(ROOT, 'bench', 'results', 'ui.json')
    writeResult(out, result)
    console.log(
      JSON.stringify(
        {
          fps: result.fps,
          socketMessagesPerSec: result.socketMessagesPerSec,
          socketBytesPerSec: result.socketBytesPerSec,
          socketPayloadBytesPerSec: result.socketPayloadBytesPerSec,
          firstDataMs: result.firstDataMs,
          engine: result.engine,
          pass: result.pass,
        },
        null,
        2,
      ),
    )
    console.log(`wrote ${path.relative(ROOT, out)}`)
  } finally {
    relay.close()
    await browser.close()
    await server.stop()
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
