// `npm start` and signals: one SIGTERM to any of its processes (npm, its shell, scripts/start.mjs,
// the server) ends them all, leaving no orphan. Run on a copy of the start script in a scratch
// project whose "server" only waits for a signal (the real one needs a Next build).

import { spawn, type ChildProcess } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const STUB_SERVER = `import { writeFileSync } from 'node:fs'
writeFileSync('server.pids', JSON.stringify({ server: process.pid, start: process.ppid }))
process.on('SIGTERM', () => process.exit(0))
process.on('SIGINT', () => process.exit(0))
setInterval(() => {}, 1000)
`

/** The parent of a process from /proc; null once it is gone. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return null
  }
}

/** True while the process runs (a zombie waiting to be reaped has ended). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

const dirs: string[] = []
const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL')
    } catch {
      // the group is gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** `npm start` in a scratch project; resolves with the pids of npm, its shell, start.mjs and the server. */
async function npmStart(): Promise<{ npm: number; shell: number | null; start: number; server: number; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eoscope-start-'))
  dirs.push(dir)
  mkdirSync(path.join(dir, 'scripts'))
  mkdirSync(path.join(dir, 'server'))
  mkdirSync(path.join(dir, '.next'))
  copyFileSync(path.join(ROOT, 'scripts', 'start.mjs'), path.join(dir, 'scripts', 'start.mjs'))
  copyFileSync(path.join(ROOT, 'scripts', 'project-node.mjs'), path.join(dir, 'scripts', 'project-node.mjs'))
  writeFileSync(path.join(dir, '.next', 'BUILD_ID'), 'test\n')
  writeFileSync(path.join(dir, 'server', 'index.ts'), STUB_SERVER)
  // start.mjs reads the Node line from package.json's engines, as in the project.
  const { engines } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: unknown }
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'start-test',
      private: true,
      type: 'module',
      engines,
      scripts: { start: 'node scripts/start.mjs' },
    }),
  )
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'))
  const child = spawn('npm', ['start'], { cwd: dir, detached: true, stdio: 'ignore' })
  children.push(child)
  const pidsFile = path.join(dir, 'server.pids')
  const deadline = Date.now() + 60_000
  while (!existsSync(pidsFile) || readFileSync(pidsFile, 'utf8') === '') {
    if (Date.now() > deadline) throw new Error('the stub server did not start')
    await new Promise((r) => setTimeout(r, 100))
  }
  const { server, start } = JSON.parse(readFileSync(pidsFile, 'utf8')) as { server: number; start: number }
  const above = parentOf(start)
  return { npm: child.pid!, shell: above !== null && above !== child.pid ? above : null, start, server, dir }
}

async function allGone(pids: number[], timeoutMs = 20_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left = pids.filter(running)
    if (left.length === 0 || Date.now() > deadline) return left
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('npm start', () => {
  it.each(['npm', 'shell', 'start', 'server'] as const)(
    'ends every process after one SIGTERM to %s',
    async (target) => {
      const pids = await npmStart()
      const all = [pids.npm, pids.shell, pids.start, pids.server].filter((p): p is number => p !== null)
      expect(all.every(running)).toBe(true)
      const victim = pids[target]
      if (victim === null) return // npm ran the script without a shell: nothing to signal there
      process.kill(victim, 'SIGTERM')
      expect(await allGone(all)).toEqual([])
    },
    90_000,
  )
})
