import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

interface ComposeService {
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

const compose = parse(readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8')) as ComposeFile;

describe('docker-compose.yml', () => {
  it('runs a single insecure EventStoreDB node on 2113 with a named volume', () => {
    const eventstore = compose.services.eventstore;
    expect(eventstore?.image).toMatch(/^(eventstore\/eventstore|kurrentplatform\/kurrentdb|docker\.kurrent\.io\/.+):/);
    expect(eventstore?.environment?.EVENTSTORE_CLUSTER_SIZE).toBe('1');
    expect(eventstore?.environment?.EVENTSTORE_INSECURE).toBe('true');
    expect(eventstore?.ports).toContain('2113:2113');
    const volume = eventstore?.volumes?.[0]?.split(':')[0];
    expect(volume).toBeDefined();
    expect(Object.keys(compose.volumes)).toContain(volume);
  });

  it('wires the service to EventStoreDB through EVENTSTORE_CONNECTION_STRING without TLS', () => {
    const service = compose.services['agent-ledger'];
    const connection = service?.environment?.EVENTSTORE_CONNECTION_STRING;
    expect(connection).toMatch(/^esdb:\/\/eventstore:2113\?(.*&)?tls=false/);
    expect(service?.depends_on?.eventstore?.condition).toBe('service_healthy');
    expect(service?.ports).toContain('3000:3000');
  });
});
