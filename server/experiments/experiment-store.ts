// Experiment results on disk: one JSON file per experiment under the data directory
// (EOSCOPE_DATA_DIR, default ./data, then experiments/). Written atomically (temp file + rename),
// so a reader never sees half a record.

import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { EXPERIMENT_ID_PATTERN, summarize, type ExperimentRecord, type ExperimentSummary } from '../../lib/experiment-protocol.ts'

export function defaultExperimentsDir(env: Record<string, string | undefined> = process.env): string {
  return path.resolve(env.EOSCOPE_DATA_DIR || 'data', 'experiments')
}

let tmpSeq = 0

export class ExperimentStore {
  constructor(readonly dir: string = defaultExperimentsDir()) {}

  private file(id: string): string {
    if (!EXPERIMENT_ID_PATTERN.test(id)) throw new Error(`invalid experiment id ${JSON.stringify(id)}`)
    return path.join(this.dir, `${id}.json`)
  }

  async save(record: ExperimentRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true })
    const target = this.file(record.id)
    const tmp = `${target}.${process.pid}-${++tmpSeq}.tmp`
    await writeFile(tmp, JSON.stringify(record, null, 2) + '\n')
    await rename(tmp, target)
  }

  /** The record, or null when there is none with this id (or the id is malformed). */
  async load(id: string): Promise<ExperimentRecord | null> {
    if (!EXPERIMENT_ID_PATTERN.test(id)) return null
    try {
      return JSON.parse(await readFile(this.file(id), 'utf8')) as ExperimentRecord
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw e
    }
  }

  /** Every stored experiment, newest first; unreadable files are skipped. */
  async list(): Promise<ExperimentSummary[]> {
    let names: string[]
    try {
      names = await readdir(this.dir)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw e
    }
    const out: ExperimentSummary[] = []
    for (const name of names) {
      if (!name.endsWith('.json')) continue
      try {
        const r = await this.load(name.slice(0, -'.json'.length))
        if (r) out.push(summarize(r))
      } catch {
        // a file that is not an experiment record
      }
    }
    return out.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0))
  }
}
