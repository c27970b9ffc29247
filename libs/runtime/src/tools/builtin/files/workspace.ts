import { constants } from 'node:fs';
import { lstat, mkdir, realpath, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { AgentLedgerError, ConfigurationError } from '@agent-ledger/domain';
import { DEFAULT_MAX_FILE_BYTES } from './files-tool-options';
import type { FilesToolOptions } from './files-tool-options';
import { FileTooLargeError } from './file-too-large.error';
import { WorkspaceEntryError } from './workspace-entry.error';
import { WorkspaceIoError } from './workspace-io.error';
import { WorkspacePathError } from './workspace-path.error';

/** The prefix of the temporary files `files.write` renames into place; `files.list` hides them. */
export const WORKSPACE_TEMP_PREFIX = '.agent-ledger-tmp-';

/** Flags that refuse to follow a symbolic link in the last component (0 where the platform has none). */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** The flag that opens a FIFO without waiting for its other end (0 where the platform has none). */
export const NO_BLOCK = constants.O_NONBLOCK ?? 0;

/**
 * The folder the file tools are confined to, and the checks that keep them
 * in it. Every path is resolved against the folder's real path; what a path
 * names is checked through `realpath`, so a symbolic link cannot lead out.
 *
 * Warning: the checks guard against the model's requests, not against another
 * process that swaps folders for symbolic links inside the workspace between
 * a check and the operation. Give the workspace to the agent alone.
 */
export class Workspace {
  private constructor(
    /** The real, absolute path of the workspace folder. */
    readonly root: string,
    /** @default 1048576 */
    readonly maxFileBytes: number,
  ) {}

  /**
   * Opens the workspace folder.
   *
   * @throws {@link ConfigurationError} when the folder does not exist or is not a folder.
   */
  static async open(options: FilesToolOptions, field = 'workspaceDir'): Promise<Workspace> {
    let root: string;
    try {
      root = await realpath(path.resolve(options.workspaceDir));
    } catch (error) {
      throw new ConfigurationError(`${field} ${JSON.stringify(options.workspaceDir)} does not exist`, { cause: error });
    }
    if (!(await stat(root)).isDirectory()) {
      throw new ConfigurationError(`${field} ${JSON.stringify(options.workspaceDir)} is not a folder`);
    }
    return new Workspace(root, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
  }

  /**
   * The real path of an existing entry. Refuses a path that is invalid,
   * absolute, or leads outside the workspace, also through symbolic links.
   *
   * @throws {@link WorkspacePathError}, {@link WorkspaceEntryError} (`notFound`)
   */
  async resolveExisting(relative: string): Promise<string> {
    const lexical = this.lexical(relative);
    const real = await this.io(relative, 'resolve', () => realpath(lexical));
    if (!this.contains(real)) {
      throw new WorkspacePathError(relative, 'outside');
    }
    return real;
  }

  /**
   * The checks every writing tool makes before touching the file: the
   * signal, the size of `content` against `maxFileBytes`, and the target's
   * path (resolved, confined, its folders created).
   *
   * @returns the UTF-8 bytes to write and the resolved target.
   * @throws FileTooLargeError, WorkspacePathError, ToolAbortedError
   */
  async prepareWrite(relative: string, content: string, checkSignal: () => void): Promise<{ readonly data: Buffer; readonly target: string }> {
    checkSignal();
    const data = Buffer.from(content, 'utf8');
    if (data.length > this.maxFileBytes) {
      throw new FileTooLargeError(relative, data.length, this.maxFileBytes);
    }
    const target = await this.resolveForWrite(relative, checkSignal);
    return { data, target };
  }

  /**
   * Where a file may be written: the real path of its folder (created, inside
   * the workspace, when missing) joined with its name; when the name is a
   * symbolic link, its target, which must be inside the workspace.
   * `beforeCreating` runs before any folder is created (to check the signal).
   *
   * @throws {@link WorkspacePathError}, {@link WorkspaceEntryError}
   */
  async resolveForWrite(relative: string, beforeCreating: () => void): Promise<string> {
    const lexical = this.lexical(relative);
    if (lexical === this.root) {
      throw new WorkspacePathError(relative, 'root');
    }
    const folder = await this.ensureFolder(relative, path.dirname(lexical), beforeCreating);
    const target = path.join(folder, path.basename(lexical));
    const entry = await lstat(target).catch((error: unknown) => {
      if (isSystemError(error, 'ENOENT')) return undefined;
      throw this.translate(error, relative, 'inspect');
    });
    if (entry === undefined) {
      return target;
    }
    if (entry.isSymbolicLink()) {
      const linked = await realpath(target).catch(() => undefined);
      if (linked === undefined || !this.contains(linked)) {
        // A dangling link could otherwise create a file wherever it points.
        throw new WorkspacePathError(relative, 'outside');
      }
      return this.checkFileOrAbsent(linked, relative);
    }
    return this.checkFileOrAbsent(target, relative);
  }

  /** The path as the tools report it: relative to the workspace, with `/`. */
  display(relative: string): string {
    return path.relative(this.root, this.lexical(relative)).split(path.sep).join('/') || '.';
  }

  /** Runs a file-system call, translating its errors into the file tools' errors. */
  async io<T>(relative: string, operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.translate(error, relative, operation);
    }
  }

  /** A file-system error as a file tool's error: a path problem is the model's (`clientError`). */
  translate(error: unknown, relative: string, operation: string): Error {
    if (error instanceof AgentLedgerError) return error;
    if (isSystemError(error, 'ENOENT')) return new WorkspaceEntryError(relative, 'notFound');
    if (isSystemError(error, 'ENOTDIR')) return new WorkspaceEntryError(relative, 'notADirectory');
    if (isSystemError(error, 'EISDIR')) return new WorkspaceEntryError(relative, 'notAFile');
    if (isSystemError(error, 'ELOOP')) return new WorkspacePathError(relative, 'outside');
    // A name (or the whole path) longer than the file system allows: the model's path is at fault, and nothing was done.
    if (isSystemError(error, 'ENAMETOOLONG')) return new WorkspacePathError(relative, 'invalid');
    const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
    return new WorkspaceIoError(relative, operation, code, { cause: error });
  }

  private lexical(relative: string): string {
    if (typeof relative !== 'string' || relative.length === 0 || relative.includes('\0')) {
      throw new WorkspacePathError(String(relative), 'invalid');
    }
    if (path.isAbsolute(relative) || path.win32.isAbsolute(relative)) {
      throw new WorkspacePathError(relative, 'absolute');
    }
    const lexical = path.resolve(this.root, relative);
    if (!this.contains(lexical)) {
      throw new WorkspacePathError(relative, 'outside');
    }
    return lexical;
  }

  private contains(candidate: string): boolean {
    const relative = path.relative(this.root, candidate);
    return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
  }

  /** The real path of `folder` (lexical, inside the root), creating what is missing below its deepest existing, contained ancestor. */
  private async ensureFolder(relative: string, folder: string, beforeCreating: () => void): Promise<string> {
    // Start at the deepest ancestor that exists: walking up one level at a time, with a `realpath` of the whole
    // path at each, costs time quadratic in the depth (a 2000-level path of the model took some 40 s).
    const start = await this.deepestPresent(folder);
    const missing = start.missing;
    let existing = start.existing;
    for (;;) {
      const real = await realpath(existing).catch((error: unknown) => {
        if (isSystemError(error, 'ENOENT')) return undefined;
        throw this.translate(error, relative, 'resolve');
      });
      if (real !== undefined) {
        if (!this.contains(real)) {
          throw new WorkspacePathError(relative, 'outside');
        }
        if (!(await stat(real)).isDirectory()) {
          throw new WorkspaceEntryError(relative, 'notADirectory');
        }
        if (missing.length === 0) {
          return real;
        }
        beforeCreating();
        const created = path.join(real, ...missing.reverse());
        await this.io(relative, 'create the folder of', () => mkdir(created, { recursive: true }));
        return created;
      }
      if (existing === this.root) {
        // The workspace folder itself disappeared.
        throw new WorkspaceEntryError(relative, 'notFound');
      }
      missing.push(path.basename(existing));
      existing = path.dirname(existing);
    }
  }

  /**
   * The deepest ancestor of `folder` (lexical, inside the root; `folder` itself included) that has an entry,
   * and the names below it, deepest first. Having an entry is monotone along the chain (an entry's folders all
   * resolve), so a binary search with `lstat` finds it in a logarithmic number of calls. The root is assumed
   * present: `ensureFolder` checks it.
   */
  private async deepestPresent(folder: string): Promise<{ readonly existing: string; readonly missing: string[] }> {
    const names = path.relative(this.root, folder).split(path.sep).filter((name) => name !== '');
    const at = (depth: number): string => path.join(this.root, ...names.slice(0, depth));
    let low = 0;
    let high = names.length;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      const present = await lstat(at(middle)).then(
        () => true,
        () => false,
      );
      if (present) low = middle;
      else high = middle - 1;
    }
    return { existing: at(low), missing: names.slice(low).reverse() };
  }

  private async checkFileOrAbsent(target: string, relative: string): Promise<string> {
    const found = await stat(target).catch(() => undefined);
    if (found !== undefined && !found.isFile()) {
      throw new WorkspaceEntryError(relative, 'notAFile');
    }
    return target;
  }
}

function isSystemError(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
