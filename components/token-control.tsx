'use client'
// The header's token control: "unlock controls" opens an inline field for the lab's token
// (EOSCOPE_TOKEN), kept in sessionStorage for this tab. A refusal from the lab opens it, says why
// and moves the focus into it.

import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react'
import { dismissTokenPrompt, setToken, useLabToken } from './lab-token.ts'

/**
 * Whether this server's controls need a token (GET /api/access): null until it answered. A refusal
 * of the question itself (reads locked) means they do.
 */
function useControlsNeedToken(): boolean | null {
  const [needs, setNeeds] = useState<boolean | null>(null)
  useEffect(() => {
    const ac = new AbortController()
    fetch('/api/access', { cache: 'no-store', signal: ac.signal })
      .then(async (r) => {
        if (!r.ok) return setNeeds(true)
        const body = (await r.json()) as { controlNeedsToken?: boolean }
        setNeeds(body.controlNeedsToken !== false)
      })
      .catch(() => {
        if (!ac.signal.aborted) setNeeds(true)
      })
    return () => ac.abort()
  }, [])
  return needs
}

export function TokenControl() {
  const { token, prompt, promptSeq } = useLabToken()
  const needsToken = useControlsNeedToken()
  const [open, setOpen] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)
  const id = useId()

  // Every request for the token opens the field and focuses it.
  useEffect(() => {
    if (promptSeq === 0) return
    setOpen(true)
    // After the field has rendered.
    requestAnimationFrame(() => input.current?.focus())
  }, [promptSeq])

  useEffect(() => {
    if (open) input.current?.focus()
  }, [open])

  /** Closes the field (its draft goes with it) and gives the focus back to the toggle. */
  const close = () => {
    setOpen(false)
    dismissTokenPrompt()
    requestAnimationFrame(() => toggle.current?.focus())
  }

  // "unlock controls" only where a token is needed: a server without one shows nothing here.
  if (!open && !token && !prompt && needsToken !== true) return null
  return (
    <div
      className="token-control"
      data-testid="token-control"
      data-state={token ? 'set' : 'none'}
      style={{ position: 'relative', display: 'flex', alignItems: 'center', gap: 8, fontSize: 12.5 }}
    >
      {open ? (
        <TokenForm
          id={id}
          input={input}
          invalid={Boolean(prompt)}
          canForget={Boolean(token)}
          onSave={(value) => {
            setToken(value)
            close()
          }}
          onClose={close}
        />
      ) : (
        <button
          ref={toggle}
          type="button"
          aria-expanded={false}
          data-testid="token-toggle"
          title={
            token
              ? 'a token is stored for this tab: change or forget it'
              : 'enter the lab’s token (EOSCOPE_TOKEN) to use the controls'
          }
          onClick={() => setOpen(true)}
        >
          {token ? 'token set ✓' : 'unlock controls'}
        </button>
      )}
      {prompt ? (
        // Below the control, over the page: the header keeps its height.
        <p
          id={`${id}-why`}
          role="alert"
          className="bad"
          data-testid="token-message"
          style={{
            position: 'absolute',
            top: 'calc(100% + 8px)',
            left: 0,
            zIndex: 20,
            width: '24em',
            margin: 0,
            padding: '6px 10px',
            background: 'var(--panel)',
            border: '1px solid var(--bad)',
            borderRadius: 6,
            boxShadow: '0 4px 14px rgb(0 0 0 / 0.25)',
          }}
        >
          {prompt}
        </p>
      ) : null}
    </div>
  )
}

interface TokenFormProps {
  id: string
  input: RefObject<HTMLInputElement | null>
  /** The lab refused the token (or asked for one): the field says so, described by the message. */
  invalid: boolean
  canForget: boolean
  /** A token to keep for this tab, or null to forget the stored one. */
  onSave: (token: string | null) => void
  onClose: () => void
}

function TokenForm({ id, input, invalid, canForget, onSave, onClose }: TokenFormProps) {
  const [draft, setDraft] = useState('')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (draft.trim()) onSave(draft)
  }
  return (
    <form
      onSubmit={submit}
      style={{ display: 'flex', alignItems: 'center', gap: 6 }}
      onKeyDown={(e) => e.key === 'Escape' && onClose()}
    >
      <label htmlFor={id} className="muted">
        token
      </label>
      <input
        id={id}
        ref={input}
        className="text-input mono"
        type="password"
        name="eoscope-token"
        autoComplete="off"
        spellCheck={false}
        placeholder="EOSCOPE_TOKEN"
        aria-describedby={invalid ? `${id}-why` : undefined}
        aria-invalid={invalid ? true : undefined}
        value={draft}
        onChange={(e) => setDraft(e.currentTarget.value)}
        data-testid="token-input"
        style={{ width: '14em' }}
      />
      <button type="submit" disabled={!draft.trim()} data-testid="token-save">
        unlock
      </button>
      {canForget ? (
        <button type="button" className="link-button" data-testid="token-forget" onClick={() => onSave(null)}>
          forget
        </button>
      ) : null}
      <button type="button" className="link-button" onClick={onClose}>
        cancel
      </button>
    </form>
  )
}
