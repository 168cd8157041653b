// A finished scenario run pinned on the dashboard: its claims (holds or fails), the figures its
// narrative quotes, its conclusion, and links that open the partition log on the partition and
// offsets a claim is about. One card per run, kept until dismissed. The card and its links name the
// lab they came from, and say whether its records can still be read (kept, released, gone): a link
// into a lab that no longer runs is refused by the views rather than show another lab's records.

import Link from 'next/link'
import { memo } from 'react'
import { figureLabel } from '../lib/figure-labels.ts'
import { labName } from '../lib/evidence.ts'
import type { EvidenceCard, EvidenceLink, EvidenceRecords, LabIdentity } from '../lib/lab-protocol.ts'
import { fmtInt } from './format.ts'
import { ExpectationList } from './expectation-list.tsx'
import { Panel } from './panel.tsx'
import { MessagesLink } from './message-browser-link.tsx'
import { linkQuery } from './message-browser-query.ts'
import { fmtClock } from './time-travel.ts'
import { useCommand, type SendCommand } from './use-command.ts'

export interface EvidencePanelProps {
  cards: EvidenceCard[]
  send: SendCommand
}

const STATUS_WORD: Record<EvidenceCard['status'], string> = {
  passed: 'every claim holds',
  failed: 'a claim fails',
  error: 'stopped by an error',
}

/** Where a link's records are shown: the partition log, on its page. */
const PARTITION_LOG_HREF = '/partitions#partition-log'

/** Opens the partition log on a link's partition and offsets (the page follows the link). */
function openLink(run: ReturnType<typeof useCommand>[0], link: EvidenceLink): void {
  void run('selectPartition', {
    topic: link.topic,
    partition: link.partition,
    window: 'at',
    fromOffset: link.fromOffset,
    ...(link.lab !== undefined ? { lab: link.lab } : {}),
  })
}

/** What a card says of its records, in words. */
export function recordsText(records: EvidenceRecords): string {
  switch (records.state) {
    case 'kept':
      return `records kept until ${fmtClock(records.untilMs)}`
    case 'released':
      return `records no longer held from retention since ${fmtClock(records.sinceMs)}: the oldest may be deleted`
    case 'gone':
      return `records gone: ${records.why} (${fmtClock(records.sinceMs)})`
  }
}

/** The lab a card came from and whether its records can still be read. */
function LabLine({ lab, records, linked }: { lab: LabIdentity | null; records?: EvidenceRecords; linked: boolean }) {
  return (
    <p
      className="small muted evidence-lab"
      data-testid="evidence-lab"
      data-lab={lab?.id}
      title={lab ? `lab id ${lab.id} · application.id ${lab.applicationId}` : undefined}
    >
      {lab ? `from ${labName(lab)}, started ${fmtClock(lab.startedAtMs)}` : 'from a lab that no longer runs'}
      {linked && records ? (
        <>
          {' · '}
          <span
            data-testid="evidence-records"
            data-state={records.state}
            className={records.state === 'gone' ? 'warn-text' : undefined}
          >
            {recordsText(records)}
          </span>
        </>
      ) : null}
    </p>
  )
}

const Card = memo(function Card({ card, send }: { card: EvidenceCard; send: SendCommand }) {
  const [run, state] = useCommand(send)
  const figures = Object.entries(card.figures)
  const gone = card.records?.state === 'gone'
  return (
    <article
      className={`card evidence-card scenario-${card.status}`}
      data-testid="evidence-card"
      data-id={card.id}
      data-name={card.name}
      data-status={card.status}
      data-records={card.records?.state}
      aria-label={`evidence: ${card.title}`}
    >
      <div className="scenario-run-head">
        <h3>
          {card.title} <span className="muted small mono">#{card.id.slice(card.name.length + 1)}</span>
        </h3>
        <button
          type="button"
          className="evidence-dismiss"
          data-testid="dismiss-evidence"
          aria-label={`Dismiss the evidence of ${card.id}`}
          title="dismiss this card"
          disabled={state.pending}
          onClick={() => void run('dismissEvidence', { id: card.id })}
        >
          ×
        </button>
      </div>
      <span className={`badge badge-scenario-${card.status}`}>
        {card.status === 'passed' && card.expectations.some((e) => e.undecided !== undefined)
          ? 'no claim fails; one is not distinguishable here'
          : STATUS_WORD[card.status]}
      </span>
      {card.lab !== undefined ? <LabLine lab={card.lab} records={card.records} linked={card.links.length > 0} /> : null}
      {card.expectations.length > 0 ? (
        <ExpectationList expectations={card.expectations} testId="evidence-claim" />
      ) : null}
      {figures.length > 0 ? (
        <dl className="evidence-figures num" data-testid="evidence-figures">
          {figures.map(([name, value]) => {
            const { label, unit } = figureLabel(name)
            return (
              <div key={name}>
                <dt>{label}</dt>
                <dd data-figure={name}>
                  {fmtInt(value)}
                  {unit ? ` ${unit}` : ''}
                </dd>
              </div>
            )
          })}
        </dl>
      ) : null}
      {card.conclusion ? <p className="conclusion small">{card.conclusion}</p> : null}
      {card.error ? (
        <p className="control-error" role="alert">
          ⚠ {card.error}
        </p>
      ) : null}
      {card.links.length > 0 ? (
        <ul className="stack-list evidence-links" aria-label="where the evidence is">
          {card.links.map((l) => (
            <li key={`${l.topic}-${l.partition}-${l.fromOffset}-${l.toOffset}`}>
              <Link
                href={PARTITION_LOG_HREF}
                className="link-button"
                data-testid="evidence-link"
                data-topic={l.topic}
                data-partition={l.partition}
                data-from={l.fromOffset}
                data-to={l.toOffset}
                data-lab={l.lab}
                title={gone ? `${l.label} (${recordsText(card.records!)})` : l.label}
                onClick={() => openLink(run, l)}
              >
                {l.topic}-{l.partition} [{l.fromOffset}, {l.toOffset})
              </Link>
              <span className="small muted"> {l.label.split(':')[0]}</span>{' '}
              <MessagesLink
                query={linkQuery(l)}
                testId="evidence-messages"
                title="open these offsets in the message browser, read_committed and read_uncommitted side by side"
              >
                messages
              </MessagesLink>
            </li>
          ))}
        </ul>
      ) : null}
      {state.error ? <p className="control-error">⚠ {state.error}</p> : null}
    </article>
  )
})

/** The evidence of finished scenario runs, newest first; absent while there is none. */
export const EvidencePanel = memo(function EvidencePanel({ cards, send }: EvidencePanelProps) {
  if (cards.length === 0) return null
  return (
    <Panel
      title="Evidence"
      hint={
        'One card per finished scenario run, kept until dismissed. A link opens the partition log on the partition ' +
        'and offsets a claim is about, in the lab the run left: retention keeps those records 30 minutes while that ' +
        "lab runs, and a reset or another scenario's lab replaces it (its records are then gone)."
      }
      testId="evidence"
    >
      <div className="evidence-list">
        {[...cards].reverse().map((c) => (
          <Card key={c.id} card={c} send={send} />
        ))}
      </div>
    </Panel>
  )
})
