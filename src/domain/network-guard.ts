// Which network addresses an outgoing webhook request may reach. Outside development only public
// unicast addresses qualify: a name is resolved and EVERY address it has is checked (a name with
// one private address among public ones is refused, so round-robin answers cannot smuggle one in),
// and the connection is made to an address that was checked, not to a second lookup's answer.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Whether an IP address (v4 or v6, IPv4-mapped v6 unwrapped) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  // IPv4-compatible addresses (::/96, deprecated by RFC 4291) carry an IPv4 address in their last
  // 32 bits, and ipaddr.js calls them unicast: ::7f00:1 is 127.0.0.1, ::a9fe:a9fe the cloud
  // metadata address. No public service is reached that way, so the whole block is refused.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return false;
  // Everything else (private, loopback, linkLocal, uniqueLocal, carrierGradeNat, multicast,
  // reserved, unspecified, 6to4/teredo relays...) is refused.
  return parsed.range() === 'unicast';
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  return ipaddr.isValid(h) && ipaddr.parse(h).range() === 'loopback';
}

/** An address literal (as in a URL host) that is not public. Names return false: they are checked when resolved. */
export function literalAddressBlocked(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return net.isIP(h) !== 0 && !isPublicAddress(h);
}

export class BlockedAddressError extends Error {
  readonly code = 'BLOCKED_ADDRESS';
  constructor() {
    super('the webhook host resolves to a non-public address');
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that resolves all addresses of the host and refuses the request
 * unless every one is public. Used for every connection of a delivery outside development.
 */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) return callback(new BlockedAddressError() as NodeJS.ErrnoException, []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
