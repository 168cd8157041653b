// A CLI run under a progress watchdog: its output is its progress (the sweep prints a line per
// stage), so the run fails only when it prints nothing for a stall period, or past a long bound.

import { spawn } from 'node:child_process'
import { watchProgress } from '../progress.ts'

export interface WatchedRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs `node args…`; kills it (and fails) when it writes nothing for `stallMs`, or past `boundMs`. */
export function execWatched(
  args: string[],
  o: { stallMs: number; boundMs: number; env?: NodeJS.ProcessEnv },
): Promise<WatchedRun> {
  const child = spawn(process.execPath, args, { env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
  const what = `node ${args.slice(1, 3).join(' ')}`
  return watchProgress(
    what,
    { stallMs: o.stallMs, boundMs: o.boundMs, onStall: () => child.kill('SIGKILL') },
    (progressed) => {
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (b: Buffer) => {
        stdout += b.toString()
        progressed()
      })
      child.stderr.on('data', (b: Buffer) => {
        stderr += b.toString()
        progressed()
      })
      return new Promise<WatchedRun>((resolve, reject) => {
        child.on('error', reject)
        child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
      })
    },
  )
}
