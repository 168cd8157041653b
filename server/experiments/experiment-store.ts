// Experiment results on disk: one JSON file per experiment under the data directory
// (EOSCOPE_DATA_DIR, default ./data, then experiments/). Written atomically (temp file + rename),
// so a reader never sees half a record.
//
// Only the last EOSCOPE_EXPERIMENTS_KEEP experiments (default 50) are kept: saving a new one
// deletes the files of the oldest beyond that. The summaries live in an index file
// (experiments/.index.json, newest first), so listing reads one file rather than every record; a
// missing or unreadable index is rebuilt from the records once.

import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import {
  EXPERIMENT_ID_PATTERN,
  summarize,
  type ExperimentRecord,
  type ExperimentSummary,
} from '../../lib/experiment-protocol.ts'

export const DEFAULT_EXPERIMENTS_KEEP = 50
export const MAX_EXPERIMENTS_KEEP = 10_000
/** Not a valid experiment id (ids never start with a dot), so never a record's file. */
export const INDEX_FILE = '.index.json'

export function defaultExperimentsDir(env: Record<string, string | undefined> = process.env): string {
  return path.resolve(env.EOSCOPE_DATA_DIR || 'data', 'experiments')
}

/** EOSCOPE_EXPERIMENTS_KEEP: how many experiments to keep; throws on a value that is not an integer in [1, 10000]. */
export function experimentsKeepFromEnv(env: Record<string, string | undefined> = process.env): number {
  const raw = (env.EOSCOPE_EXPERIMENTS_KEEP ?? '').trim()
  if (raw === '') return DEFAULT_EXPERIMENTS_KEEP
  const n = Number(raw)
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_EXPERIMENTS_KEEP)
    throw new Error(
      `EOSCOPE_EXPERIMENTS_KEEP must be an integer in [1, ${MAX_EXPERIMENTS_KEEP}], got ${JSON.stringify(raw)}`,
    )
  return n
}

let tmpSeq = 0

const newestFirst = (a: ExperimentSummary, b: ExperimentSummary) =>
  a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0

async function writeAtomically(target: string, text: string): Promise<void> {
  const tmp = `${target}.${process.pid}-${++tmpSeq}.tmp`
  await writeFile(tmp, text)
  await rename(tmp, target)
}

export class ExperimentStore {
  /** Saves, one at a time: each reads, updates and writes the index. */
  private writing: Promise<void> = Promise.resolve()

  constructor(
    readonly dir: string = defaultExperimentsDir(),
    readonly keep: number = experimentsKeepFromEnv(),
  ) {
    if (!Number.isInteger(keep) || keep < 1) throw new Error(`keep must be a positive integer, got ${keep}`)
  }

  private file(id: string): string {
    if (!EXPERIMENT_ID_PATTERN.test(id)) throw new Error(`invalid experiment id ${JSON.stringify(id)}`)
    return path.join(this.dir, `${id}.json`)
  }

  private get indexFile(): string {
    return path.join(this.dir, INDEX_FILE)
  }

  /** Writes the record and its summary in the index; drops the oldest beyond `keep` (files too). */
  save(record: ExperimentRecord): Promise<void> {
    const next = this.writing.then(async () => {
      await mkdir(this.dir, { recursive: true })
      await writeAtomically(this.file(record.id), `${JSON.stringify(record, null, 2)}\n`)
      const index = [summarize(record), ...(await this.readIndex()).filter((s) => s.id !== record.id)].sort(newestFirst)
      const kept = index.slice(0, this.keep)
      await writeAtomically(this.indexFile, `${JSON.stringify(kept)}\n`)
      for (const dropped of index.slice(this.keep)) await rm(this.file(dropped.id), { force: true })
    })
    this.writing = next.catch(() => {})
    return next
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

  /** The stored experiments, newest first, at most `keep`: one read of the index. */
  async list(): Promise<ExperimentSummary[]> {
    await this.writing
    return (await this.readIndex()).slice(0, this.keep)
  }

  /** The index; rebuilt from the records (and written) when it is missing or unreadable. */
  private async readIndex(): Promise<ExperimentSummary[]> {
    try {
      const parsed = JSON.parse(await readFile(this.indexFile, 'utf8')) as unknown
      if (Array.isArray(parsed)) return parsed as ExperimentSummary[]
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && !(e instanceof SyntaxError)) throw e
    }
    return this.rebuildIndex()
  }

  private async rebuildIndex(): Promise<ExperimentSummary[]> {
    let names: string[]
    try {
      names = await readdir(this.dir)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw e
    }
    const out: ExperimentSummary[] = []
    for (const name of names) {
      if (!name.endsWith('.json') || name === INDEX_FILE) continue
      try {
        const r = await this.load(name.slice(0, -'.json'.length))
        if (r) out.push(summarize(r))
      } catch {
        // a file that is not an experiment record
      }
    }
    out.sort(newestFirst)
    await writeAtomically(this.indexFile, `${JSON.stringify(out)}\n`)
    return out
  }
}
