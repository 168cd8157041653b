// Which lab the dashboard runs, and which it ran before: every start, reset and lab a scenario
// starts gets an identity (lib/evidence.ts), remembered with how it ended. Offsets name records only
// within one lab, so a request that names a lab (an evidence card's link, the message browser's URL)
// is answered from the running lab's logs only when it names that lab; otherwise it is refused with
// the lab the records were in and what replaced it.

import { type LabIdentity, labName } from '../../lib/evidence.ts'

/** Ended labs remembered for the refusal's wording (an evidence card holds at most 20 runs). */
const ENDED_KEPT = 200

export interface EndedLab {
  lab: LabIdentity
  endedAtMs: number
  /** What ended it, as a clause: "a reset replaced it". */
  how: string
}

/** A clock time in UTC, as the server words it (the dashboard shows local times). */
export function utcClock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`
}

export class LabIdentities {
  private readonly prefix: string
  private generation = 0
  private running: LabIdentity | null = null
  private readonly byRuntime = new WeakMap<object, LabIdentity>()
  private readonly ended = new Map<string, EndedLab>()

  /** `serverStartMs`: makes ids unique across the server's restarts (a URL may outlive the process). */
  constructor(serverStartMs: number) {
    this.prefix = Math.max(0, Math.floor(serverStartMs)).toString(36)
  }

  /** A new lab runs: its identity. */
  begin(runtime: { groupId: string; startedAtMs: number }): LabIdentity {
    const generation = ++this.generation
    const lab: LabIdentity = {
      id: `${this.prefix}-${generation}`,
      generation,
      applicationId: runtime.groupId,
      startedAtMs: runtime.startedAtMs,
    }
    this.byRuntime.set(runtime, lab)
    this.running = lab
    return lab
  }

  /** The running lab ended (`how`: "a reset replaced it"); nothing runs until the next begin. */
  end(how: string, atMs: number): void {
    const lab = this.running
    if (lab === null) return
    this.running = null
    this.ended.set(lab.id, { lab, endedAtMs: atMs, how })
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!)
  }

  get current(): LabIdentity | null {
    return this.running
  }

  /** The identity a runtime was given (null: one this book never saw begin). */
  of(runtime: object | null): LabIdentity | null {
    return runtime === null ? null : (this.byRuntime.get(runtime) ?? null)
  }

  endedLab(id: string): EndedLab | undefined {
    return this.ended.get(id)
  }

  /**
   * Why a request for `what` (the records it names: "output-3 [120, 180)") in lab `requested` is
   * not answered, or null when that lab is the running one.
   */
  refusal(requested: string, what: string): string | null {
    const now = this.running
    if (now !== null && requested === now.id) return null
    const running = now === null ? 'no lab runs now' : `the running lab is ${labName(now)} (id ${now.id})`
    const e = this.ended.get(requested)
    if (e === undefined)
      return (
        `${what} were asked of lab ${requested}, which is not the running lab: ${running}. ` +
        "Only the running lab's records can be read, and the same offsets there are other records."
      )
    const was = `${labName(e.lab)} (id ${e.lab.id}, started ${utcClock(e.lab.startedAtMs)})`
    return (
      `${what} were in ${was}, which is no longer the running lab: ${e.how} at ${utcClock(e.endedAtMs)}, ` +
      `and ${running}. Its records can no longer be read here; the same offsets in the running lab are other records.`
    )
  }
}

/** The records a request names, for a refusal: "output-3 [120, 180)", "output-3 from 120" or "output-3". */
export function recordsNamed(q: { topic: string; partition: number; from?: number; to?: number }): string {
  const tp = `${q.topic}-${q.partition}`
  if (q.from !== undefined && q.to !== undefined) return `the records ${tp} [${q.from}, ${q.to})`
  if (q.from !== undefined) return `the records of ${tp} from ${q.from}`
  if (q.to !== undefined) return `the records of ${tp} before ${q.to}`
  return `the records of ${tp}`
}
