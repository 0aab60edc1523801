// The flags of leader election, Ingress status and Events.
import { ConfigError } from '../../errors.js';
import { optional, text, toggle } from '../flag.js';
import { parseAddressList, parseDuration, parseObjectRef } from '../values.js';

/** A Lease name: a DNS subdomain. */
function parseLeaseName(flag: string, value: string): string {
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value) || value.length > 253) throw new ConfigError(`--${flag}: not a valid Lease name: ${JSON.stringify(value)}`);
  return value;
}

export const STATUS_FLAGS = {
  electionId: text('election-id', 'portico-leader', 'name of the Lease replicas elect a leader on (in POD_NAMESPACE)', parseLeaseName),
  electionTtlMs: text('election-ttl', '30s', 'how long a leader keeps the Lease without renewing it', (flag, t) => parseDuration(flag, t, 1000)),
  publishService: optional('publish-service', 'namespace/name of the Service whose address is written to Ingress status', parseObjectRef),
  publishStatusAddress: text('publish-status-address', '', 'comma-separated IPs or hostnames written to Ingress status', parseAddressList),
  updateStatus: toggle('update-status', true, 'write status.loadBalancer of the Ingresses served (leader only)'),
  updateStatusOnShutdown: toggle('update-status-on-shutdown', true, 'clear that status when the last replica stops'),
  reportNodeInternalIp: toggle('report-node-internal-ip-address', false, "use nodes' InternalIP, not ExternalIP, in status"),
  /** No Normal Sync Event per applied Ingress. */
  disableSyncEvents: toggle('disable-sync-events', false, 'no Normal `Sync` Event per applied Ingress (the sync log line stays); Warning and RELOAD Events stay, as in ingress-nginx'),
};
