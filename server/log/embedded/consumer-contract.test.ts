import { describeConsumerPositionContract } from '../consumer-contract.ts'
import { SystemTime } from '../time.ts'
import { ClientFaults, EmbeddedConnection } from './embedded-connection.ts'
import { EmbeddedCluster } from './embedded-cluster.ts'
import { ProcessHandle } from './process-handle.ts'

let n = 0
const cluster = new EmbeddedCluster(new SystemTime())
const conn = new EmbeddedConnection(cluster, new ProcessHandle('contract'), new ClientFaults())

describeConsumerPositionContract('embedded', {
  connection: () => conn,
  name: (what) => `${what}-${++n}`,
  timeoutMs: 5_000,
})
