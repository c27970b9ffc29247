import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const eslintBin = join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');

/** Lints `code` as if it were the file `filePath`, with the project's own ESLint configuration. */
function lint(code: string, filePath: string): { exitCode: number | null; output: string } {
  const result = spawnSync(process.execPath, [eslintBin, '--stdin', '--stdin-filename', filePath, '--format', 'json'], {
    cwd: root,
    input: code,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { exitCode: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the domain stays pure (lint rule)', () => {
  it.each([
    ["import { Injectable } from '@nestjs/common';", '@nestjs/common'],
    ["import { EventStoreDBClient } from '@eventstore/db-client';", '@eventstore/db-client'],
    ["import { Subject } from 'rxjs';", 'rxjs'],
    ["import Database from 'better-sqlite3';", 'better-sqlite3'],
    ["import { SqliteEventStore } from '@agent-ledger/event-store';", '@agent-ledger/event-store'],
  ])('refuses %s in libs/domain', (statement, moduleName) => {
    const { exitCode, output } = lint(`${statement}\nexport const probe = 1;\n`, 'libs/domain/src/probe.ts');
    expect(exitCode).toBe(1);
    expect(output).toContain('no-restricted-imports');
    expect(output).toContain(moduleName);
  });

  it('refuses a clock read in the domain', () => {
    const { exitCode, output } = lint('export const now = Date.now();\n', 'libs/domain/src/probe.ts');
    expect(exitCode).toBe(1);
    expect(output).toMatch(/no-restricted-(properties|globals)/);
  });

  it('allows the same import outside the domain', () => {
    const { exitCode, output } = lint("import { Injectable } from '@nestjs/common';\n@Injectable()\nexport class Probe {}\n", 'apps/agent-ledger/src/probe.ts');
    expect(JSON.parse(output)[0].messages).toEqual([]);
    expect(exitCode).toBe(0);
  });
});
