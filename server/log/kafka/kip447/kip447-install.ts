// exactly_once_v2 on kafkajs 2.2.4: its transactional offset commit (inside Transaction.sendOffsets)
// is taught TxnOffsetCommit v3, with the sending member's generation and member id read from a
// registry that the producer fills just before it sends the offsets. kafkajs picks the highest
// version both it and the broker know, so a broker that knows v3 (Kafka 2.5 and later) gets v3 from
// every transactional producer of this process. A producer that registered no member sends
// generation -1 and an empty member id: the coordinator then checks no generation, as for v0/v1
// (exactly_once, one producer per task, fenced by its epoch instead).

import { createRequire } from 'node:module'
import {
  type GroupMember,
  type ProtocolRequest,
  type TxnOffsetCommitArgs,
  txnOffsetCommitV3,
} from './kip447-requests.ts'

const require = createRequire(import.meta.url)

interface RequestDefinition {
  versions: string[]
  protocol(o: { version: number }): (args: never) => ProtocolRequest<unknown>
}

const NO_MEMBER: GroupMember = { generationId: -1, memberId: '', groupInstanceId: null }
const members = new Map<string, GroupMember>()
let installed = false

/** Teaches kafkajs TxnOffsetCommit v3 (once per process). */
export function installTxnOffsetCommitV3(): void {
  if (installed) return
  const { requests } = require('kafkajs/src/protocol/requests') as { requests: Record<string, RequestDefinition> }
  const definition = requests.TxnOffsetCommit
  if (!definition?.versions.includes('1'))
    throw new Error('this kafkajs version has no TxnOffsetCommit v1 to extend; eoscope pins kafkajs 2.2.4')
  const original = definition.protocol.bind(definition)
  definition.versions = [...definition.versions, '3']
  definition.protocol = ({ version }) =>
    version === 3
      ? (((args: TxnOffsetCommitArgs) => txnOffsetCommitV3(args, members.get(args.transactionalId) ?? NO_MEMBER)) as (
          args: never,
        ) => ProtocolRequest<unknown>)
      : original({ version })
  installed = true
}

/**
 * The group member whose offsets this transactional producer sends next (exactly_once_v2: the
 * consumer's group metadata), until cleared; null clears it.
 */
export function registerTransactionalMember(transactionalId: string, member: GroupMember | null): void {
  if (member === null || member.generationId < 0) members.delete(transactionalId)
  else members.set(transactionalId, member)
}
