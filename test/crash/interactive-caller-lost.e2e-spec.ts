/**
 * Regression test of the first bug the crash scenarios found (point
 * duringToolCall, seed 762125917): a service killed inside POST /runs (mode
 * interactive), between `RunRequested` and its `ClaimRun`, left the run QUEUED
 * for ever, since nobody but its caller may claim an interactive run. The
 * reaper now fails such a run a lease after its request (`NOT_RETRYABLE`,
 * `INTERACTIVE_CALLER_LOST`). Details: test/crash/README.md.
 */
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunDecider } from '@agent-ledger/domain';
import { ExpectedRevision, SqliteEventStore } from '@agent-ledger/event-store';
import { toEventData } from '@agent-ledger/runtime';
import { runStreamName } from '@agent-ledger/runtime';
import { readHistory } from './support/history';
import { formatRun } from './support/report';
import { ManagedProcess } from './support/processes';
import { CRASH_RUNTIME_ENV } from './support/scenario';
import { crashAgentsYaml } from './support/workload';
import { scaled } from '../support/time-scale';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TERMINAL = new Set(['RunCompleted', 'RunFailed', 'RunCancelled']);

describe('an interactive run whose caller died (e2e, real processes)', () => {
  it(
    'is failed NOT_RETRYABLE (INTERACTIVE_CALLER_LOST) by the restarted service, never executed, when its caller died between RunRequested and RunClaimed',
    async () => {
      // The state a `serve` killed inside POST /runs (mode interactive) leaves: RunService.runInteractive
      // appended RunRequested, and died before its ClaimRun. Found by point-duringToolCall, seed 762125917
      // (the service was killed at another run's crash point while this request was between the two appends).
      const dir = mkdtempSync(join(tmpdir(), 'agent-ledger-known-bug-'));
      const dataDir = join(dir, 'data');
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(join(dir, 'agents.yaml'), crashAgentsYaml());
      const runStorePath = join(dataDir, 'agent-ledger.sqlite');
      const runId = 'orphan-i0';
      const store = SqliteEventStore.open({ path: runStorePath });
      try {
        const decider = createRunDecider();
        const decision = decider.decide({ type: 'RequestRun', data: { runId, agent: 'mixer', input: { task: runId }, mode: 'interactive', requestedBy: { kind: 'bus', id: 'crash-test' }, maxIterations: 6 }, metadata: { now: Date.now() } }, decider.initialState());
        if (decision.kind !== 'accepted') throw new Error(`RequestRun was not accepted: ${JSON.stringify(decision)}`);
        await store.append(runStreamName(runId), toEventData(runStreamName(runId), 0n, decision.events, { correlationId: runId }), { expectedRevision: ExpectedRevision.NO_STREAM });
      } finally {
        await store.close();
      }

      // The service and a worker, restarted on those files, with the crash scenarios' short leases and fast reaper.
      const env = { ...CRASH_RUNTIME_ENV, TS_NODE_TRANSPILE_ONLY: '1', TS_NODE_PROJECT: 'tsconfig.json', EVENTSTORE_CONNECTION_STRING: '', AGENT_LEDGER_DATA_DIR: dataDir, AGENTS_CONFIG: join(dir, 'agents.yaml'), AGENT_LEDGER_TEST_LEDGER: join(dir, 'ledger.jsonl'), PORT: '0' };
      const log = createWriteStream(join(dir, 'processes.log'));
      const processes = [new ManagedProcess('serve', 'serve', env, log, Date.now(), () => undefined), new ManagedProcess('worker-1', 'worker', env, log, Date.now(), () => undefined)];
      try {
        for (const p of processes) p.start(null);
        // One lease (4 s) after the request, the reaper (every 500 ms) may fail it; polled with a deadline of fifteen leases.
        const files = { runStore: runStorePath, auditStorePath: null, ledgerPath: join(dir, 'ledger.jsonl') };
        const deadline = Date.now() + scaled(60_000);
        let history = await readHistory(files);
        while (!(history.runs.get(runId) ?? []).some((e) => TERMINAL.has(e.type)) && Date.now() < deadline) {
          await sleep(250);
          history = await readHistory(files);
        }
        const events = history.runs.get(runId) ?? [];
        const terminal = events.filter((e) => TERMINAL.has(e.type));
        if (terminal.length !== 1) throw new Error(`invariant 6: the run has ${terminal.length} terminal events 60 s after the restart:\n${formatRun(history, runId)}`);
        expect(terminal[0]?.type).toBe('RunFailed');
        expect(terminal[0]?.data['reason']).toBe('NOT_RETRYABLE');
        expect(terminal[0]?.data['failure']).toEqual(expect.objectContaining({ code: 'INTERACTIVE_CALLER_LOST' }));
        // Nobody executed it: no claim, no step, nothing in the execution ledger.
        expect(events.map((e) => e.type)).toEqual(['RunRequested', 'RunFailed']);
        expect(history.ledger).toEqual([]);
      } finally {
        for (const p of processes) await p.stop();
        await new Promise<void>((resolve) => log.end(resolve));
        rmSync(dir, { recursive: true, force: true });
      }
    },
    scaled(120_000),
  );
});
