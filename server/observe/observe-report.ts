// An ApplicationSample in words, as `eoscope observe` prints it (one block per sample).

import type { ApplicationSample } from './application-observer.ts'

const time = (ms: number) => new Date(ms).toISOString().slice(11, 23)

export function observeReport(s: ApplicationSample): string[] {
  const out: string[] = []
  const g = s.group
  out.push(
    `${time(s.atMs)} application ${s.applicationId}: group ${g.state}, generation ${g.generation ?? 'unknown'}, ` +
      `${g.members.length} member(s)${g.protocol ? `, protocol ${g.protocol}` : ''}`,
  )
  for (const m of g.members)
    out.push(
      `  member ${m.clientId} (${m.memberId.slice(-12)}${m.host ? ` on ${m.host}` : ''}): ` +
        `${m.assignment.map((tp) => `${tp.topic}-${tp.partition}`).join(' ') || 'nothing assigned'}`,
    )
  const generations = g.generations.slice(-5)
  if (generations.length > 0) out.push(`  generations (from ${'__consumer_offsets'}, latest ${generations.length}):`)
  for (const e of generations) {
    if ('generation' in e)
      out.push(
        `    generation ${e.generation} at ${time(e.writtenAtMs)}: ${e.members.length} member(s), leader ` +
          `${e.leader ?? 'none'}`,
      )
    else out.push(`    group deleted at ${time(e.deletedAtMs)}`)
  }
  out.push(
    `  transactions: ${s.transactions.length} transactional id(s); ${s.totals.commitMarkers} COMMIT and ` +
      `${s.totals.abortMarkers} ABORT marker(s) written since observing began`,
  )
  for (const t of s.transactions) {
    const open = t.openForMs !== null ? `, open ${t.openForMs} ms on ${t.partitions.length} partition(s)` : ''
    out.push(
      `    ${t.transactionalId}: ${t.state}, producer ${t.producerId} epoch ${t.epoch}, transaction.timeout.ms ` +
        `${t.timeoutMs}${open}`,
    )
  }
  out.push(`  open transactions on its topics: ${s.open.length} (${s.hanging.length} hanging)`)
  for (const t of s.open)
    out.push(
      `    ${t.verdict.padEnd(7)} ${t.topic}-${t.partition} from offset ${t.currentTxnStartOffset}: producer ` +
        `${t.producerId} epoch ${t.epoch}${t.transactionalId ? ` (${t.transactionalId})` : ''}: ${t.reason}`,
    )
  const rate = s.totals.committedPerSecond
  const perSecond = rate === null ? '' : ` (${rate.toFixed(1)} records/s committed)`
  out.push(
    `  input: ${s.totals.committedInput} record(s) committed since observing began${perSecond}, lag ${s.totals.lag}`,
  )
  for (const p of s.partitions) {
    const committed = p.role === 'input' ? `, committed ${p.committed ?? 'none'}, lag ${p.lag ?? '-'}` : ''
    out.push(
      `    ${p.role.padEnd(8)} ${p.topic}-${p.partition}: log start ${p.logStartOffset}, LSO ` +
        `${p.lastStableOffset}, HW ${p.highWatermark}${committed}, markers +${p.commitMarkers} COMMIT ` +
        `+${p.abortMarkers} ABORT`,
    )
  }
  const v = s.validation
  if (v) {
    const row = (n: number | null) => (n === null ? 'not known' : String(n))
    out.push(
      `  validator (${v.format} format, ${v.input} -> ${v.output}${v.changelog ? ` + ${v.changelog}` : ''}): ` +
        `${v.inputRecords} input record(s) up to the committed offsets, ${v.outputRecords} output record(s) read`,
    )
    out.push(
      `    duplicates ${row(v.duplicates)}, lost ${row(v.lost)}, aborted reads ${v.abortedReads}, state ` +
        `mismatches ${row(v.stateMismatches)} (docs/measures.md)`,
    )
    const verdict =
      v.violations.length === 0
        ? 'no violation'
        : `VIOLATED: ${v.violations.map((x) => `${x.row} ${x.value}`).join(', ')}`
    out.push(`    judged ${v.judgedAs}: ${v.because}; ${verdict}`)
    for (const u of v.unavailable) out.push(`    ${u.row} not shown: ${u.reason}`)
    for (const n of v.notes) out.push(`    note: ${n}`)
  }
  for (const n of s.notes) out.push(`  note: ${n}`)
  return out
}
