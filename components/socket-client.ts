// The browser's one socket to the lab, created on first use (never during server rendering).
// It connects with the stored token and the page's view (auth: { token, view }) and reconnects
// when the token changes.

import { io, type Socket } from 'socket.io-client'
import type { LiveClientToServerEvents, LiveServerToClientEvents } from '../lib/live-delta.ts'
import type { LiveView } from '../lib/live-views.ts'
import { readToken, subscribeToken } from './lab-token.ts'

export type LabSocket = Socket<LiveServerToClientEvents, LiveClientToServerEvents>

let socket: LabSocket | null = null
/** A view wants the socket open (openLabSocket until closeLabSocket). */
let wanted = false
let lastToken: string | null = null
/** The view the page shows (lib/live-views.ts), sent at every (re)connection. */
let view: LiveView = 'all'
/** The view the server holds for this socket: named by the last handshake or the last `view` answer. */
let named: LiveView | null = null

/** The view a (re)connection names; a connected socket is told with the `view` event (use-lab.ts). */
export function setLabView(v: LiveView): void {
  view = v
}

/** The view the server holds for the socket (null before the first handshake). */
export function serverView(): LiveView | null {
  return named
}

/** The server's answer to a `view` event named the view it now holds. */
export function noteServerView(v: LiveView): void {
  named = v
}

export function getLabSocket(): LabSocket {
  if (!socket) {
    // Same origin; websocket straight away (the server accepts only this page's origin).
    // auth is read at every (re)connection, so it always carries the current token.
    socket = io({
      path: '/socket.io',
      transports: ['websocket'],
      autoConnect: false,
      reconnectionDelayMax: 2000,
      auth: (cb) => {
        const token = readToken()
        named = view
        cb(token ? { token, view } : { view })
      },
    })
    lastToken = readToken()
    subscribeToken(() => {
      const token = readToken()
      if (token === lastToken) return
      lastToken = token
      // A new token: connect again so the handshake carries it (also after a refused handshake).
      if (socket && wanted) socket.disconnect().connect()
    })
  }
  return socket
}

export function openLabSocket(): LabSocket {
  wanted = true
  return getLabSocket().connect()
}

export function closeLabSocket(): void {
  wanted = false
  socket?.disconnect()
}
