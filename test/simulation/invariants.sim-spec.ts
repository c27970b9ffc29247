import fc from 'fast-check';
import type { AuditEvent, RunEvent } from '@agent-ledger/domain';
import type { Check } from './invariants';
import { checkInvariants } from './invariants';
import type { Schedule } from './sim-model';
import { scheduleArbitrary } from './sim-model';
import { runSchedule, SimTotals, simulationProperty } from './sim-runner';
import type { History, LedgerEntry, RunHistory } from './sim-world';
import { scaled } from '../support/time-scale';

/*
 * The checker can fail: broken histories, and a runtime with a deliberate
 * bug, must give violations. Without this, "zero violations" would prove
 * nothing.
 */

/** A schedule through most paths: writes, an approval, input, a denial told to the model, a tool requiring approval, MAX_ITERATIONS. */
const RICH: Schedule = {
  initial: ['writer', 'careful', 'asker', 'told', 'guarded', 'looper'],
  actions: [
    { kind: 'step', slot: 0, pauseAfter: null },
    { kind: 'step', slot: 1, pauseAfter: 2 },
    { kind: 'resume', pick: 0, pauseAfter: null },
    { kind: 'step', slot: 0, pauseAfter: null },
    { kind: 'decide', pick: 0, approve: true, slot: 1 },
  ],
  settle: { paused: 'resume', approvals: [true, false] },
};

let clean: History;

beforeAll(async () => {
  const outcome = await runSchedule(RICH);
  expect(outcome.violations).toEqual([]);
  clean = outcome.history;
}, scaled(60_000));

/** A deep copy of the clean history, changed by `change`, checked. */
function checksAfter(change: (h: { runs: RunHistory[]; ledger: LedgerEntry[]; unexpected: string[] }) => void): Check[] {
  const copy = structuredClone({ runs: clean.runs, ledger: clean.ledger, unexpected: [...clean.unexpected] }) as { runs: RunHistory[]; ledger: LedgerEntry[]; unexpected: string[] };
  change(copy);
  return [...new Set(checkInvariants({ ...clean, ...copy }).violations.map((v) => v.check))];
}

const runOf = (h: { runs: RunHistory[] }, agent: string) => h.runs.find((r) => r.agent === agent) as RunHistory & { events: RunEvent[] };
const indexOf = (events: readonly RunEvent[], match: (e: RunEvent) => boolean) => events.findIndex(match);

describe('the invariant checker on broken histories', () => {
  it('finds nothing wrong in a clean history through most paths', () => {
    expect(checkInvariants(clean).violations).toEqual([]);
    const agents = clean.runs.map((r) => r.events.at(-1)?.type);
    expect(agents.every((t) => t === 'RunCompleted' || t === 'RunFailed')).toBe(true);
  });

  it('1: a second terminal event', () => {
    expect(checksAfter((h) => runOf(h, 'writer').events.push(runOf(h, 'writer').events.at(-1) as RunEvent))).toContain('inv1-one-terminal');
  });

  it('2: a step started under a lease that is not the current one', () => {
    expect(
      checksAfter((h) => {
        const events = runOf(h, 'writer').events;
        const start = events[indexOf(events, (e) => e.type === 'StepStarted' && e.data.kind === 'tool')] as RunEvent & { type: 'StepStarted' };
        (start.data as { owner: string }).owner = 'worker:stale-host:1:s1';
      }),
    ).toContain('inv2-lease');
  });

  it('2: a model answer recorded after the run was requeued (no lease at all)', () => {
    expect(
      checksAfter((h) => {
        const events = runOf(h, 'careful').events;
        // After the ApprovalRequested the segment gave up its lease: its ModelResponded cannot come after it.
        const asked = indexOf(events, (e) => e.type === 'ApprovalRequested');
        const answer = events[indexOf(events, (e) => e.type === 'ModelResponded')] as RunEvent;
        events.splice(asked + 1, 0, answer);
      }),
    ).toContain('inv2-lease');
  });

  it('3: a write without its audit event on a completed run', () => {
    expect(
      checksAfter((h) => {
        const run = runOf(h, 'writer');
        (run as unknown as { audit: unknown[] }).audit = run.audit.filter((e) => !(e.type === 'AuditRecorded' && e.data.toolName === 'test.put'));
      }),
    ).toContain('inv3-audit');
  });

  it('4: a non-idempotent write executed twice', () => {
    expect(
      checksAfter((h) => {
        const append = h.ledger.find((x) => x.name === 'test.append') as LedgerEntry;
        h.ledger.push({ ...append, order: h.ledger.length });
      }),
    ).toContain('inv4-non-idempotent-once');
  });

  it('5: a completed step executed again by the segment holding the run', () => {
    expect(
      checksAfter((h) => {
        const run = runOf(h, 'writer');
        const read = h.ledger.find((x) => x.runId === run.runId && x.name === 'test.read') as LedgerEntry;
        const done = indexOf(run.events, (e) => e.type === 'ToolExecuted' && e.data.stepId === read.stepId);
        h.ledger.push({ ...read, order: h.ledger.length, runRevision: done + 1 });
      }),
    ).toContain('inv5-completed-once');
  });

  it('6: a run that never settled', () => {
    expect(checksAfter((h) => runOf(h, 'writer').events.pop())).toContain('inv6-all-terminal');
  });

  it("7: a run failed for a read's audit", () => {
    expect(
      checksAfter((h) => {
        const run = runOf(h, 'writer');
        const read = run.events.find((e) => e.type === 'StepStarted' && e.data.toolName === 'test.read') as RunEvent & { type: 'StepStarted' };
        const last = run.events.length - 1;
        run.events[last] = {
          type: 'RunFailed',
          data: {
            runId: run.runId,
            reason: 'AUDIT_PERSISTENCE_FAILED',
            failure: { failureClass: 'unknown', code: 'AUDIT_PERSISTENCE_FAILED', message: `The audit event of write step ${read.data.stepId} (tool test.read, READ_ONLY) of run ${run.runId} was not stored; the run fails closed` },
            deadLettered: true,
            attempt: 1,
            inFlightWrite: null,
            failedAt: 0,
          },
        };
      }),
    ).toContain('inv7-read-audit-soft');
  });

  it('fence: a write executed by a segment that had lost its lease', () => {
    expect(
      checksAfter((h) => {
        const run = runOf(h, 'writer');
        const put = h.ledger.find((x) => x.runId === run.runId && x.name === 'test.put') as LedgerEntry;
        h.ledger.push({ ...put, order: h.ledger.length, runRevision: run.events.length });
      }),
    ).toContain('fence-lease-held');
  });

  it('fence: a write executed with no fence of its own', () => {
    expect(
      checksAfter((h) => {
        const put = h.ledger.find((x) => x.name === 'test.put') as LedgerEntry;
        const index = h.ledger.indexOf(put);
        h.ledger[index] = { ...put, author: { taskId: 0, lease: { owner: 'worker:elsewhere:1:s9', attempt: put.attempt ?? 1 } } };
      }),
    ).toContain('fence');
  });

  it('approval: a write started without its pre-approval', () => {
    expect(
      checksAfter((h) => {
        const run = runOf(h, 'writer');
        (run as unknown as { events: RunEvent[] }).events = run.events.filter((e) => !(e.type === 'ToolCallPreApproved' && e.data.toolName === 'test.put'));
      }),
    ).toContain('approval');
  });

  it('approval: a write that waits for a person executed on a pre-approval only', () => {
    expect(
      checksAfter((h) => {
        const run = runOf(h, 'careful');
        const granted = indexOf(run.events, (e) => e.type === 'ApprovalGranted');
        const grant = run.events[granted] as RunEvent & { type: 'ApprovalGranted' };
        run.events[granted] = { type: 'ToolCallPreApproved', data: { runId: run.runId, stepId: grant.data.stepIds[0] as string, round: 0, callIndex: 1, toolName: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', agent: 'careful', approvedAt: 0 } };
      }),
    ).toContain('approval');
  });

  it('denied: a denied call executed', () => {
    expect(
      checksAfter((h) => {
        const run = h.runs.find((r) => r.events.some((e) => e.type === 'ApprovalDenied')) as RunHistory;
        const denied = run.events.find((e) => e.type === 'ApprovalDenied') as RunEvent & { type: 'ApprovalDenied' };
        const template = h.ledger.find((x) => x.kind === 'tool') as LedgerEntry;
        h.ledger.push({ ...template, order: h.ledger.length, runId: run.runId, name: 'test.append', stepId: denied.data.stepIds[0] as string });
      }),
    ).toContain('denied');
  });

  it('idempotency-key: a retry given another key', () => {
    expect(
      checksAfter((h) => {
        const put = h.ledger.find((x) => x.name === 'test.put') as LedgerEntry;
        h.ledger[h.ledger.indexOf(put)] = { ...put, idempotencyKey: 'agent-ledger:something-else' };
      }),
    ).toContain('idempotency-key');
  });

  it('audit-chain: an edited audit record', () => {
    expect(
      checksAfter((h) => {
        const record = runOf(h, 'writer').audit[0] as { data: { attempt: number } };
        record.data.attempt = 7;
      }),
    ).toContain('audit-chain');
  });

  it('inv9: a decision stated twice, a decision not stated, a refused decision stated, a statement that says another decision', () => {
    const careful = (h: { runs: RunHistory[] }) => runOf(h, 'careful') as unknown as { runId: string; audit: AuditEvent[] };
    const statementAt = (run: { audit: readonly AuditEvent[] }) => run.audit.findIndex((e) => e.type === 'ApprovalDecisionRecorded');
    expect(checksAfter((h) => careful(h).audit.push(careful(h).audit[statementAt(careful(h))] as AuditEvent))).toContain('inv9-decision-statements');
    expect(checksAfter((h) => careful(h).audit.splice(statementAt(careful(h)), 1))).toContain('inv9-decision-statements');
    expect(
      checksAfter((h) => {
        const asker = runOf(h, 'asker') as unknown as { runId: string; audit: AuditEvent[] };
        const stated = careful(h).audit[statementAt(careful(h))] as AuditEvent & { type: 'ApprovalDecisionRecorded' };
        asker.audit.push({ ...stated, data: { ...stated.data, runId: asker.runId } });
      }),
    ).toContain('inv9-decision-statements');
    expect(
      checksAfter((h) => {
        const stated = careful(h).audit[statementAt(careful(h))] as { data: { decision: string } };
        stated.data.decision = stated.data.decision === 'approved' ? 'denied' : 'approved';
      }),
    ).toContain('inv9-decision-statements');
  });

  it('statement-first: an approved call executed before the statement of its approval was stored', () => {
    expect(
      checksAfter((h) => {
        const run = runOf(h, 'careful');
        const granted = run.events.find((e) => e.type === 'ApprovalGranted') as RunEvent & { type: 'ApprovalGranted' };
        const execution = h.ledger.find((x) => x.runId === run.runId && granted.data.stepIds.includes(x.stepId)) as { auditRevision: number };
        execution.auditRevision = 0;
      }),
    ).toContain('statement-first');
  });

  it('runtime: an error nobody expected', () => {
    expect(checksAfter((h) => h.unexpected.push('task #3 (worker step) threw Error: boom'))).toEqual(['runtime']);
  });
});

describe('the simulation on a runtime with a deliberate bug', () => {
  const failureOf = async (mutation: 'nonIdempotentWriteRunsTwice' | 'auditSilentlyLost' | 'statementBeforeDecision'): Promise<string> => {
    const totals = new SimTotals();
    try {
      await fc.assert(simulationProperty(12, totals, { mutation }), { numRuns: 200, seed: 4242, includeErrorInReport: true });
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    throw new Error(`the ${mutation} mutation survived 200 schedules`);
  };
  const shrunkActions = (message: string) => (JSON.parse(/Counterexample: \[(.*)\]\n/.exec(message)?.[1] ?? '{}') as Schedule).actions?.length;

  it('finds a NON_IDEMPOTENT_WRITE tool that executes twice, and shrinks it to a small schedule with a replay seed', async () => {
    const message = await failureOf('nonIdempotentWriteRunsTwice');
    expect(message).toMatch(/\[inv4-non-idempotent-once\] run-\d+: run-\d+\/r\d+\/t\d+ executed 2 times/);
    expect(message).toMatch(/seed: 4242, path: "[\d:]+"/);
    // Shrunk to one writer run and no action: the settle phase alone runs it.
    expect(message).toMatch(/Counterexample: \[\{"audit":"(own|run) store","initial":\["writer"\],"actions":\[\]/);
  }, scaled(120_000));

  it('finds an audit store that loses the audit events of writes', async () => {
    const message = await failureOf('auditSilentlyLost');
    expect(message).toMatch(/\[inv3-audit\] run-\d+: write run-\d+\/r\d+\/t\d+ executed without its audit event; the run is COMPLETED \(gap recorded\)/);
    expect(shrunkActions(message)).toBe(0);
  }, scaled(120_000));
});

describe('the simulation on the runtime as it stated decisions before taking them', () => {
  it('finds a statement for a decision that did not take effect, from concurrent decisions', async () => {
    const totals = new SimTotals();
    let message = '';
    try {
      await fc.assert(simulationProperty(12, totals, { mutation: 'statementBeforeDecision' }), { numRuns: 300, seed: 4242, includeErrorInReport: true });
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).toMatch(/\[inv9-decision-statements\] run-\d+: /);
  }, 180_000);
});

describe('determinism', () => {
  /** A history as JSON, segment owners renamed in order of appearance (their tags come from a process-wide counter). */
  const normalised = (value: unknown): string => {
    const names = new Map<string, string>();
    return JSON.stringify(value).replace(/\b(worker|interactive|reaper|audit-gap-saga):[A-Za-z0-9.-]+:\d+:s[0-9a-z]+/g, (owner, kind: string) => {
      if (!names.has(owner)) names.set(owner, `${kind}#${names.size + 1}`);
      return names.get(owner) as string;
    });
  };

  it('a schedule played twice gives the same history, trace and ledgers', async () => {
    const schedules = fc.sample(scheduleArbitrary(30), { numRuns: 25, seed: 20260101 });
    for (const schedule of schedules) {
      const [first, second] = [await runSchedule(schedule), await runSchedule(schedule)] as const;
      expect(normalised(second.history)).toBe(normalised(first.history));
      expect(normalised(second.trace)).toBe(normalised(first.trace));
      expect(second.counters).toEqual(first.counters);
    }
  }, scaled(120_000));
});
