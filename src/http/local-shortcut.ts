// Who may be the local user of the development shortcut (no identity provider, no API key), where
// a request needs no credential at all. A web page the developer visits can reach the service
// from the developer's own browser, so the shortcut is refused to two kinds of browser request:
//  - DNS rebinding: the page's own name made to resolve to this machine, which makes the page
//    same-origin with the service (it reads every answer). Its requests carry that name in Host,
//    so Host must be a name no stranger can publish in DNS: a loopback name, an address literal
//    (other machines and emulators that reach the service by address, such as 10.0.2.2, still
//    work), a single-label name (a container or machine name on a private network, as docker
//    compose gives: rebinding needs a name in public DNS, which always has a dot), or a name under
//    a suffix reserved for private use (.internal, e.g. host.docker.internal; .local; .home.arpa).
//  - cross-site requests a page may send without a preflight (a multipart POST, say): browsers
//    label them with Sec-Fetch-Site, and older ones with an Origin that is not the service's.
// Clients that are not browsers (curl, mobile apps) send neither header and are unaffected.
import net from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

/** The host part of a Host header value (`name:port`, `[v6]:port`), lower case. */
function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

/** Suffixes reserved for private use (RFC 6761, RFC 6762, RFC 8375, ICANN's .internal), never delegated in public DNS. */
const PRIVATE_SUFFIXES = ['.localhost', '.internal', '.local', '.home.arpa'];

/** Whether a Host header names this machine in a way no other site's page can borrow. */
export function hostCannotBeRebound(host: string | undefined): boolean {
  // HTTP/1.0 clients may omit Host; browsers never do.
  if (host === undefined) return true;
  const name = hostnameOf(host);
  if (net.isIP(name) !== 0) return true;
  const bare = name.replace(/\.$/, '');
  return !bare.includes('.') || PRIVATE_SUFFIXES.some((s) => bare.endsWith(s));
}

/** Whether a browser says the request comes from another site's page. */
export function isCrossSiteRequest(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  // Sec-Fetch-Site is set by the browser alone; where present it decides ("none" is the user
  // typing the address, "same-origin" the console itself, also through a development proxy).
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host.toLowerCase() !== (headers.host ?? '').trim().toLowerCase();
  } catch {
    // "null" (sandboxed frames, some redirects) and anything unparsable.
    return true;
  }
}

/** Whether the local development shortcut may act for this request. */
export function localShortcutAllowed(headers: IncomingHttpHeaders): boolean {
  return hostCannotBeRebound(headers.host) && !isCrossSiteRequest(headers);
}
