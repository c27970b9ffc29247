import { AgentLedgerError } from '@agent-ledger/domain';

/** Why a path was refused. */
export const WorkspacePathProblem = {
  /** Empty, contains a NUL byte, or is longer than the file system allows (a name or the whole path). */
  INVALID: 'invalid',
  /** An absolute path: tool paths are relative to the workspace folder. */
  ABSOLUTE: 'absolute',
  /** Leads outside the workspace folder (`..`, or a symbolic link whose target is outside). */
  OUTSIDE: 'outside',
  /** The workspace folder itself, where a file is needed. */
  ROOT: 'root',
} as const;

/** One of the {@link WorkspacePathProblem} values. */
export type WorkspacePathProblem = (typeof WorkspacePathProblem)[keyof typeof WorkspacePathProblem];

const EXPLANATIONS: Readonly<Record<WorkspacePathProblem, string>> = {
  invalid: 'is not a valid path',
  absolute: 'is absolute; give a path relative to the workspace folder',
  outside: 'leads outside the workspace folder',
  root: 'is the workspace folder itself; give a file path',
};

/** A file tool refused a path: the model's request was wrong (`clientError`). Nothing was read or written. */
export class WorkspacePathError extends AgentLedgerError {
  readonly code = 'WORKSPACE_PATH_REFUSED' as const;
  readonly failureClass = 'clientError' as const;

  constructor(
    /** The path as the call gave it. */
    readonly path: string,
    readonly problem: WorkspacePathProblem,
  ) {
    super(`Path ${JSON.stringify(path)} ${EXPLANATIONS[problem]}`);
  }
}
