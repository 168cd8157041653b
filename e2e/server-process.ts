// The real eoscope server as a child process on a free port, for browser tests and the ui bench.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

export interface ServerProcess {
  url: string
  output(): string
  stop(): Promise<void>
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** Newest modification time under the given paths (files or directories). */
function newestMtime(paths: string[]): number {
  let newest = 0
  const visit = (p: string) => {
    if (!existsSync(p)) return
    const st = statSync(p)
    if (st.isDirectory()) for (const e of readdirSync(p)) visit(path.join(p, e))
    else newest = Math.max(newest, st.mtimeMs)
  }
  paths.forEach(visit)
  return newest
}

/** Runs `next build` when there is no production build, or when the page's sources are newer. */
export function ensureBuild(): void {
  const buildId = path.join(ROOT, '.next', 'BUILD_ID')
  const sources = ['app', 'components', 'lib', 'public', 'next.config.js'].map((p) => path.join(ROOT, p))
  if (existsSync(buildId) && statSync(buildId).mtimeMs >= newestMtime(sources)) return
  const r = spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit' })
  if (r.status !== 0) throw new Error('next build failed')
}

export interface StartOptions {
  /** The server's environment, over HOST=127.0.0.1, NODE_ENV=production and a free PORT. */
  env?: Record<string, string>
  /** A generous bound on the start (a busy machine starts slowly); a server that exits fails at once. Default 120 s. */
  timeoutMs?: number
  /** Sent as a bearer token while waiting for GET /api/lab (a server with its reads locked). */
  token?: string
  /**
   * 'answers': ready once GET /api/lab answers 200; 'logged-start': once it logs its
   * start line (a server whose reads are locked).
   */
  readyWhen?: 'answers' | 'logged-start'
  /** 'fresh': build when the page's sources are newer than the build; 'any': any production build will do. */
  build?: 'fresh' | 'any'
}

/** Starts `node --import tsx server/index.ts` and resolves once it is ready (see StartOptions). */
export async function startServer({
  env = {},
  timeoutMs = 120_000,
  token,
  readyWhen = 'answers',
  build = 'fresh',
}: StartOptions = {}): Promise<ServerProcess> {
  if (build === 'fresh' || !existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) ensureBuild()
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const url = `http://127.0.0.1:${port}`
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  const ready = async () =>
    readyWhen === 'logged-start'
      ? /"event":"start"/.test(out)
      : fetch(`${url}/api/lab`, { headers }).then(
          (r) => r.ok,
          () => false,
        )
  const deadline = Date.now() + timeoutMs
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server not ready within ${timeoutMs} ms:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    url,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(t)
    },
  }
}
