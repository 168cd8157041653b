// The project's Node for its own commands (scripts/project-node.mjs): the decision, and the real
// thing on this machine's older node where it has one (Debian's /usr/bin/node is 20).

import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { pinnedVersion, requiredMajor, ROOT, tooOld, withNodeOnPath } from './project-node.mjs'

describe("the project's Node", () => {
  it('is too old below the major package.json asks for, and not from it on', () => {
    const major = requiredMajor()
    expect(tooOld('v20.20.2', major)).toBe(true)
    expect(tooOld(`v${major}.0.0`, major)).toBe(false)
    expect(tooOld(`${major + 1}.1.0`, major)).toBe(false)
    expect(pinnedVersion().split('.')[0]).toBe(String(major))
  })

  it('goes first on PATH only when there is one to use', () => {
    const env = { PATH: '/usr/bin' } as unknown as NodeJS.ProcessEnv
    expect(withNodeOnPath(null, env)).toEqual({ PATH: '/usr/bin' })
    expect(withNodeOnPath('/x/.node/bin', env).PATH).toBe(`/x/.node/bin${path.delimiter}/usr/bin`)
  })

  it('runs a command on the project Node whatever node started the wrapper', () => {
    // Debian's node where the machine has it (older than the project's): the wrapper must switch.
    const old = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
      if (!existsSync(p)) return false
      return tooOld(execFileSync(p, ['--version']).toString().trim(), requiredMajor())
    })
    const starter = old ?? process.execPath
    const out = execFileSync(starter, [path.join(ROOT, 'scripts', 'with-node.mjs'), 'node', '--version'], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${path.dirname(starter)}${path.delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
      .toString()
      .trim()
    expect(tooOld(out, requiredMajor())).toBe(false)
  })
})
