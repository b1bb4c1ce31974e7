// A warning for the operator when a service that is not configured for production listens beyond
// this machine: in local mode (no identity provider) every request is the local user, so anyone
// who can reach the port has that user's recordings; in development the defaults are lax too
// (webhooks to private networks, the re-analysis route).
import net from 'node:net';
import type { Config } from '../config.js';

/** Whether `host` only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/** The warning to log at start, or null when the bind address is not a concern. */
export function bindAddressWarning(config: Pick<Config, 'host' | 'serviceEnv' | 'isProduction' | 'auth'>): string | null {
  if (config.isProduction || isLoopbackHost(config.host)) return null;
  const everyone = config.host === '0.0.0.0' || config.host === '::' ? 'every network interface' : `a non-loopback address`;
  if (!config.auth.projectId) {
    return `HOST is ${everyone} in ${config.serviceEnv} mode with no identity provider (IDP_PROJECT_ID unset): anyone who can reach this port acts as the local user and can read its recordings. Set HOST=127.0.0.1 for local use, or configure IDP_PROJECT_ID (and SERVICE_ENV=production when deployed).`;
  }
  return `HOST is ${everyone} in ${config.serviceEnv} mode: development defaults (webhooks to private networks, the re-analysis route) are reachable from the network. Set HOST=127.0.0.1 for local use, or SERVICE_ENV=production when deployed.`;
}
