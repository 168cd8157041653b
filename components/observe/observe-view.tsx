'use client'
// The /observe page: `eoscope observe` in the browser. An application eoscope did not start (a
// Kafka Streams app, say), watched read-only on the server's Kafka cluster: its group and the
// generations its coordinator wrote, its transactional ids, open and hanging transactions, every
// partition's LSO/HW, lag and markers, and, given its record format, the validator's figures.
// The target lives in the URL, so a view is a permalink.

import { type FormEvent, useEffect, useState } from 'react'
import type { ObserveSampleView, ObservedValidationView } from '../../lib/observe-protocol.ts'
import { FIGURES, STATE_MISMATCH_DEFINITION } from '../correctness-panel.tsx'
import { fmtInt } from '../format.ts'
import { Panel } from '../panel.tsx'
import { SubPageHeader } from '../sub-page-header.tsx'
import { EMPTY_WORDS, type ObserveWords, searchOfWords, wordsFromSearch } from './observe-query.ts'
import { useCannotObserve, useObserve } from './use-observe.ts'

const time = (ms: number) => new Date(ms).toISOString().slice(11, 19)
const tp = (p: { topic: string; partition: number }) => `${p.topic}-${p.partition}`
/**
 * A name of the application's own (its topics, its transactional ids) without its application.id in front; the
 * full name is the title.
 */
const own = (applicationId: string, name: string) =>
  name.startsWith(`${applicationId}-`) ? `…${name.slice(applicationId.length)}` : name
/**
 * The validator's rows, each with the one definition of docs/measures.md (state mismatches without the
 * double-applied contrast the lab shows beside it).
 */
const definitionOf = (f: (typeof FIGURES)[number]) =>
  f.key === 'stateMismatches' ? STATE_MISMATCH_DEFINITION.replace(/^State mismatches: /, '') : f.definition

export function ObserveView() {
  const [search, setSearch] = useState<string | null>(null)
  useEffect(() => setSearch(searchOfWords(wordsFromSearch(window.location.search))), [])
  const { sample, error, answered } = useObserve(search ?? '')
  const cannot = useCannotObserve()
  const choose = (w: ObserveWords) => {
    const next = searchOfWords(w)
    window.history.replaceState(null, '', next ? `/observe?${next}` : '/observe')
    setSearch(next)
  }
  return (
    <div className="app" data-testid="observe">
      <SubPageHeader tagline="observe an application" />
      <main className="layout observe-layout">
        <Panel
          title="Application"
          hint="read-only: no group is joined, nothing is written; the same words as eoscope observe"
        >
          {cannot ? (
            <p className="observe-cannot small" role="note" data-testid="observe-unavailable">
              Not on this server: {cannot}
            </p>
          ) : null}
          {search === null ? null : <TargetForm key={search} initial={wordsFromSearch(search)} onChoose={choose} />}
          {error ? (
            <p className="bad small" role="alert" data-testid="observe-error">
              {error}
            </p>
          ) : null}
          {search !== '' && search !== null && !sample && !error ? (
            <p className="muted small">Reading the cluster…</p>
          ) : null}
        </Panel>
        {sample ? <SampleViews sample={sample} answered={answered} /> : null}
      </main>
    </div>
  )
}

function TargetForm({ initial, onChoose }: { initial: ObserveWords; onChoose: (w: ObserveWords) => void }) {
  const [w, setW] = useState<ObserveWords>(initial)
  const field = (k: keyof ObserveWords, label: string, placeholder: string) => (
    <label className="observe-field">
      <span className="small muted">{label}</span>
      <input
        className="text-input mono"
        value={w[k]}
        placeholder={placeholder}
        onChange={(e) => setW({ ...w, [k]: e.target.value })}
        data-testid={`observe-${k}`}
      />
    </label>
  )
  const submit = (e: FormEvent) => {
    e.preventDefault()
    onChoose(w)
  }
  return (
    <form className="observe-form" onSubmit={submit} data-testid="observe-form">
      {field('applicationId', 'application.id', 'my-streams-app')}
      {field('input', 'input topics', 'its sources (comma-separated)')}
      {field('output', 'output topics', 'its sinks (comma-separated)')}
      <label className="observe-field">
        <span className="small muted">record format</span>
        <select
          className="text-input"
          value={w.format}
          onChange={(e) => setW({ ...w, format: e.target.value })}
          data-testid="observe-format"
        >
          <option value="">none: no validator</option>
          <option value="eoscope">eoscope: integers in, aggregate JSON out</option>
        </select>
      </label>
      {w.format ? field('changelog', 'changelog', '<application.id>-aggregates-changelog') : null}
      <div className="observe-actions">
        <button type="submit" data-testid="observe-submit">
          Observe
        </button>
        <button
          type="button"
          className="link-button small"
          onClick={() => {
            setW(EMPTY_WORDS)
            onChoose(EMPTY_WORDS)
          }}
        >
          clear
        </button>
      </div>
    </form>
  )
}

function SampleViews({ sample: s, answered }: { sample: ObserveSampleView; answered: number }) {
  const g = s.group
  const rate = s.totals.committedPerSecond
  return (
    <>
      <div className="observe-summary" data-testid="observe-summary">
        <span>
          group <strong data-testid="observe-group-state">{g.state}</strong>
        </span>
        <span>
          generation <strong data-testid="observe-generation">{g.generation ?? 'unknown'}</strong>
        </span>
        <span>
          members <strong data-testid="observe-members">{g.members.length}</strong>
        </span>
        <span>
          committed <strong className="num">{rate === null ? '–' : `${fmtInt(Math.round(rate))}/s`}</strong>{' '}
          <span className="muted small">input offsets committed per second since observing began</span>
        </span>
        <span>
          lag <strong className="num">{fmtInt(s.totals.lag)}</strong>
        </span>
        <span className="muted small">
          sample at {time(s.atMs)} · {answered} read
        </span>
      </div>
      {s.validation ? <ValidationPanel v={s.validation} /> : null}
      <div className="columns observe-columns">
        <GroupPanel sample={s} />
        <TransactionsPanel sample={s} />
      </div>
      <PartitionsPanel sample={s} />
      {s.notes.length > 0 ? (
        <ul className="notes" data-testid="observe-notes">
          {s.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
    </>
  )
}

function ValidationPanel({ v }: { v: ObservedValidationView }) {
  const violated = new Set(v.violations.map((x) => x.row))
  const unavailable = new Map(v.unavailable.map((u) => [u.row, u.reason]))
  const rows = FIGURES.filter((f) => f.key !== 'openTransactions')
  const changelog = v.changelog ? ` + ${v.changelog}` : ''
  return (
    <Panel
      title="Validator"
      hint={`${v.format} format: ${v.input} → ${v.output}${changelog}; judged ${v.judgedAs}: ${v.because}`}
      testId="observe-validation"
    >
      <div className="observe-checks">
        {rows.map((f) => {
          const value = v[f.key as 'duplicates' | 'lost' | 'abortedReads' | 'stateMismatches']
          return (
            <div
              key={f.key}
              className={`observe-check ${violated.has(f.key) ? 'bad' : ''}`}
              data-testid={`observe-check-${f.key}`}
              data-value={value ?? ''}
            >
              <span className="small muted">{f.label}</span>
              <strong className="num">{value === null ? 'not known' : fmtInt(value)}</strong>
              <span className="small muted">{unavailable.get(f.key) ?? definitionOf(f)}</span>
            </div>
          )
        })}
      </div>
      <p className="small" data-testid="observe-verdict">
        {v.violations.length === 0 ? (
          <span className="ok">No violation of {v.judgedAs}</span>
        ) : (
          <span className="bad">Violated: {v.violations.map((x) => `${x.row} ${x.value}`).join(', ')}</span>
        )}{' '}
        <span className="muted">
          over {fmtInt(v.inputRecords)} input records up to the committed offsets and {fmtInt(v.outputRecords)} output
          records read (read_committed)
        </span>
      </p>
      {v.notes.map((n) => (
        <p key={n} className="small muted">
          {n}
        </p>
      ))}
    </Panel>
  )
}

function GroupPanel({ sample: s }: { sample: ObserveSampleView }) {
  const generations = s.group.generations.slice(-8).reverse()
  return (
    <Panel
      title="Consumer group"
      hint={
        `group id ${s.applicationId} (DescribeGroups); ` +
        'generations as its coordinator wrote them to __consumer_offsets'
      }
      testId="observe-group"
    >
      <table className="history observe-table">
        <thead>
          <tr>
            <th>client.id</th>
            <th>member.id</th>
            <th>assignment</th>
          </tr>
        </thead>
        <tbody>
          {s.group.members.map((m) => (
            <tr key={m.memberId} data-testid="observe-member">
              <td className="mono ellipsis" title={m.clientId}>
                {m.clientId}
              </td>
              <td className="mono ellipsis" title={m.memberId}>
                …{m.memberId.slice(-12)}
              </td>
              <td className="mono small observe-wrap" title={m.assignment.map(tp).join(' ')}>
                {m.assignment.map((a) => own(s.applicationId, tp(a))).join(' ') || 'nothing'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3 className="sub-head">Generations</h3>
      <ul className="stack-list">
        {generations.map((e) =>
          'generation' in e ? (
            <li key={`g${e.generation}-${e.writtenAtMs}`} data-testid="observe-generation-row">
              <strong>generation {e.generation}</strong>{' '}
              <span className="muted small">
                at {time(e.writtenAtMs)}: {e.members.length} member(s)
              </span>
            </li>
          ) : (
            <li key={`d${e.deletedAtMs}`}>group deleted at {time(e.deletedAtMs)}</li>
          ),
        )}
      </ul>
    </Panel>
  )
}

function TransactionsPanel({ sample: s }: { sample: ObserveSampleView }) {
  const ownName = (name: string) => own(s.applicationId, name)
  return (
    <Panel
      title="Transactions"
      hint={
        `transactional ids named ${s.applicationId}-… (KIP-664); ${fmtInt(s.totals.commitMarkers)} COMMIT and ` +
        `${fmtInt(s.totals.abortMarkers)} ABORT markers since observing began`
      }
      testId="observe-transactions"
    >
      <table className="history observe-table">
        <thead>
          <tr>
            <th>transactional.id</th>
            <th>state</th>
            <th className="r">producer / epoch</th>
            <th className="r">open</th>
          </tr>
        </thead>
        <tbody>
          {s.transactions.map((t) => (
            <tr key={t.transactionalId} data-testid="observe-transaction" data-state={t.state}>
              <td className="mono ellipsis" title={t.transactionalId}>
                {own(s.applicationId, t.transactionalId)}
              </td>
              <td>{t.state}</td>
              <td className="r mono">
                {t.producerId} / {t.epoch}
              </td>
              <td className="r mono">
                {t.openForMs === null ? '–' : `${fmtInt(t.openForMs)} ms on ${t.partitions.length}`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3 className="sub-head">
        Open on its topics: {s.open.length} ({s.hanging.length} hanging)
      </h3>
      <ul className="stack-list">
        {s.open.map((o) => (
          <li
            key={`${tp(o)}-${o.producerId}`}
            className={o.verdict === 'hanging' ? 'bad' : undefined}
            data-testid="observe-open"
            data-verdict={o.verdict}
            title={o.reason}
          >
            <strong>{o.verdict}</strong>{' '}
            <span className="small mono">
              {ownName(tp(o))} from offset {fmtInt(o.currentTxnStartOffset)}, producer {o.producerId} epoch {o.epoch}
              {o.transactionalId ? ` (${own(s.applicationId, o.transactionalId)})` : ', no transactional id'}
            </span>
            {o.verdict === 'ongoing' ? null : <span className="small"> {o.reason}</span>}
          </li>
        ))}
      </ul>
    </Panel>
  )
}

function PartitionsPanel({ sample: s }: { sample: ObserveSampleView }) {
  return (
    <Panel
      title="Partitions"
      hint="lag = high watermark − the group's committed offset; markers counted since observing began"
      testId="observe-partitions"
    >
      <table className="history observe-table">
        <thead>
          <tr>
            <th className="observe-name-col">partition</th>
            <th>role</th>
            <th className="r">log start</th>
            <th className="r">LSO</th>
            <th className="r">HW</th>
            <th className="r">committed</th>
            <th className="r">lag</th>
            <th className="r">+COMMIT</th>
            <th className="r">+ABORT</th>
          </tr>
        </thead>
        <tbody>
          {s.partitions.map((p) => (
            <tr
              key={tp(p)}
              data-testid="observe-partition"
              data-role={p.role}
              className={p.lastStableOffset < p.highWatermark ? 'row-open' : undefined}
            >
              <td className="mono ellipsis" title={tp(p)}>
                {own(s.applicationId, tp(p))}
              </td>
              <td>{p.role}</td>
              <td className="r mono">{fmtInt(p.logStartOffset)}</td>
              <td className="r mono">{fmtInt(p.lastStableOffset)}</td>
              <td className="r mono">{fmtInt(p.highWatermark)}</td>
              <td className="r mono">{p.committed === null ? '–' : fmtInt(p.committed)}</td>
              <td className="r mono">{p.lag === null ? '–' : fmtInt(p.lag)}</td>
              <td className="r mono">{fmtInt(p.commitMarkers)}</td>
              <td className="r mono">{fmtInt(p.abortMarkers)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  )
}
