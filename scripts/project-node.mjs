// The project's Node for its own commands, whatever node the machine puts first on PATH. eoscope
// runs on the Node line package.json's engines names; on a machine whose node is older (Debian's
// is 20), `npm start`, `npm test` and `npx eoscope` fetch that line from the npm registry into
// .node/ inside the checkout (scripts/install-node.sh, nothing outside it) and run on it, saying so
// in one line. Plain ES modules and Node built-ins only: this file runs on the old node.

import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The major version package.json's engines asks for (">=24" → 24). */
export function requiredMajor(root = ROOT) {
  const engines = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node
  return Number(/\d+/.exec(engines)[0])
}

/** The exact version scripts/install-node.sh fetches (its NODE_LTS_VERSION line). */
export function pinnedVersion(root = ROOT) {
  const m = /^NODE_LTS_VERSION=(\d+\.\d+\.\d+)$/m.exec(
    readFileSync(path.join(root, 'scripts', 'install-node.sh'), 'utf8'),
  )
  if (!m) throw new Error('scripts/install-node.sh has no NODE_LTS_VERSION=x.y.z line')
  return m[1]
}

/** Whether a node of `version` ("v20.20.2" or "20.20.2") is too old for the project. */
export function tooOld(version, major) {
  return Number(String(version).replace(/^v/, '').split('.')[0]) < major
}

/**
 * The directory of the project's node binary when the running one is too old (fetched first when
 * .node/ does not hold it yet), or null when the running node will do.
 */
export function projectNodeDir(root = ROOT, log = (line) => process.stderr.write(`${line}\n`)) {
  const major = requiredMajor(root)
  if (!tooOld(process.version, major)) return null
  const version = pinnedVersion(root)
  const dir = path.join(root, '.node', version, 'bin')
  if (!existsSync(path.join(dir, 'node'))) {
    log(`eoscope: this machine's node is ${process.version}; fetching Node ${version} into .node/ (once)`)
    const r = spawnSync('bash', [path.join(root, 'scripts', 'install-node.sh')], { stdio: ['ignore', 2, 2] })
    if (r.status !== 0 || !existsSync(path.join(dir, 'node')))
      throw new Error(
        `could not fetch Node ${version} (scripts/install-node.sh exited ${r.status}); install Node ${major}`,
      )
  }
  log(`eoscope: running on Node ${version} from .node/ (this machine's node is ${process.version})`)
  return dir
}

/** The environment with `dir` first on PATH (unchanged for null). */
export function withNodeOnPath(dir, env = process.env) {
  return dir === null ? env : { ...env, PATH: `${dir}${path.delimiter}${env.PATH ?? ''}` }
}
