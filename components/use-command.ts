// One control's command: runs it, remembers the acknowledgement's error until the next run.

import { useCallback, useState } from 'react'
import type { CommandName, CommandInput, CommandResult } from '../lib/lab-protocol.ts'
import { isUnauthorized } from './lab-token.ts'

export type SendCommand = <N extends CommandName>(name: N, payload: CommandInput<N>) => Promise<CommandResult>

export interface CommandState {
  pending: boolean
  error: string | null
}

export function useCommand(send: SendCommand) {
  const [state, setState] = useState<CommandState>({ pending: false, error: null })
  const run = useCallback(
    async <N extends CommandName>(name: N, payload: CommandInput<N>): Promise<CommandResult> => {
      setState({ pending: true, error: null })
      const r = await send(name, payload)
      // A refusal for want of the token says where to enter it (the header's token control opens too).
      setState({
        pending: false,
        error: r.ok
          ? null
          : isUnauthorized(r.error)
            ? 'unauthorized: enter the lab’s token (unlock controls, top right)'
            : r.error,
      })
      return r
    },
    [send],
  )
  return [run, state] as const
}
