/**
 * The client's contract is the service's: its closed sets of values equal
 * the service's own lists, and its answer types (inferred from its schemas)
 * equal the types the service's handlers return (`support/contract-type-equalities.ts`,
 * compiled here with the repository's compiler settings).
 */
import { join } from 'node:path';
import * as ts from 'typescript';
import * as client from '@agent-ledger/client';
import { FailureClass, RunMode, RunStatus, StepKind, TerminationReason, TERMINAL_RUN_STATUSES, ToolEffect } from '@agent-ledger/domain';
import { APPROVAL_STATES, PROJECTION_NAMES, RebuildPhase, StepApproval, StepAuditState } from '@agent-ledger/projections';
import { APPROVAL_DECISIONS, ON_DENIAL_VALUES, START_MODES } from '@agent-ledger/runtime';
import { API_SCOPES } from '../../libs/http/src/auth/api-keys';
import { AUTH_MODES } from '../../libs/http/src/http-api-options';
import { REBUILD_STATES } from '../../libs/http/src/projections/rebuild-state';
import { scaled } from '../support/time-scale';

describe("the client's contract and the service", () => {
  it('has the same closed sets of values', () => {
    expect([...client.RUN_STATUSES]).toEqual(Object.values(RunStatus));
    expect([...client.TERMINAL_RUN_STATUSES].sort()).toEqual([...TERMINAL_RUN_STATUSES].sort());
    expect([...client.TERMINATION_REASONS]).toEqual(Object.values(TerminationReason));
    expect([...client.FAILURE_CLASSES]).toEqual(Object.values(FailureClass));
    expect([...client.RUN_MODES].sort()).toEqual([...Object.values(RunMode)].sort());
    expect([...client.RUN_MODES].sort()).toEqual([...START_MODES].sort());
    expect([...client.STEP_KINDS]).toEqual(Object.values(StepKind));
    expect([...client.TOOL_EFFECTS]).toEqual(Object.values(ToolEffect));
    expect([...client.ON_DENIAL_VALUES]).toEqual([...ON_DENIAL_VALUES]);
    expect([...client.APPROVAL_DECISIONS]).toEqual([...APPROVAL_DECISIONS]);
    expect([...client.APPROVAL_STATES]).toEqual([...APPROVAL_STATES]);
    expect([...client.STEP_AUDIT_STATES]).toEqual(Object.values(StepAuditState));
    expect([...client.STEP_APPROVALS]).toEqual(Object.values(StepApproval));
    expect([...client.PROJECTION_NAMES]).toEqual([...PROJECTION_NAMES]);
    expect([...client.REBUILD_PHASES]).toEqual(Object.values(RebuildPhase));
    expect([...client.REBUILD_STATES]).toEqual([...REBUILD_STATES]);
    expect([...client.API_SCOPES]).toEqual([...API_SCOPES]);
    expect([...client.AUTH_MODES]).toEqual([...AUTH_MODES]);
  });

  it('has the same answer types (compiled; a changed field on either side fails)', () => {
    const root = join(__dirname, '..', '..');
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const equalities = join(__dirname, 'support', 'contract-type-equalities.ts');
    // A deliberately wrong equality, to show the check can fail: a contract type without one of its fields.
    const wrong = join(__dirname, 'support', '__wrong-equality__.ts');
    const wrongSource = [
      "import type * as Client from '@agent-ledger/client';",
      "import type { RunStatusRow } from '@agent-ledger/projections';",
      "import type { SameFields } from './same-fields';",
      "export const wrong = true satisfies SameFields<Omit<Client.RunStatusRow, 'continuedAs'>, RunStatusRow>;",
    ].join('\n');
    const host = ts.createCompilerHost({ ...options, noEmit: true });
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (path) => (path === wrong ? wrongSource : readFile(path));
    host.fileExists = (path) => path === wrong || fileExists(path);
    host.getSourceFile = (path, language, onError, create) => (path === wrong ? ts.createSourceFile(path, wrongSource, language) : getSourceFile(path, language, onError, create));
    const program = ts.createProgram({ rootNames: [equalities, wrong], options: { ...options, noEmit: true }, host });
    const messagesOf = (file: string) => ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(messagesOf(equalities)).toEqual([]);
    expect(messagesOf(wrong).join('\n')).toMatch(/missingFromContract/);
  }, scaled(120_000));
});
