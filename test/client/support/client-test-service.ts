/**
 * The real service for the client's tests, in this process: the HTTP test
 * application (`apps/agent-ledger/src/http/testing/`: `createServiceApp` on
 * embedded stores in a temp folder, listening on a free loopback port) with
 * API keys, one worker (so that queued runs complete) and the agents below.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import type { ApiSchemaName } from '@agent-ledger/client';
import { apiSchemas, toJsonSchema } from '@agent-ledger/client';
import type { RecordedEvent } from '@agent-ledger/event-store';
import type { HttpTestApp, HttpTestKey } from '../../../apps/agent-ledger/src/http/testing/http-test-app';
import { httpTestKey, startHttpTestApp } from '../../../apps/agent-ledger/src/http/testing/http-test-app';

import { API_TEST_AGENTS_YAML as CLIENT_TEST_AGENTS_YAML } from '../../../apps/agent-ledger/src/http/testing/api-test-agents';

export { CLIENT_TEST_AGENTS_YAML };

/** The service, its keys, and what the tests read from its store. */
export interface ClientTestService {
  readonly app: HttpTestApp;
  readonly baseUrl: string;
  /** Every scope, every agent. */
  readonly admin: HttpTestKey;
  /** `runs:read` only. */
  readonly reader: HttpTestKey;
  /** `runs:submit` and `runs:read`, agent `clock` only. */
  readonly clockOnly: HttpTestKey;
  /** The run store's events of the run category (`run-*`), in the store's order: what `GET /events` streams. */
  runEvents(): Promise<RecordedEvent[]>;
  close(): Promise<void>;
}

/** Starts the service with the agents above, three keys, and one worker. */
export async function startClientTestService(): Promise<ClientTestService> {
  const folder = mkdtempSync(join(tmpdir(), 'agent-ledger-client-int-'));
  const agentsPath = join(folder, 'agents.yaml');
  writeFileSync(agentsPath, CLIENT_TEST_AGENTS_YAML);
  const admin = httpTestKey('admin', ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read']);
  const reader = httpTestKey('reader', ['runs:read']);
  const clockOnly = httpTestKey('clock-only', ['runs:submit', 'runs:read'], ['clock']);
  let app: HttpTestApp;
  try {
    app = await startHttpTestApp({ keys: [admin, reader, clockOnly], env: { AGENTS_CONFIG: agentsPath, WORKER_CONCURRENCY: '1' } });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  return {
    app,
    baseUrl: app.baseUrl,
    admin,
    reader,
    clockOnly,
    async runEvents() {
      const events: RecordedEvent[] = [];
      for await (const event of app.stores.runStore.readAll()) if (event.streamName.startsWith('run-')) events.push(event);
      return events;
    },
    async close() {
      try {
        await app.close();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

/**
 * Checks a real answer against the JSON Schema the client's contract gives
 * for it, closed by default (`additionalProperties: false`): a field
 * missing, of another type, or not in the contract fails. Returns the answer.
 */
export function conforms<T>(name: ApiSchemaName, answer: T, { closed = true }: { readonly closed?: boolean } = {}): T {
  let validate = validators.get(`${name}:${closed}`);
  if (validate === undefined) {
    validate = ajv.compile(toJsonSchema(apiSchemas[name], { closed }));
    validators.set(`${name}:${closed}`, validate);
  }
  if (!validate(answer)) {
    throw new Error(`The answer does not conform to ${name}: ${ajv.errorsText(validate.errors, { separator: '\n' })}\n${JSON.stringify(answer).slice(0, 2000)}`);
  }
  return answer;
}
