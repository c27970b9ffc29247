import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeExecutedWithoutAudit } from '../testing/crash-points';
import type { RuntimeHarness, TestAgent } from '../testing/runtime-harness';
import { eventually, startRuntime } from '../testing/runtime-harness';
import { AuditGapLedger } from './audit-gap-ledger';
import { AuditGapLedgerStoreMismatchError } from './audit-gap-ledger-store-mismatch.error';
import { ensureLedgerStores } from './audit-gap-ledger-stores';

const AGENTS: TestAgent[] = [{ name: 'putter', script: [{ toolCalls: [{ tool: 'test.append', arguments: { value: 'x' } }] }, { final: 'put' }] }];
const APPEND = { name: 'test.append', effect: 'NON_IDEMPOTENT_WRITE', operationDeadlineSeconds: 60 } as const;

describe.each(['sqlite', 'eventstoredb'] as const)('the audit-gap saga\'s ledger knows which stores it follows (%s, run and audit apart)', (kind) => {
  // Starting again on store A needs its data back: the embedded files (a protocol-level server's data ends with it).
  const onStoreAAgain = kind === 'sqlite' ? it : it.skip;
  let sagaDir: string;
  let storeDirA: string;
  const harnesses: RuntimeHarness[] = [];
  const ledgerPath = () => join(sagaDir, 'audit-gap-saga.sqlite');
  const start = async (saga: { enabled?: boolean; onStoreMismatch?: 'refuse' | 'reset' } = {}, storeDir?: string): Promise<RuntimeHarness> => {
    const rt = await startRuntime({ store: kind, agents: AGENTS, sagaDir, storeDir, execution: { auditGapSaga: { gracePeriodMs: 30_000, ...saga } } });
    harnesses.push(rt);
    return rt;
  };
  const stop = async (rt: RuntimeHarness): Promise<void> => {
    harnesses.splice(harnesses.indexOf(rt), 1);
    await rt.close();
  };
  /** A saga of store A with a write waiting for its audit; the saga stopped, its ledger kept. */
  const ledgerOfStoreA = async (): Promise<{ runStoreId: string; auditStoreId: string; checkpoint: string }> => {
    const a = await start({}, storeDirA);
    await writeExecutedWithoutAudit(a, { agent: 'putter', tool: APPEND });
    await eventually(() => (a.saga.pendingCount() === 1 ? true : undefined), 10_000, 'the pending write');
    const ids = { runStoreId: (await a.runStore.storeIdentity()).id, auditStoreId: (await a.auditStore.storeIdentity()).id, checkpoint: a.saga.checkpoint('writes') as string };
    await stop(a);
    return ids;
  };
  const forgetIdentities = (): void => {
    const db = new Database(ledgerPath());
    db.exec('DELETE FROM saga_stores');
    db.close();
  };

  beforeEach(() => {
    sagaDir = mkdtempSync(join(tmpdir(), 'agent-ledger-saga-identity-'));
    storeDirA = mkdtempSync(join(tmpdir(), 'agent-ledger-saga-identity-a-'));
  });

  afterEach(async () => {
    for (const rt of harnesses.splice(0)) await rt.close();
    rmSync(sagaDir, { recursive: true, force: true });
    rmSync(storeDirA, { recursive: true, force: true });
  });

  onStoreAAgain('records the run store and the audit store it starts on, and starts again on them', async () => {
    const { runStoreId, auditStoreId } = await ledgerOfStoreA();
    expect(runStoreId).not.toBe(auditStoreId);
    const ledger = new AuditGapLedger(ledgerPath());
    try {
      expect(ledger.storeIdentities()).toEqual(new Map([['runs', runStoreId], ['audit', auditStoreId]]));
    } finally {
      ledger.close();
    }
    const again = await start({}, storeDirA);
    await eventually(() => (again.saga.pendingCount() === 1 ? true : undefined), 10_000, 'the pending write, kept');
  });

  it('refuses other stores, naming the ledger and both identities, and keeps its state', async () => {
    const { runStoreId } = await ledgerOfStoreA();
    const b = await start({ enabled: false });
    const refused = await b.saga.start().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AuditGapLedgerStoreMismatchError);
    const error = refused as AuditGapLedgerStoreMismatchError;
    const bRun = (await b.runStore.storeIdentity()).id;
    expect(error.mismatches).toEqual([
      { role: 'runs', recordedStoreId: runStoreId, currentStoreId: bRun },
      { role: 'audit', recordedStoreId: expect.any(String), currentStoreId: (await b.auditStore.storeIdentity()).id },
    ]);
    expect(error.message).toContain(ledgerPath());
    expect(error.message).toContain(runStoreId);
    expect(error.message).toContain(bRun);
    expect(b.saga.pendingCount()).toBe(0); // not started
    const ledger = new AuditGapLedger(ledgerPath());
    try {
      expect(ledger.pendingCount()).toBe(1);
      expect(ledger.storeIdentities().get('runs')).toBe(runStoreId);
    } finally {
      ledger.close();
    }
  });

  it('with onStoreMismatch reset, forgets the other stores\' state and follows the new ones from their start', async () => {
    await ledgerOfStoreA();
    const b = await start({ onStoreMismatch: 'reset' });
    expect(b.saga.pendingCount()).toBe(0);
    const { runId } = await writeExecutedWithoutAudit(b, { agent: 'putter', tool: APPEND });
    await eventually(() => (b.saga.pendingCount() === 1 ? true : undefined), 10_000, 'the pending write of store B');
    b.clock.advance(31_000);
    const check = await b.saga.checkDeadlines();
    expect(check.reported).toHaveLength(1);
    expect((await b.runEvents(runId)).some((e) => e.type === 'AuditGapDetected')).toBe(true);
    const ledger = new AuditGapLedger(ledgerPath());
    try {
      expect(ledger.storeIdentities()).toEqual(new Map([['runs', (await b.runStore.storeIdentity()).id], ['audit', (await b.auditStore.storeIdentity()).id]]));
    } finally {
      ledger.close();
    }
  });

  onStoreAAgain('a ledger of an older version (no identities) adopts the stores its checkpoints fall on, and no others', async () => {
    await ledgerOfStoreA();
    forgetIdentities();
    const b = await start({ enabled: false });
    const ledger = new AuditGapLedger(ledgerPath());
    try {
      const stores = { runs: b.runStore, audit: b.auditStore };
      await expect(ensureLedgerStores(ledger, stores, { now: 0 })).rejects.toThrow(/recorded no identity and its checkpoints do not fit it/);
      expect(ledger.storeIdentities().size).toBe(0);
    } finally {
      ledger.close();
    }
    await stop(b);
    // Store A again: its checkpoints fall on its own events.
    const a = await start({ enabled: false }, storeDirA);
    const again = new AuditGapLedger(ledgerPath());
    try {
      expect(await ensureLedgerStores(again, { runs: a.runStore, audit: a.auditStore }, { now: 0 })).toBe('recorded');
      expect(again.storeIdentities()).toEqual(new Map([['runs', (await a.runStore.storeIdentity()).id], ['audit', (await a.auditStore.storeIdentity()).id]]));
      expect(again.pendingCount()).toBe(1);
    } finally {
      again.close();
    }
  });
});
