// One control's command: runs it, remembers the acknowledgement's error until the next run.

import { useCallback, useState } from 'react'
import type { CommandName, CommandPayload, CommandResult } from '../lib/lab-protocol.ts'

export type SendCommand = <N extends CommandName>(name: N, payload: CommandPayload<N>) => Promise<CommandResult>

export interface CommandState {
  pending: boolean
  error: string | null
}

export function useCommand(send: SendCommand) {
  const [state, setState] = useState<CommandState>({ pending: false, error: null })
  const run = useCallback(
    async <N extends CommandName>(name: N, payload: CommandPayload<N>): Promise<CommandResult> => {
      setState({ pending: true, error: null })
      const r = await send(name, payload)
      setState({ pending: false, error: r.ok ? null : r.error })
      return r
    },
    [send],
  )
  return [run, state] as const
}
