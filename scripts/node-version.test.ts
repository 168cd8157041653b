// The Node line eoscope runs on is written where each tool reads it: package.json's engines (npm,
// and scripts/start.mjs reads it from there), .nvmrc (nvm, fnm), scripts/install-node.sh (the
// exact version CI and developers fetch from the npm registry) and the Dockerfile's base image.
// They must name the same major: a move to the next LTS line that misses one of them fails here.

import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

/** The major each place names, or what it holds instead when it names none. */
function majors(): Record<string, string> {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node
  const lock = (JSON.parse(read('package-lock.json')) as { packages: { '': { engines: { node: string } } } }).packages[
    ''
  ].engines.node
  return {
    'package.json engines': /^>=(\d+)$/.exec(engines)?.[1] ?? engines,
    'package-lock.json engines': /^>=(\d+)$/.exec(lock)?.[1] ?? lock,
    '.nvmrc': read('.nvmrc').trim(),
    'scripts/install-node.sh':
      /^NODE_LTS_VERSION=(\d+)\.\d+\.\d+$/m.exec(read('scripts/install-node.sh'))?.[1] ??
      'no NODE_LTS_VERSION=x.y.z line',
    Dockerfile: /^FROM node:(\d+)-/m.exec(read('Dockerfile'))?.[1] ?? 'no FROM node:<major>- line',
  }
}

describe('the Node version', () => {
  it('is the same major in package.json, its lock, .nvmrc, install-node.sh and the Dockerfile', () => {
    const found = majors()
    const major = found['package.json engines']
    expect(major).toMatch(/^\d+$/)
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, major])))
  })

  it('is not written in the scripts that fetch it, which read it from package.json and install-node.sh', () => {
    const projectNode = read('scripts/project-node.mjs')
    expect(projectNode).toContain('engines.node')
    expect(projectNode).toContain('NODE_LTS_VERSION')
    expect(read('scripts/start.mjs')).toContain("from './project-node.mjs'")
    expect(read('bin/eoscope.mjs')).toContain("from '../scripts/project-node.mjs'")
  })
})
