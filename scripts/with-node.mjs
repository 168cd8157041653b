#!/usr/bin/env node
// node scripts/with-node.mjs COMMAND [ARGS...]: runs COMMAND with the project's Node first on PATH
// (scripts/project-node.mjs), passing signals on and exiting with its status. `npm test` runs
// through it, so a machine with an older node needs no other command.

import { spawn } from 'node:child_process'
import { projectNodeDir, ROOT, withNodeOnPath } from './project-node.mjs'

const [command, ...args] = process.argv.slice(2)
if (!command) {
  process.stderr.write('usage: node scripts/with-node.mjs COMMAND [ARGS...]\n')
  process.exit(2)
}
let dir
try {
  dir = projectNodeDir()
} catch (e) {
  process.stderr.write(`eoscope: ${e.message}\n`)
  process.exit(1)
}
const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', env: withNodeOnPath(dir) })
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
child.on('error', (err) => {
  process.stderr.write(`eoscope: cannot run ${command}: ${err.message}\n`)
  process.exit(1)
})
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
