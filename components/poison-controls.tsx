// Poison records from the dashboard: how many to append to the input, and which
// default.deserialization.exception.handler meets them (log-and-continue sends them to the
// dead-letter topic; fail stops the task that meets one, and the banner says which).

import { useId, useState } from 'react'
import { DESERIALIZATION_HANDLERS, type DeserializationHandler } from '../lib/lab-protocol.ts'
import { fmtInt } from './format.ts'
import { Segmented } from './segmented.tsx'
import { useCommand, type CommandState, type SendCommand } from './use-command.ts'

const POISON_MAX = 100

const HANDLER_TITLE: Record<DeserializationHandler, string> = {
  'log-and-continue': 'the record goes to the dead-letter topic with its provenance; processing goes on',
  fail: 'the task that meets the record stops (its worker fails); nothing is committed past it',
}

function ErrorLine({ state }: { state: CommandState }) {
  return (
    <p className="control-error" role="status" aria-live="polite">
      {state.error ? `⚠ ${state.error}` : ''}
    </p>
  )
}

export function PoisonControls({
  handler,
  deadLetters,
  send,
  failUnavailable,
}: {
  handler: DeserializationHandler
  deadLetters: number | undefined
  send: SendCommand
  failUnavailable: string | undefined
}) {
  const id = useId()
  const [runHandler, handlerState] = useCommand(send)
  const [runPoison, poisonState] = useCommand(send)
  const [text, setText] = useState('1')
  const count = Number(text)
  const valid = Number.isInteger(count) && count >= 1 && count <= POISON_MAX
  return (
    <fieldset className="control poison-control" data-testid="poison-controls">
      <legend>poison records</legend>
      <span className="muted small" id={`${id}-handler`}>
        default.deserialization.exception.handler
      </span>
      <Segmented
        label="default.deserialization.exception.handler"
        options={DESERIALIZATION_HANDLERS.map((h) =>
          h === 'fail' && failUnavailable
            ? { value: h, title: failUnavailable, disabled: true }
            : { value: h, title: HANDLER_TITLE[h] },
        )}
        value={handler}
        testId={(h) => `handler-${h}`}
        disabled={handlerState.pending}
        onSelect={(h) => runHandler('setConfig', { 'default.deserialization.exception.handler': h })}
      />
      <div className="control-row">
        <label htmlFor={id} className="muted small">
          count
        </label>
        <input
          id={id}
          className="num text-input poison-count"
          type="number"
          min={1}
          max={POISON_MAX}
          value={text}
          data-testid="poison-count"
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <button
          type="button"
          className="warn"
          data-testid="inject-poison"
          disabled={!valid || poisonState.pending}
          title="append input records whose values do not parse"
          onClick={() => runPoison('injectPoison', { count })}
        >
          Append poison
        </button>
      </div>
      <p className="muted small">{HANDLER_TITLE[handler]}.</p>
      {failUnavailable ? (
        <p className="muted small unavailable" data-testid="unavailable-fail-handler">
          fail is unavailable here: {failUnavailable}
        </p>
      ) : null}
      <p className="small poison-dlq">
        dead-letter records{' '}
        <span
          className="num strong"
          data-testid="dead-letters"
          title="records on the dead-letter topic, counted by the validator"
        >
          {fmtInt(deadLetters)}
        </span>
      </p>
      <ErrorLine state={handlerState.error ? handlerState : poisonState} />
    </fieldset>
  )
}
