import { AgentLedgerError } from '@agent-ledger/domain';

/** What is wrong with the entry a path names. */
export const WorkspaceEntryProblem = {
  NOT_FOUND: 'notFound',
  NOT_A_FILE: 'notAFile',
  NOT_A_DIRECTORY: 'notADirectory',
  /** The file is not UTF-8 text (the file tools read and write text only). */
  NOT_TEXT: 'notText',
} as const;

/** One of the {@link WorkspaceEntryProblem} values. */
export type WorkspaceEntryProblem = (typeof WorkspaceEntryProblem)[keyof typeof WorkspaceEntryProblem];

const EXPLANATIONS: Readonly<Record<WorkspaceEntryProblem, string>> = {
  notFound: 'does not exist',
  notAFile: 'is not a regular file',
  notADirectory: 'is not a directory',
  notText: 'is not UTF-8 text',
};

/** The path is inside the workspace, but does not name what the call needs (`clientError`). */
export class WorkspaceEntryError extends AgentLedgerError {
  readonly code = 'WORKSPACE_ENTRY' as const;
  readonly failureClass = 'clientError' as const;

  constructor(
    readonly path: string,
    readonly problem: WorkspaceEntryProblem,
  ) {
    super(`${JSON.stringify(path)} ${EXPLANATIONS[problem]}`);
  }
}
