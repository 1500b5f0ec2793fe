/**
 * The viewer answers only requests addressed to it. A page on another site can make the browser
 * send requests to 127.0.0.1 under its own host name (DNS rebinding) and read the answers, since
 * to the browser they come from that site; such requests carry the other site's name in their
 * Host header. So the Host header must name this server: a loopback name (127.0.0.1, localhost,
 * [::1]) or the address given with `--host`, with the port the server listens on; listening on
 * every interface (0.0.0.0, ::), also this machine's addresses and its host name.
 */
import { isIPv6 } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';

/** The body of the 421 answer to a request addressed to another host. */
export const MISDIRECTED =
  'Misdirected request: llmkb view answers only requests addressed to its own host and port (its loopback names or the --host it was given).\n';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** A host as it appears in a Host header: lower case, an IPv6 address in brackets. */
function hostForm(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return isIPv6(bare) ? `[${bare}]` : bare;
}

/** Every address of this machine's network interfaces, and its host name. */
function ownAddresses(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address).filter((a) => !a.includes('%')));
  return [...addresses, hostname()];
}

/** The Host header values a server listening on `listenHost`:`port` answers. */
export function allowedHosts(listenHost: string, port: number): Set<string> {
  const wildcard = listenHost === '0.0.0.0' || hostForm(listenHost) === '[::]';
  const names = new Set([...LOOPBACK_NAMES, listenHost, ...(wildcard ? ownAddresses() : [])].map(hostForm));
  const allowed = new Set([...names].map((name) => `${name}:${port}`));
  // A browser leaves the default port out of the Host header.
  if (port === 80) for (const name of names) allowed.add(name);
  return allowed;
}

/** Whether a request's Host header names this server (no Host header: it does not). */
export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  return header !== undefined && allowed.has(header.trim().toLowerCase());
}
