// Clickjacking and injected scripts, in real Chromium: a page served from another origin (another
// port) frames the dashboard and the frame must not load it; the dashboard and the experiments page
// run under their Content-Security-Policy with no violation, live (their scripts ran).
// Self-contained: its own server process, its own browser.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STATE_MS } from './page-helpers.ts'
import { waitFor } from './progress.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** `next build` unless the build is newer than every source of the pages. */
function buildIfStale(): void {
  const buildId = path.join(ROOT, '.next', 'BUILD_ID')
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0
  const sources = ['app', 'components', 'lib', 'public', 'next.config.js']
    .map((p) => path.join(ROOT, p))
    .filter((p) => existsSync(p))
  const files = sources.flatMap((p) =>
    statSync(p).isDirectory() ? readdirSync(p, { recursive: true, encoding: 'utf8' }).map((f) => path.join(p, f)) : [p],
  )
  if (built > 0 && files.every((f) => statSync(f).mtimeMs <= built)) return
  if (spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0)
    throw new Error('next build failed')
}

// The dashboard's server process and its output; the framing origin; the browser and its profile.
let child: ChildProcess,
  out = '',
  dashboard: string
let framer: Server, framerUrl: string
let context: BrowserContext, profile: string

beforeAll(async () => {
  buildIfStale()
  const port = await freePort()
  dashboard = `http://127.0.0.1:${port}`
  child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      EOSCOPE_TOKEN: '',
      EOSCOPE_LOCK_READS: '',
      EOSCOPE_ALLOWED_HOSTS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`)
    if (Date.now() > deadline) throw new Error(`server not ready:\n${out}`)
    const ok = await fetch(`${dashboard}/api/lab`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    await new Promise((r) => setTimeout(r, 200))
  }

  // Another origin: the same address, another port. /frame-dashboard frames the lab; /frame-own
  // frames a page of its own (which must load: the harness can tell a loaded frame).
  framer = createHttpServer((req, res) => {
    const frames: Record<string, string> = { '/frame-dashboard': `${dashboard}/`, '/frame-own': '/inner' }
    if (req.url === '/inner') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>inner</title><p id="inner">framed fine</p>')
      return
    }
    const src = frames[req.url ?? '']
    if (!src) return void res.writeHead(404).end()
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!doctype html><title>framer</title><p>Win a prize: click Reset!</p><iframe id="target" src="${src}" ` +
          `width="1200" height="800"></iframe>`,
      )
  })
  await new Promise<void>((r) => framer.listen(0, '127.0.0.1', r))
  framerUrl = `http://127.0.0.1:${(framer.address() as { port: number }).port}`

  profile = mkdtempSync(path.join(tmpdir(), 'eoscope-framing-'))
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}, 300_000)

afterAll(async () => {
  await context?.close().catch(() => {})
  if (profile) rmSync(profile, { recursive: true, force: true })
  await new Promise((r) => (framer ? framer.close(r) : r(undefined)))
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(t)
  }
})

/** A fresh page that records console messages and CSP violations (reported by the page itself). */
async function watchedPage(): Promise<{ page: Page; console: string[]; violations: () => Promise<string[]> }> {
  const page = await context.newPage()
  const console: string[] = []
  page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`))
  page.on('pageerror', (e) => console.push(`pageerror: ${e.message}`))
  await page.addInitScript(() => {
    const seen: string[] = []
    ;(window as unknown as { __cspViolations: string[] }).__cspViolations = seen
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`),
    )
  })
  return {
    page,
    console,
    violations: () => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations),
  }
}

describe('framing', () => {
  it('a page on another origin cannot frame the dashboard', async () => {
    const { page, console } = await watchedPage()
    const served = new Promise<number>((resolve) =>
      page.on('response', (r) => r.url() === `${dashboard}/` && resolve(r.status())),
    )
    await page.goto(`${framerUrl}/frame-dashboard`)
    // The dashboard did answer the frame's request (200, with its headers)...
    expect(await served).toBe(200)
    // ...and the browser refused to show it, saying so on the console: the frame holds no
    // dashboard and no script of it ran. (On a busy machine the refusal comes later, never not.)
    await waitFor(
      () => /frame-ancestors|Refused to (frame|display)/.test(console.join('\n')),
      'the browser to refuse the frame',
      { boundMs: STATE_MS },
    )
    const frame = page.frames().find((f) => f !== page.mainFrame())!
    expect(frame).toBeTruthy()
    expect(frame.url()).not.toBe(`${dashboard}/`)
    const inFrame = await frame
      .evaluate(() => document.querySelector('[data-testid="dashboard"]') !== null)
      .catch(() => false)
    expect(inFrame).toBe(false)
    await page.close()
  })

  it('(the harness tells a loaded frame: a page of the framing origin loads in it)', async () => {
    const { page } = await watchedPage()
    await page.goto(`${framerUrl}/frame-own`)
    const frame = page.frames().find((f) => f !== page.mainFrame())!
    await frame.locator('#inner').waitFor({ timeout: STATE_MS })
    await page.close()
  })
})

describe('the pages under their Content-Security-Policy', () => {
  it.each([
    ['/', 'dashboard'],
    ['/experiments', 'experiments'],
  ])('%s runs live with no CSP violation', async (route, testId) => {
    const { page, console, violations } = await watchedPage()
    // The experiments page asks for the stored experiments once its scripts run.
    const listed =
      testId === 'experiments'
        ? page.waitForResponse((r) => r.url() === `${dashboard}/api/experiments`, { timeout: STATE_MS })
        : null
    const response = await page.goto(`${dashboard}${route}`)
    const csp = response!.headers()['content-security-policy'] ?? ''
    expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/)
    expect(csp).toMatch(/frame-ancestors 'none'/)
    expect(response!.headers()['x-frame-options']).toBe('DENY')
    // Hydrated and live: the page's scripts ran (the socket connected, data arrived).
    await page.getByTestId(testId).waitFor({ timeout: STATE_MS })
    if (testId === 'dashboard')
      await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: STATE_MS }).toContain('live')
    else expect((await listed)!.status()).toBe(200)
    // A second more of the live page (its updates, its lazy chunks) for a late violation to show:
    // a window of observation, not a wait for something, so a busy machine cannot fail it.
    await page.waitForTimeout(1000)
    expect(await violations()).toEqual([])
    expect(console.filter((m) => /Content Security Policy|Refused to (execute|load|apply|connect)/i.test(m))).toEqual(
      [],
    )
    // The theme script (inline, with the nonce) ran before the first paint.
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toMatch(/^(dark|light)$/)
    await page.close()
  })
})
