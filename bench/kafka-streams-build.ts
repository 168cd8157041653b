// The Kafka Streams yardstick's tools: whether Java and Maven are here, and its jar, built with
// mvn once and rebuilt only when the pom or a source is newer than the jar.

import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

export const PROJECT = path.resolve(import.meta.dirname, 'kafka-streams')
const JAR = path.join(PROJECT, 'target', 'kafka-streams-yardstick.jar')
const LIB = path.join(PROJECT, 'target', 'lib')
/** The Kafka Streams version the pom names (kept with the broker's, scripts/kafka/pom.xml). */
export const KAFKA_STREAMS_VERSION = '4.1.1'

export type Yardstick = { ready: 'yes'; java: string; classPath: string } | { ready: 'no'; reason: string }

/** The first line a tool prints for its version, or null when it does not run. */
function toolVersion(command: string, args: string[]): string | null {
  const r = spawnSync(command, args, { encoding: 'utf8' })
  if (r.error || r.status !== 0) return null
  return (
    `${r.stdout}${r.stderr}`
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  )
}

function newestSource(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : statSync(p).mtimeMs)
  }
  return newest
}

function upToDate(): boolean {
  if (!existsSync(JAR) || !existsSync(LIB)) return false
  const sources = Math.max(statSync(path.join(PROJECT, 'pom.xml')).mtimeMs, newestSource(path.join(PROJECT, 'src')))
  return statSync(JAR).mtimeMs >= sources
}

/** Java and Maven present, the jar built (once): the class path to run it with; else why not. */
export function prepareYardstick(): Yardstick {
  const java = toolVersion('java', ['-version'])
  const mvn = toolVersion('mvn', ['-v'])
  if (java === null || mvn === null)
    return { ready: 'no', reason: `skipped: no java/mvn (${java === null ? 'java' : 'mvn'} not found)` }
  if (!upToDate()) {
    process.stdout.write(
      `building the Kafka Streams yardstick (mvn -q package -DskipTests in ${path.relative(process.cwd(), PROJECT)})\n`,
    )
    const r = spawnSync('mvn', ['-q', '-B', '-Dstyle.color=never', 'package', '-DskipTests'], {
      cwd: PROJECT,
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    if (r.error || r.status !== 0)
      return { ready: 'no', reason: `skipped: mvn package failed (${r.error?.message ?? `exit ${r.status}`})` }
  }
  return { ready: 'yes', java, classPath: `${JAR}${path.delimiter}${path.join(LIB, '*')}` }
}
