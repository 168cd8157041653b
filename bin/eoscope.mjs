#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, on the project's Node: on an older node (Debian's
// is 20) it runs itself again on the Node that scripts/project-node.mjs fetches into .node/.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { projectNodeDir } from '../scripts/project-node.mjs'

let dir
try {
  dir = projectNodeDir()
} catch (e) {
  process.stderr.write(`eoscope: ${e.message}\n`)
  process.exit(1)
}
if (dir !== null) {
  const r = spawnSync(path.join(dir, 'node'), process.argv.slice(1), { stdio: 'inherit' })
  process.exit(r.status ?? 1)
}
const { register } = await import('tsx/esm/api')
register()
await import('../server/cli/main.ts')
