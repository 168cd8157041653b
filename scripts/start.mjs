#!/usr/bin/env node
// `npm start`: builds the production bundle when there is none yet, then runs the server.
//
// One SIGTERM (or SIGINT, SIGHUP) to any process of `npm start` ends them all: this script passes
// the signals it gets to its child (the build, then the server) and exits when the child does; the
// server's exit ends this script, and npm with it. npm itself does not pass SIGTERM on to its
// script (it dies and its shell with it), so this script also watches the processes that started
// it: once its parent, or npm above the shell, is gone, it stops the server as if signalled.

import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'
import { projectNodeDir, withNodeOnPath } from './project-node.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

// eoscope runs on the Node LTS line package.json's engines names: on an older node this script
// fetches that line into .node/ once and runs the build and the server on it (scripts/project-node.mjs).
let nodeDir
try {
  nodeDir = projectNodeDir(root)
} catch (e) {
  process.stderr.write(`eoscope: ${e.message}\n`)
  process.exit(1)
}
const childEnv = withNodeOnPath(nodeDir)
const nodeExec = nodeDir === null ? process.execPath : path.join(nodeDir, 'node')
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP']
const WATCH_MS = 250

/** The parent of a process (Linux /proc), or null. */
function parentOf(pid) {
  try {
    // The command name may hold spaces and parentheses: the fields after its last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    return Number.isInteger(ppid) && ppid > 1 ? ppid : null
  } catch {
    return null
  }
}

const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e.code === 'EPERM'
  }
}

let child = null
let stopping = null

function stop(signal) {
  if (stopping) return
  stopping = signal
  if (child && child.exitCode === null && child.signalCode === null) child.kill(signal)
  else process.exit(1)
}
for (const signal of SIGNALS) process.on(signal, () => stop(signal))

const commandName = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}

// Who started this script: its parent, and under npm the npm process above the script's shell.
const parent = process.ppid
const watched = [parent]
if (process.env.npm_lifecycle_event && ['sh', 'dash', 'bash', 'zsh'].includes(commandName(parent))) {
  const above = parentOf(parent)
  if (above !== null) watched.push(above)
}
const watch = setInterval(() => {
  if (process.ppid !== parent || watched.some((pid) => !alive(pid))) stop('SIGTERM')
}, WATCH_MS)
watch.unref()

/** Runs a child with this script's stdio; resolves with its exit status (signals map to 1). */
function run(command, args) {
  return new Promise((resolve) => {
    child = spawn(command, args, { cwd: root, stdio: 'inherit', env: childEnv })
    child.on('error', (err) => {
      console.error(`eoscope: cannot run ${command}: ${err.message}`)
      resolve(1)
    })
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)))
  })
}

if (!existsSync(path.join(root, '.next', 'BUILD_ID'))) {
  console.log('No production build found: running `npm run build` first.')
  const status = await run(npm, ['run', 'build'])
  if (status !== 0 || stopping) process.exit(status || 1)
}

process.exit(await run(nodeExec, ['--import', 'tsx', 'server/index.ts', ...process.argv.slice(2)]))
