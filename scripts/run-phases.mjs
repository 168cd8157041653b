#!/usr/bin/env node
// node scripts/run-phases.mjs SCRIPT [SCRIPT...]: runs each npm script in order, stopping at the
// first that fails, and prints how long each took, so a slow suite is seen where it is (npm test
// runs its suites through it; CI's log then shows every phase's duration).

import { spawnSync } from 'node:child_process'

const scripts = process.argv.slice(2)
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const took = []
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`
let status = 0
for (const script of scripts) {
  const t0 = Date.now()
  const r = spawnSync(npm, ['run', '--silent', script], { stdio: 'inherit' })
  status = r.status ?? 1
  took.push([script, Date.now() - t0, status])
  process.stdout.write(
    `== phase ${script}: ${seconds(Date.now() - t0)}${status === 0 ? '' : ` (failed: exit ${status})`}\n`,
  )
  if (status !== 0) break
}
const total = took.reduce((a, [, ms]) => a + ms, 0)
process.stdout.write(`== phases: ${took.map(([s, ms]) => `${s} ${seconds(ms)}`).join(', ')}; total ${seconds(total)}\n`)
process.exit(status)
