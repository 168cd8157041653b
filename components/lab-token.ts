// The lab's access token (EOSCOPE_TOKEN) in the browser: kept in sessionStorage only (never in the
// URL or localStorage), so it lasts as long as the tab. The socket connects with it, REST calls send
// it as a bearer token, and a refusal asks the header's token control to open.

import { useSyncExternalStore } from 'react'

const STORAGE_KEY = 'eoscope-token'

export interface TokenState {
  /** The stored token, or null. */
  token: string | null
  /** Why the token is wanted now (a refused command or handshake), or null. */
  prompt: string | null
  /** Bumped by every request for the token, so the control opens and focuses each time. */
  promptSeq: number
}

const SERVER_STATE: TokenState = { token: null, prompt: null, promptSeq: 0 }

let state: TokenState | null = null
const listeners = new Set<() => void>()

function load(): TokenState {
  if (state) return state
  let token: string | null = null
  try {
    token = sessionStorage.getItem(STORAGE_KEY) || null
  } catch {
    // storage unavailable: the token lives in this page only
  }
  state = { token, prompt: null, promptSeq: 0 }
  return state
}

function update(next: Partial<TokenState>): void {
  state = { ...load(), ...next }
  for (const l of listeners) l()
}

/** The stored token, or null (always null during server rendering). */
export function readToken(): string | null {
  return typeof window === 'undefined' ? null : load().token
}

/** Stores a token for this tab (null or '' forgets it) and tells the listeners. */
export function setToken(token: string | null): void {
  const t = token?.trim() || null
  try {
    if (t) sessionStorage.setItem(STORAGE_KEY, t)
    else sessionStorage.removeItem(STORAGE_KEY)
  } catch {
    // kept in memory only
  }
  update({ token: t, prompt: null })
}

/** Asks for the token: the header's control opens, shows `why` and takes the focus. */
export function requestToken(why: string): void {
  update({ prompt: why, promptSeq: load().promptSeq + 1 })
}

/** Clears the message without touching the token. */
export function dismissTokenPrompt(): void {
  if (load().prompt !== null) update({ prompt: null })
}

export function subscribeToken(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function useLabToken(): TokenState {
  return useSyncExternalStore(subscribeToken, load, () => SERVER_STATE)
}

/** True for the server's refusals for want of a (valid) token. */
export function isUnauthorized(error: string | null | undefined): boolean {
  return typeof error === 'string' && /^unauthorized\b/i.test(error)
}

/** `Authorization: Bearer <token>` when a token is stored. */
export function authHeaders(): Record<string, string> {
  const t = readToken()
  return t ? { authorization: `Bearer ${t}` } : {}
}

/** The text shown when the server refuses for want of a token. */
export function refusalMessage(error: string, what: 'command' | 'reads'): string {
  const invalid = /not valid/i.test(error)
  if (what === 'reads')
    return invalid
      ? 'The lab refused this token: enter the right one to see the lab.'
      : 'This lab needs its token to be seen: enter it to connect.'
  return invalid
    ? 'The lab refused the token: controls stay locked until you enter the right one.'
    : 'Controls are locked: enter the lab’s token (EOSCOPE_TOKEN) to use them.'
}
