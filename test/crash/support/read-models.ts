/**
 * Invariant 8 after a crash scenario: the read models the service answers
 * with (`GET /runs`, `GET /runs/{id}/steps`, `GET /audit/review`) agree with
 * the store, and the live read models (built incrementally across the
 * crashes, then caught up) hold the same rows as `projections rebuild` gives
 * from scratch.
 */
import { join } from 'node:path';
import type { EventStore } from '@agent-ledger/event-store';
import { SqliteEventStore } from '@agent-ledger/event-store';
import type { AuditReviewReport, ProjectionSource, RunPage, RunStatusRow, StepRow } from '@agent-ledger/projections';
import { ProjectionRunner, ProjectionStore } from '@agent-ledger/projections';
import type { ProjectionsAnswer } from '../../../libs/http/src/projections/read-models.controller';
import type { RunStepsAnswer } from '../../../libs/http/src/runs/runs.controller';
import type { History, HistoryEvent, StoreFiles } from './history';
import { openStoreAt } from './history';
import type { Violation } from './invariants';
import { runCli } from './processes';
import { scaled } from '../../support/time-scale';

const TERMINAL_STATUS: Record<string, string> = { RunCompleted: 'COMPLETED', RunFailed: 'FAILED', RunCancelled: 'CANCELLED' };
const isWrite = (effect: unknown) => effect === 'IDEMPOTENT_WRITE' || effect === 'NON_IDEMPOTENT_WRITE';

async function getJson<T>(baseUrl: string, path: string): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the projections are at the store's head (the store still), then
 * compares what the HTTP API answers with the events. Retries when the store
 * moved meanwhile (the saga may still report a gap).
 */
export async function compareReadModelsOverHttp(baseUrl: () => Promise<string>, read: () => Promise<History>, files: StoreFiles): Promise<Violation[]> {
  let lastProblem = '';
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const history = await read();
    const headOf = (source: string) => history.heads[source === 'audit' && files.auditStorePath !== null ? files.auditStorePath : files.runStore] ?? null;
    const base = await baseUrl();
    const deadline = Date.now() + scaled(30_000);
    let caughtUp = false;
    while (Date.now() < deadline) {
      const status = await getJson<ProjectionsAnswer>(base, '/projections').catch(() => null);
      if (status !== null && status.projections.length > 0 && status.projections.every((p) => p.caughtUp === true && p.headPosition === headOf(p.source))) {
        caughtUp = true;
        break;
      }
      lastProblem = `the projections did not reach the store's head: ${JSON.stringify(status?.projections.map((p) => [p.projection, p.source, p.position, p.headPosition]))}`;
      await sleep(200);
    }
    if (!caughtUp) continue;
    const rows = new Map<string, RunStatusRow>();
    let cursor: string | null = null;
    do {
      const page: RunPage = await getJson<RunPage>(base, `/runs?limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      for (const row of page.runs) rows.set(row.runId, row);
      cursor = page.nextCursor;
    } while (cursor !== null);
    const steps = new Map<string, readonly StepRow[]>();
    for (const runId of history.runs.keys()) steps.set(runId, (await getJson<RunStepsAnswer>(base, `/runs/${encodeURIComponent(runId)}/steps`)).steps);
    const review = await getJson<AuditReviewReport>(base, '/audit/review?limit=100000');
    const again = await read();
    if (JSON.stringify(again.heads) !== JSON.stringify(history.heads)) {
      lastProblem = 'the store moved during the comparison';
      continue;
    }
    return compareWithHistory(history, rows, steps, review);
  }
  return [{ invariant: 8, runId: null, message: `the read models could not be compared with a still store: ${lastProblem}` }];
}

/** The comparison itself (pure): each run's row, its steps, the audit review's totals. */
export function compareWithHistory(history: History, rows: ReadonlyMap<string, RunStatusRow>, steps: ReadonlyMap<string, readonly StepRow[]>, review: AuditReviewReport): Violation[] {
  const violations: Violation[] = [];
  const add = (runId: string | null, message: string) => violations.push({ invariant: 8, runId, message });
  const totals = { writes: 0, writesExecuted: 0, writesAudited: 0, writesWithoutAudit: 0, gapsDetected: 0, runsFailedClosed: 0, runsFailedAuditMissing: 0, runsWriteInterrupted: 0, interruptedWrites: 0 };
  for (const [runId, events] of history.runs) {
    const row = rows.get(runId);
    const audits = history.audits.get(runId) ?? [];
    const terminal = events.find((e) => TERMINAL_STATUS[e.type] !== undefined) ?? null;
    const last = events.at(-1) as HistoryEvent;
    const expected = {
      status: terminal === null ? null : TERMINAL_STATUS[terminal.type],
      reason: terminal === null ? null : terminal.type === 'RunCompleted' ? 'COMPLETED' : terminal.type === 'RunCancelled' ? 'CANCELLED' : (terminal.data['reason'] as string),
      attempts: events.filter((e) => e.type === 'RunClaimed').length,
      streamRevision: last.revision,
    };
    if (row === undefined) {
      add(runId, 'GET /runs does not list the run');
    } else {
      const actual = { status: row.status, reason: row.reason, attempts: row.attempts, streamRevision: row.streamRevision };
      if (expected.status === null) expected.status = row.status; // not settled: invariant 6 says so already
      if (JSON.stringify(actual) !== JSON.stringify(expected)) add(runId, `GET /runs shows ${JSON.stringify(actual)}, the store says ${JSON.stringify(expected)}`);
      if (terminal?.type === 'RunFailed' && row.deadLettered !== terminal.data['deadLettered']) add(runId, `GET /runs shows deadLettered ${row.deadLettered}, the store ${String(terminal.data['deadLettered'])}`);
    }
    // Steps: every started step, completed or not, with its starts, outcome and audit state.
    const audited = new Set(audits.filter((a) => a.type === 'AuditRecorded').map((a) => String(a.data['stepId'])));
    const started = new Map<string, { starts: number; outcome: string | null; effect: unknown; denied: boolean }>();
    for (const e of events) {
      const stepId = e.data['stepId'];
      if (typeof stepId !== 'string') continue;
      const facts = started.get(stepId) ?? { starts: 0, outcome: null, effect: null, denied: false };
      if (e.type === 'StepStarted') {
        facts.starts += 1;
        facts.effect = e.data['effect'];
      }
      if (e.type === 'ModelResponded') facts.outcome = 'responded';
      if (e.type === 'ToolExecuted' && facts.outcome === null) {
        facts.outcome = String(e.data['outcome']);
        facts.effect = e.data['effect'];
        if ((e.data['error'] as { code?: string } | null)?.code === 'APPROVAL_DENIED') facts.denied = true;
      }
      if (e.type === 'StepStarted' || e.type === 'ModelResponded' || e.type === 'ToolExecuted') started.set(stepId, facts);
    }
    // Calls a person denied (`ApprovalDenied`) that never started: completed, outcome denied, the decision's audit record as theirs.
    const deniedAudited = new Set(
      audits
        .filter((a) => a.type === 'ApprovalDecisionRecorded' && a.data['decision'] === 'denied')
        .flatMap((a) => ((a.data['calls'] as Array<{ stepId?: unknown }> | undefined) ?? []).map((call) => String(call.stepId))),
    );
    const denied = new Set(events.filter((e) => e.type === 'ApprovalDenied').flatMap((e) => ((e.data['stepIds'] as unknown[] | undefined) ?? []).map(String)));
    for (const stepId of started.keys()) denied.delete(stepId);
    const stepRows = new Map((steps.get(runId) ?? []).map((s) => [s.stepId, s]));
    for (const stepId of denied) {
      const stepRow = stepRows.get(stepId);
      const expectedStep = { status: 'completed', starts: 0, outcome: 'denied', audited: audited.has(stepId) || deniedAudited.has(stepId) };
      const actualStep = stepRow === undefined ? null : { status: stepRow.status, starts: stepRow.starts, outcome: stepRow.outcome, audited: stepRow.auditState === 'recorded' };
      if (JSON.stringify(actualStep) !== JSON.stringify(expectedStep)) add(runId, `GET /runs/${runId}/steps shows the denied call ${stepId} as ${JSON.stringify(actualStep)}, the store says ${JSON.stringify(expectedStep)}`);
    }
    for (const [stepId, facts] of started) {
      const stepRow = stepRows.get(stepId);
      const expectedStep = { status: facts.outcome === null ? 'started' : 'completed', starts: facts.starts, outcome: facts.denied ? 'denied' : facts.outcome, audited: audited.has(stepId) };
      if (stepRow === undefined) {
        add(runId, `GET /runs/${runId}/steps has no row for step ${stepId} (${JSON.stringify(expectedStep)})`);
        continue;
      }
      const actualStep = { status: stepRow.status, starts: stepRow.starts, outcome: stepRow.outcome, audited: stepRow.auditState === 'recorded' };
      if (JSON.stringify(actualStep) !== JSON.stringify(expectedStep)) add(runId, `GET /runs/${runId}/steps shows step ${stepId} as ${JSON.stringify(actualStep)}, the store says ${JSON.stringify(expectedStep)}`);
      if (isWrite(facts.effect)) {
        totals.writes += 1;
        if (facts.outcome !== null) totals.writesExecuted += 1;
        if (audited.has(stepId)) totals.writesAudited += 1;
        if (facts.outcome !== null && !audited.has(stepId)) totals.writesWithoutAudit += 1;
      }
    }
    for (const stepRow of stepRows.values()) {
      if (stepRow.status !== null && !started.has(stepRow.stepId) && !denied.has(stepRow.stepId)) add(runId, `GET /runs/${runId}/steps shows step ${stepRow.stepId} (${stepRow.status}), which the store never started`);
    }
    totals.gapsDetected += new Set(events.filter((e) => e.type === 'AuditGapDetected').map((e) => String(e.data['stepId']))).size;
    if (terminal?.type === 'RunFailed') {
      if (terminal.data['reason'] === 'AUDIT_PERSISTENCE_FAILED') totals.runsFailedClosed += 1;
      if (terminal.data['reason'] === 'AUDIT_MISSING') totals.runsFailedAuditMissing += 1;
      if (terminal.data['reason'] === 'WRITE_INTERRUPTED') totals.runsWriteInterrupted += 1;
    }
    totals.interruptedWrites += events.filter((e) => ['RunRequeued', 'RunFailed', 'RunCancelled'].includes(e.type) && e.data['inFlightWrite'] != null).length;
  }
  for (const runId of rows.keys()) if (!history.runs.has(runId)) add(runId, 'GET /runs lists a run the store does not know');
  const shown = Object.fromEntries(Object.keys(totals).map((k) => [k, (review.totals as unknown as Record<string, number>)[k]]));
  if (JSON.stringify(shown) !== JSON.stringify(totals)) add(null, `GET /audit/review totals ${JSON.stringify(shown)}, the store says ${JSON.stringify(totals)}`);
  return violations;
}

/**
 * With every process stopped: catches the live read models up (as the
 * service's runners would on a restart), dumps them, runs `agent-ledger
 * projections rebuild`, and compares the rebuilt rows with the live ones.
 */
export async function compareRebuild(files: StoreFiles & { readonly dataDir: string }, env: Readonly<Record<string, string>>): Promise<{ violations: Violation[]; tables: number; rows: number }> {
  const path = join(files.dataDir, 'read-models.sqlite');
  const stores: EventStore[] = [];
  const violations: Violation[] = [];
  let live: Record<string, unknown[]>;
  const projections = ProjectionStore.open({ path });
  try {
    const runStore = openStoreAt(files.runStore);
    stores.push(runStore);
    const sources: ProjectionSource[] = [{ name: 'runs', store: runStore }];
    if (files.auditStorePath !== null) {
      const auditStore = SqliteEventStore.open({ path: files.auditStorePath });
      stores.push(auditStore);
      sources.push({ name: 'audit', store: auditStore });
    }
    for (const source of sources) await new ProjectionRunner(projections, source).catchUp();
    live = projections.dumpTables();
  } finally {
    projections.close();
    for (const store of stores) await store.close();
  }
  const rebuild = await runCli(['projections', 'rebuild'], env);
  if (rebuild.code !== 0) return { violations: [{ invariant: 8, runId: null, message: `projections rebuild exited ${rebuild.code}: ${rebuild.output.slice(-2000)}` }], tables: 0, rows: 0 };
  const rebuiltStore = ProjectionStore.open({ path });
  let rebuilt: Record<string, unknown[]>;
  try {
    rebuilt = rebuiltStore.dumpTables();
  } finally {
    rebuiltStore.close();
  }
  let rows = 0;
  for (const table of new Set([...Object.keys(live), ...Object.keys(rebuilt)])) {
    const a = live[table] ?? [];
    const b = rebuilt[table] ?? [];
    rows += a.length;
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const index = a.findIndex((row, i) => JSON.stringify(row) !== JSON.stringify(b[i]));
    const at = index === -1 ? Math.min(a.length, b.length) : index;
    violations.push({
      invariant: 8,
      runId: ((a[at] ?? b[at]) as { runId?: string } | undefined)?.runId ?? null,
      message: `table ${table}: the live read model (${a.length} rows) and the rebuilt one (${b.length} rows) differ at row ${at}: live ${JSON.stringify(a[at] ?? null)} rebuilt ${JSON.stringify(b[at] ?? null)}`,
    });
  }
  return { violations, tables: Object.keys(live).length, rows };
}
