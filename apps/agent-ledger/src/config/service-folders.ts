import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ServiceConfig } from './service-config';

/** The name of the example agents file (`config/agents.example.yaml` in this repository). */
export const EXAMPLE_AGENTS_FILE_NAME = 'agents.example.yaml';

/** The file the example agents read (`file-clerk`, `ticket-asker`), seeded into the workspace. */
export const EXAMPLE_NOTES_FILE = 'notes.txt';

/** What the seeded `notes.txt` says: where it came from, and that the service never overwrites it. */
export const EXAMPLE_NOTES = `These are the example notes of agent-ledger.

The service wrote this file when it started with the example agents
(${EXAMPLE_AGENTS_FILE_NAME}) and found no ${EXAMPLE_NOTES_FILE} in its workspace.
The example agents file-clerk and ticket-asker read it. Change it as you
like: the service never overwrites a ${EXAMPLE_NOTES_FILE} that exists.
`;

/** Whether the agents file in use is the example one (its file name is {@link EXAMPLE_AGENTS_FILE_NAME}). */
export function usesExampleAgents(config: Pick<ServiceConfig, 'agentsConfigPath'>): boolean {
  return config.agentsConfigPath !== null && basename(config.agentsConfigPath) === EXAMPLE_AGENTS_FILE_NAME;
}

/**
 * Creates the data folder and the tools' workspace, and, when the agents file
 * is the example one, seeds the workspace with the `notes.txt` its agents
 * read: only when there is no entry of that name (created exclusively, so an
 * existing file, even one written at the same moment by another process, is
 * never overwritten). `serve` and `worker` call it before they open a store.
 *
 * @returns the lines to log: what was seeded and where (none when nothing was).
 * @throws the file system's error when a folder or the file cannot be written.
 */
export function prepareServiceFolders(config: Pick<ServiceConfig, 'dataDir' | 'workspaceDir' | 'agentsConfigPath'>): readonly string[] {
  mkdirSync(config.dataDir, { recursive: true });
  mkdirSync(config.workspaceDir, { recursive: true });
  if (!usesExampleAgents(config)) return [];
  const notes = join(config.workspaceDir, EXAMPLE_NOTES_FILE);
  try {
    writeFileSync(notes, EXAMPLE_NOTES, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return [];
    throw error;
  }
  return [`Seeded the example workspace: wrote ${notes} for the example agents (file-clerk, ticket-asker); a ${EXAMPLE_NOTES_FILE} that exists is never overwritten`];
}
