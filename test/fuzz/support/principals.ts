/**
 * The principals of the HTTP fuzz suite: two API keys limited to agents of
 * their own (`alice` and `bob`), an operator's key for every agent, a key
 * that may only scrape metrics, and the agents they use (scripted: no model
 * server). Each principal's runs carry a secret marker in their input, so
 * that a leak of their data to another principal is a substring search.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Who sends a request. */
export type PrincipalName = 'alice' | 'bob' | 'ops' | 'scraper';

/** A configured key: the key the test holds and the entry the service is configured with. */
export interface Principal {
  readonly name: PrincipalName;
  readonly key: string;
  readonly entry: { readonly id: string; readonly hash: string; readonly scopes: readonly string[]; readonly agents?: readonly string[] };
  /** The agents it is limited to; null: every agent. */
  readonly agents: readonly string[] | null;
  /** A string in the input of each run it starts in the fixture, and nowhere else. */
  readonly marker: string;
}

const ALL_SCOPES = ['runs:submit', 'runs:read', 'runs:approve', 'audit:read', 'operate', 'metrics:read'];

/** The agents of each principal (their own names: a name of one never contains a name of another). */
export const AGENTS = {
  alice: ['alice-clock', 'alice-writer', 'alice-asker'],
  bob: ['bob-clock', 'bob-writer', 'bob-asker'],
  ops: ['ops-clock'],
} as const;

function principal(name: PrincipalName, scopes: readonly string[], agents: readonly string[] | null): Principal {
  const key = randomBytes(32).toString('base64url');
  const hash = `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
  return {
    name,
    key,
    entry: { id: `${name}-key`, hash, scopes, ...(agents === null ? {} : { agents }) },
    agents,
    marker: `SECRET${randomBytes(8).toString('hex')}${name.toUpperCase()}`,
  };
}

/** Fresh keys for one suite. `alice` and `bob` hold every scope, limited to their agents; `ops` every scope and agent. */
export function makePrincipals(): Readonly<Record<PrincipalName, Principal>> {
  return {
    alice: principal('alice', ALL_SCOPES, AGENTS.alice),
    bob: principal('bob', ALL_SCOPES, AGENTS.bob),
    ops: principal('ops', ALL_SCOPES, null),
    scraper: principal('scraper', ['metrics:read'], null),
  };
}

/** `API_KEYS` for the principals. */
export function apiKeysEnv(principals: Readonly<Record<PrincipalName, Principal>>): string {
  return JSON.stringify(Object.values(principals).map((p) => p.entry));
}

function clock(name: string): string {
  return `  - name: ${name}
    instructions: Tell the time.
    tools: [clock.now]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: clock.now
        - final: ${name} read the clock.
`;
}

function writer(name: string): string {
  // files.write is pre-approved (it runs), files.append is not: the run waits for a decision.
  return `  - name: ${name}
    instructions: Write, then append.
    tools: [files.write, files.append]
    maxIterations: 4
    approvals:
      preApproved: [files.write]
      onDenial: tellModel
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.write
              arguments: { path: ${name}/report.txt, content: "report of ${name}" }
        - toolCalls:
            - tool: files.append
              arguments: { path: ${name}/log.txt, content: "line of ${name}\\n" }
        - final: ${name} wrote and appended.
`;
}

function asker(name: string): string {
  return `  - name: ${name}
    instructions: Ask, then answer.
    tools: [user.ask]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: user.ask
              arguments: { question: "Which file, ${name}?" }
        - final: ${name} got its answer.
`;
}

/** The agents file of the suite. */
export function fuzzAgentsYaml(): string {
  return [
    'agents:\n',
    ...AGENTS.alice.map((n) => (n.endsWith('writer') ? writer(n) : n.endsWith('asker') ? asker(n) : clock(n))),
    ...AGENTS.bob.map((n) => (n.endsWith('writer') ? writer(n) : n.endsWith('asker') ? asker(n) : clock(n))),
    ...AGENTS.ops.map(clock),
  ].join('');
}
