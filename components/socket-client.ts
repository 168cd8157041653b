// The browser's one socket to the lab, created on first use (never during server rendering).

import { io, type Socket } from 'socket.io-client'
import type { LiveClientToServerEvents, LiveServerToClientEvents } from '../server/http/live-delta.ts'

export type LabSocket = Socket<LiveServerToClientEvents, LiveClientToServerEvents>

let socket: LabSocket | null = null

export function getLabSocket(): LabSocket {
  if (!socket) {
    // Same origin; websocket straight away (the server accepts only this page's origin).
    socket = io({ path: '/socket.io', transports: ['websocket'], autoConnect: false, reconnectionDelayMax: 2000 })
  }
  return socket
}
