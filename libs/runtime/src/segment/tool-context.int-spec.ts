/**
 * The workspace a tool call gets (`ToolContext.workspaceDir`): the folder of
 * the built-in file tools, as each way of registering them sets it
 * (`ToolsModule.forRoot`: tools.module.int-spec.ts; `AgentLedgerModule.forRootAsync`:
 * registerConfiguredTools, here), passed by the segment to every call, and
 * none when the application has no workspace.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModuleRef } from '@nestjs/core';
import { busPrincipal } from '@agent-ledger/domain';
import { registerConfiguredTools } from '../module/async-tools';
import type { RuntimeHarness } from '../testing/runtime-harness';
import { startRuntime } from '../testing/runtime-harness';
import { ToolRegistry } from '../tools/tool-registry';

/** A start request that names who starts it (a variable, so that it also fits a RunRequest without the field). */
const START = { agent: 'keeper', input: 'go', requestedBy: busPrincipal('tool-context-test') };
const putThenRead = [{ toolCalls: [{ tool: 'test.put', arguments: { value: 'p' } }, { tool: 'test.read', arguments: { value: 'r' } }] }, { final: 'done' }];

describe('the workspace of a tool call', () => {
  let workspace: string;
  let rt: RuntimeHarness | undefined;

  beforeEach(() => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'agent-ledger-tool-context-')));
  });

  afterEach(async () => {
    await rt?.close();
    rt = undefined;
    rmSync(workspace, { recursive: true, force: true });
  });

  it('is the folder the tool catalog holds, given to every call, a write and a read', async () => {
    rt = await startRuntime({ agents: [{ name: 'keeper', script: putThenRead }], workspaceDir: workspace });
    const { state } = await rt.runs.runInteractive(START);
    expect(state.status).toBe('COMPLETED');
    expect(rt.behaviour.executions.map((e) => [e.tool, e.workspaceDir])).toEqual([
      ['test.put', workspace],
      ['test.read', workspace],
    ]);
  });

  it('is absent when the application has no workspace', async () => {
    rt = await startRuntime({ agents: [{ name: 'keeper', script: putThenRead }] });
    await rt.runs.runInteractive(START);
    expect(rt.behaviour.executions).toHaveLength(2);
    expect(rt.behaviour.executions.filter((e) => 'workspaceDir' in e)).toEqual([]);
  });

  it("is set by AgentLedgerModule.forRootAsync's tools to the file tools' folder, its real path; none without them", async () => {
    const noModules = {} as ModuleRef;
    const withFiles = new ToolRegistry();
    await registerConfiguredTools({ builtins: { files: { workspaceDir: join(workspace, '.') } } }, undefined, withFiles, noModules);
    expect(withFiles.workspaceDir).toBe(workspace);
    const without = new ToolRegistry();
    await registerConfiguredTools({}, undefined, without, noModules);
    expect(without.workspaceDir).toBeUndefined();
  });
});
