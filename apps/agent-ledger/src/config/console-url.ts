/**
 * The console's URL as the start-up log prints it. A wildcard address
 * (`0.0.0.0`, `::`) is not one a browser can open: the line names
 * `localhost` instead and says that the service listens on every interface
 * (from another machine, or through a container's published port, the host
 * and port are that machine's).
 */
export function consoleUrlLine(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') {
    return `console: http://localhost:${port}/console/ (listening on all interfaces, ${host}: from elsewhere use this machine's address, or the published port of its container)`;
  }
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `console: http://${shown}:${port}/console/`;
}
