import type { ServiceConfig } from './service-config';

/**
 * What to tell the operator when the service cannot listen on `HOST:PORT`,
 * naming the setting to change; null for an error that is not about the
 * address (it is not the configuration's fault).
 */
export function listenFailureMessage(error: unknown, config: Pick<ServiceConfig, 'host' | 'port'>): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const address = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen on ${address}: the port is in use by another process; set PORT (or server.port in the configuration file) to a free port, or 0 for any free port`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${address}: ${config.host} is not an address of this machine; set HOST (or server.host) to one of its addresses, e.g. 127.0.0.1 or 0.0.0.0`;
    case 'EACCES':
      return `cannot listen on ${address}: this user may not bind port ${config.port}; set PORT (or server.port) to 1024 or above`;
    default:
      return null;
  }
}
