// The time control under the header: Pause / Live, what the view shows ("Paused at 14:03:27 — lab
// running, 12 s behind"), and a scrubber over the journal's span with its markers (kills, aborts,
// fencings, faults, config changes, scenario steps). Dragging rewinds every panel together.

import { memo, useEffect, useMemo, useState } from 'react'
import type { JournalEntry, JournalSpan } from '../lib/journal.ts'
import type { LabSnapshot } from '../lib/lab-protocol.ts'
import { adjacentMarker, MARKER_NAMES, placeMarkers, type ScrubMarker } from './journal-markers.ts'
import { fmtClock, secondsBehind, timeStatus, type TimeView } from './time-travel.ts'

export interface TimeControlProps {
  state: TimeView<LabSnapshot>
  /** The live snapshot's instant. */
  liveAtMs: number
  /** The journal's span, from the live snapshot; undefined when this lab serves no journal. */
  span: JournalSpan | undefined
  entries: JournalEntry[]
  onPause: () => void
  onLive: () => void
  onSeek: (atMs: number) => void
  onSeekSoon: (atMs: number) => void
}

const Markers = memo(function Markers({ markers, onSeek }: { markers: ScrubMarker[]; onSeek: (atMs: number) => void }) {
  return (
    <div className="scrub-markers" data-testid="scrub-markers">
      {markers.map((m) => {
        const name = `${MARKER_NAMES[m.kind]} at ${fmtClock(m.atMs)}: ${m.label}`
        return (
          <button
            key={m.entryId}
            type="button"
            className={`scrub-marker marker-${m.kind}`}
            style={{ left: `${m.pct}%` }}
            title={name}
            aria-label={`show the ${name}`}
            data-testid="scrub-marker"
            data-kind={m.kind}
            data-at-ms={m.atMs}
            onClick={() => onSeek(m.atMs)}
          />
        )
      })}
    </div>
  )
})

function Scrubber({
  span,
  state,
  liveAtMs,
  entries,
  onSeek,
  onSeekSoon,
}: Pick<TimeControlProps, 'state' | 'liveAtMs' | 'entries' | 'onSeek' | 'onSeekSoon'> & { span: JournalSpan }) {
  const held = state.mode === 'held' ? state.atMs : null
  // While dragging, the thumb follows the hand; the frame follows once the hand rests. Steps of a
  // second: the lab keeps one frame a second, and the arrow keys move one frame.
  const [drag, setDrag] = useState<number | null>(null)
  // Only a change of the held moment ends a drag: the one it asked for, or Live.
  // biome-ignore lint/correctness/useExhaustiveDependencies: drag: only a change of the held moment ends a drag
  useEffect(() => {
    if (held === null || held === drag) setDrag(null)
  }, [held])
  // Placed again when entries arrive or the span grows by a second, not on every snapshot.
  const fromMs = span.fromMs
  const toS = Math.ceil(span.toMs / 1000)
  const markers = useMemo(() => placeMarkers(entries, { fromMs, toMs: toS * 1000 }), [entries, fromMs, toS])
  const value = Math.min(span.toMs, Math.max(span.fromMs, drag ?? held ?? span.toMs))
  const ago = secondsBehind(value, liveAtMs)
  const previous = adjacentMarker(markers, held ?? span.toMs + 1, 'previous')
  const next = held === null ? null : adjacentMarker(markers, held, 'next')
  return (
    <div className="scrubber">
      <button
        type="button"
        disabled={!previous}
        onClick={() => previous && onSeek(previous.atMs)}
        aria-label={previous ? `previous event: ${previous.label}` : 'no earlier event'}
        data-testid="marker-previous"
      >
        ◀
      </button>
      <div className="scrub-track">
        <Markers markers={markers} onSeek={onSeek} />
        <input
          type="range"
          min={span.fromMs}
          max={Math.max(span.toMs, span.fromMs + 1)}
          step={1000}
          value={value}
          aria-label="lab time"
          aria-valuetext={`${fmtClock(value)}, ${ago} s before now`}
          data-testid="scrubber"
          onChange={(ev) => {
            const t = Number(ev.currentTarget.value)
            setDrag(t)
            onSeekSoon(t)
          }}
        />
      </div>
      <button
        type="button"
        disabled={!next}
        onClick={() => next && onSeek(next.atMs)}
        aria-label={next ? `next event: ${next.label}` : 'no later event'}
        data-testid="marker-next"
      >
        ▶
      </button>
      <span className="num small muted scrub-range" aria-hidden="true">
        {fmtClock(span.fromMs)} – {fmtClock(span.toMs)}
      </span>
    </div>
  )
}

export const TimeControl = memo(function TimeControl({
  state,
  liveAtMs,
  span,
  entries,
  onPause,
  onLive,
  onSeek,
  onSeekSoon,
}: TimeControlProps) {
  const status = timeStatus(state, liveAtMs)
  const held = state.mode === 'held'
  return (
    <section
      className={`time-control ${held ? `held held-${state.source}` : 'live'}`}
      data-testid="time-control"
      data-mode={held ? state.source : 'live'}
      aria-label="time control"
    >
      <div className="time-buttons">
        <button
          type="button"
          onClick={onPause}
          disabled={held}
          aria-pressed={held && state.source === 'pause'}
          data-testid="time-pause"
        >
          ❚❚ Pause
        </button>
        <button
          type="button"
          onClick={onLive}
          disabled={!held}
          className={held ? 'time-live-button' : ''}
          data-testid="time-live"
        >
          ● Live
        </button>
      </div>
      {/* Only the title is announced: the seconds behind change every second. */}
      <p className="time-status" data-testid="time-status">
        <strong role="status">{status.title}</strong>
        {status.detail ? <span> — {status.detail}</span> : null}
        {held && state.seekingMs !== null ? (
          <span className="muted"> · loading {fmtClock(state.seekingMs)}…</span>
        ) : null}
        {held && state.error ? <span className="bad"> · {state.error}</span> : null}
      </p>
      {span && span.toMs > span.fromMs ? (
        <Scrubber
          span={span}
          state={state}
          liveAtMs={liveAtMs}
          entries={entries}
          onSeek={onSeek}
          onSeekSoon={onSeekSoon}
        />
      ) : (
        <span className="small muted" data-testid="scrubber-unavailable">
          {span
            ? 'The journal is still empty: the scrubber appears once it holds a moment.'
            : 'This lab serves no journal: Pause works, rewinding does not.'}
        </span>
      )}
    </section>
  )
})
