import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { classifyFailure } from '@agent-ledger/domain';
import type { JsonObject } from '@agent-ledger/domain';
import type { ToolContext } from '../../agent-tool';
import { ToolAbortedError } from '../../tool-aborted.error';
import { FileTooLargeError } from './file-too-large.error';
import { FilesAppendTool } from './files-append.tool';
import { FilesListTool } from './files-list.tool';
import { FilesReadTool } from './files-read.tool';
import { FilesWriteTool } from './files-write.tool';
import { Workspace, WORKSPACE_TEMP_PREFIX } from './workspace';
import { WorkspaceEntryError } from './workspace-entry.error';
import { WorkspacePathError } from './workspace-path.error';
import { scaled } from '../../../../../../test/support/time-scale';

const MAX = 64;

function context(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { runId: 'run-1', stepId: 'step-1', idempotencyKey: 'run-1/step-1', attempt: 1, signal };
}

/** Every entry below `folder`, recursively, as relative paths. */
async function tree(folder: string): Promise<string[]> {
  return (await readdir(folder, { recursive: true })).map(String).sort();
}

describe('file tools (real folders)', () => {
  let base: string;
  let root: string;
  let outside: string;
  let read: FilesReadTool;
  let write: FilesWriteTool;
  let append: FilesAppendTool;
  let list: FilesListTool;

  beforeEach(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'agent-ledger-files-'));
    root = path.join(base, 'workspace');
    outside = path.join(base, 'outside');
    await mkdir(root);
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    const workspace = await Workspace.open({ workspaceDir: root, maxFileBytes: MAX });
    read = new FilesReadTool(workspace);
    write = new FilesWriteTool(workspace);
    append = new FilesAppendTool(workspace);
    list = new FilesListTool(workspace);
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  }, scaled(60_000)); // removing the 1900-folder-deep tree takes seconds on a loaded machine

  describe('confinement to the workspace folder', () => {
    it.each(['../outside/secret.txt', 'a/../../outside/secret.txt', '..'])('refuses the traversal %p, for every tool', async (bad) => {
      for (const call of [
        () => read.execute({ path: bad }, context()),
        () => list.execute({ path: bad }, context()),
        () => write.execute({ path: bad, content: 'x' }, context()),
        () => append.execute({ path: bad, content: 'x' }, context()),
      ]) {
        await expect(call()).rejects.toMatchObject({ constructor: WorkspacePathError, problem: 'outside', path: bad });
      }
      expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
      expect(await tree(outside)).toEqual(['secret.txt']);
    });

    it('refuses an absolute path, even one inside the workspace', async () => {
      for (const bad of [path.join(outside, 'secret.txt'), path.join(root, 'a.txt'), '/etc/passwd']) {
        await expect(read.execute({ path: bad }, context())).rejects.toMatchObject({ problem: 'absolute' });
        await expect(write.execute({ path: bad, content: 'x' }, context())).rejects.toMatchObject({ problem: 'absolute' });
      }
      expect(await tree(root)).toEqual([]);
    });

    it('refuses an empty path or one with a NUL byte, and writing to the workspace folder itself', async () => {
      await expect(read.execute({ path: '' }, context())).rejects.toMatchObject({ problem: 'invalid' });
      await expect(write.execute({ path: 'a\0b', content: 'x' }, context())).rejects.toMatchObject({ problem: 'invalid' });
      await expect(write.execute({ path: '.', content: 'x' }, context())).rejects.toMatchObject({ problem: 'root' });
    });

    it('refuses a folder link that leads outside, for reading and writing', async () => {
      await symlink(outside, path.join(root, 'escape'));
      await expect(read.execute({ path: 'escape/secret.txt' }, context())).rejects.toMatchObject({ problem: 'outside' });
      await expect(list.execute({ path: 'escape' }, context())).rejects.toMatchObject({ problem: 'outside' });
      await expect(write.execute({ path: 'escape/new.txt', content: 'x' }, context())).rejects.toMatchObject({ problem: 'outside' });
      await expect(write.execute({ path: 'escape/deep/new.txt', content: 'x' }, context())).rejects.toMatchObject({ problem: 'outside' });
      await expect(append.execute({ path: 'escape/secret.txt', content: 'x' }, context())).rejects.toMatchObject({ problem: 'outside' });
      expect(await tree(outside)).toEqual(['secret.txt']);
      expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    });

    it('refuses a file link that leads outside, and a dangling link that would create a file outside', async () => {
      await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret.txt'));
      await symlink(path.join(outside, 'planted.txt'), path.join(root, 'dangling.txt'));
      await expect(read.execute({ path: 'secret.txt' }, context())).rejects.toMatchObject({ problem: 'outside' });
      await expect(write.execute({ path: 'secret.txt', content: 'x' }, context())).rejects.toMatchObject({ problem: 'outside' });
      await expect(append.execute({ path: 'secret.txt', content: 'x' }, context())).rejects.toMatchObject({ problem: 'outside' });
      await expect(append.execute({ path: 'dangling.txt', content: 'x' }, context())).rejects.toMatchObject({ problem: 'outside' });
      await expect(write.execute({ path: 'dangling.txt', content: 'x' }, context())).rejects.toMatchObject({ problem: 'outside' });
      expect(await tree(outside)).toEqual(['secret.txt']);
      expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    });

    it('follows a link that stays inside the workspace, and accepts names that merely start with two dots', async () => {
      await mkdir(path.join(root, 'real'));
      await writeFile(path.join(root, 'real', 'a.txt'), 'inside');
      await symlink(path.join(root, 'real'), path.join(root, 'alias'));
      await expect(read.execute({ path: 'alias/a.txt' }, context())).resolves.toMatchObject({ content: 'inside' });
      await expect(write.execute({ path: '..notes.txt', content: 'dots' }, context())).resolves.toMatchObject({ path: '..notes.txt' });
      expect(await readFile(path.join(root, '..notes.txt'), 'utf8')).toBe('dots');
    });

    // Found by the fuzz suite (test/fuzz/file-tools.fuzz.int-spec.ts).
    it('refuses a name or a path longer than the file system allows as an invalid path (the model\'s error), not a file-system failure', async () => {
      await mkdir(path.join(root, 'a'));
      const long = ['n'.repeat(300), `a/${'é'.repeat(200)}/x.txt`];
      for (const bad of long) {
        for (const call of [() => read.execute({ path: bad }, context()), () => list.execute({ path: bad }, context()), () => write.execute({ path: bad, content: 'x' }, context()), () => append.execute({ path: bad, content: 'x' }, context())]) {
          await expect(call()).rejects.toMatchObject({ constructor: WorkspacePathError, problem: 'invalid', failureClass: 'clientError' });
        }
      }
      // Folders that can be made, below which the file's whole path passes PATH_MAX.
      await expect(write.execute({ path: `${'d'.repeat(254)}/`.repeat(16), content: 'x' }, context())).rejects.toMatchObject({ constructor: WorkspacePathError, problem: 'invalid' });
      expect(await tree(outside)).toEqual(['secret.txt']);
    });

    it('refuses to read a FIFO at once rather than waiting for a writer, forever', async () => {
      const fifo = path.join(root, 'pipe');
      try {
        execFileSync('mkfifo', [fifo]);
      } catch {
        return; // no mkfifo on this platform
      }
      await expect(read.execute({ path: 'pipe' }, context())).rejects.toMatchObject({ constructor: WorkspaceEntryError, problem: 'notAFile' });
      await expect(write.execute({ path: 'pipe', content: 'x' }, context())).rejects.toMatchObject({ constructor: WorkspaceEntryError, problem: 'notAFile' });
      await expect(append.execute({ path: 'pipe', content: 'x' }, context())).rejects.toMatchObject({ constructor: WorkspaceEntryError, problem: 'notAFile' });
    });

    it('writes a file 1900 folders deep in well under a second per call, not in time quadratic in the depth', async () => {
      // 1000 levels, then 1900 below them (near PATH_MAX with the temporary file's name): these took some 7 and 40 s.
      for (const depth of [1000, 1900]) {
        const began = Date.now();
        await expect(write.execute({ path: `${'q/'.repeat(depth)}deep.txt`, content: 'deep' }, context())).resolves.toMatchObject({ bytes: 4, changed: true });
        expect(Date.now() - began).toBeLessThan(5000);
      }
      await expect(read.execute({ path: `${'q/'.repeat(1900)}deep.txt` }, context())).resolves.toMatchObject({ content: 'deep' });
    });

    it('reports a bad path as the model\'s error (clientError)', async () => {
      const error = await read.execute({ path: '../outside/secret.txt' }, context()).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(WorkspacePathError);
      expect(classifyFailure(error)).toBe('clientError');
      expect((error as Error).message).toBe('Path "../outside/secret.txt" leads outside the workspace folder');
    });
  });

  describe('size limits', () => {
    it('reads a file of exactly maxFileBytes and refuses one byte more', async () => {
      await writeFile(path.join(root, 'max.txt'), 'a'.repeat(MAX));
      await writeFile(path.join(root, 'big.txt'), 'a'.repeat(MAX + 1));
      await expect(read.execute({ path: 'max.txt' }, context())).resolves.toMatchObject({ bytes: MAX });
      const error = await read.execute({ path: 'big.txt' }, context()).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(FileTooLargeError);
      expect(error).toMatchObject({ bytes: MAX + 1, maxBytes: MAX, failureClass: 'clientError' });
    });

    it('refuses to write more than maxFileBytes (counted in UTF-8 bytes) and writes nothing', async () => {
      await expect(write.execute({ path: 'big.txt', content: 'ä'.repeat(MAX / 2 + 1) }, context())).rejects.toBeInstanceOf(FileTooLargeError);
      await expect(write.execute({ path: 'max.txt', content: 'ä'.repeat(MAX / 2) }, context())).resolves.toMatchObject({ bytes: MAX });
      expect(await tree(root)).toEqual(['max.txt']);
    });

    it('refuses an append that would grow the file beyond maxFileBytes, leaving it unchanged', async () => {
      await writeFile(path.join(root, 'log.txt'), 'a'.repeat(MAX - 2));
      await expect(append.execute({ path: 'log.txt', content: 'xyz' }, context())).rejects.toMatchObject({ bytes: MAX + 1, maxBytes: MAX });
      expect(await readFile(path.join(root, 'log.txt'), 'utf8')).toBe('a'.repeat(MAX - 2));
      await expect(append.execute({ path: 'log.txt', content: 'xy' }, context())).resolves.toMatchObject({ bytes: MAX });
    });
  });

  describe('files.read', () => {
    it('reads what files.write wrote', async () => {
      await write.execute({ path: 'notes/today.md', content: '# Today\nünïcode ✓\n' }, context());
      await expect(read.execute({ path: 'notes/today.md' }, context())).resolves.toEqual({
        path: 'notes/today.md',
        content: '# Today\nünïcode ✓\n',
        bytes: Buffer.byteLength('# Today\nünïcode ✓\n'),
      });
    });

    it('reports a missing file, a folder and a binary file as the model\'s errors', async () => {
      await mkdir(path.join(root, 'folder'));
      await writeFile(path.join(root, 'image.bin'), Buffer.from([0xff, 0xfe, 0x00, 0xc3]));
      for (const [target, problem] of [['missing.txt', 'notFound'], ['folder', 'notAFile'], ['image.bin', 'notText'], ['missing/deeper.txt', 'notFound']] as const) {
        const error = await read.execute({ path: target }, context()).catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(WorkspaceEntryError);
        expect(error).toMatchObject({ problem, failureClass: 'clientError' });
      }
    });
  });

  describe('files.write', () => {
    it('replaces the whole file through a temporary file and leaves none behind', async () => {
      await writeFile(path.join(root, 'a.txt'), 'old content that is longer');
      await expect(write.execute({ path: 'a.txt', content: 'new' }, context())).resolves.toEqual({ path: 'a.txt', bytes: 3, changed: true });
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('new');
      expect(await tree(root)).toEqual(['a.txt']);
    });

    it('creates missing folders inside the workspace', async () => {
      await write.execute({ path: 'a/b/c.txt', content: 'deep' }, context());
      expect(await readFile(path.join(root, 'a', 'b', 'c.txt'), 'utf8')).toBe('deep');
    });

    it('is idempotent: a retry with the same content leaves the file untouched', async () => {
      await write.execute({ path: 'a.txt', content: 'same' }, context());
      const before = await stat(path.join(root, 'a.txt'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(write.execute({ path: 'a.txt', content: 'same' }, { ...context(), attempt: 2 })).resolves.toEqual({ path: 'a.txt', bytes: 4, changed: false });
      const after = await stat(path.join(root, 'a.txt'));
      expect(after.mtimeMs).toBe(before.mtimeMs);
      expect(after.ino).toBe(before.ino);
    });

    it('refuses to write over a folder', async () => {
      await mkdir(path.join(root, 'folder'));
      await expect(write.execute({ path: 'folder', content: 'x' }, context())).rejects.toMatchObject({ problem: 'notAFile' });
    });

    it('writes nothing when the signal has fired', async () => {
      const controller = new AbortController();
      controller.abort(new Error('lease lost'));
      const error = await write.execute({ path: 'new/a.txt', content: 'x' }, context(controller.signal)).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ToolAbortedError);
      expect((error as Error).message).toBe('Tool files.write was aborted: lease lost');
      expect(await tree(root)).toEqual([]);
    });

    it('keeps the old file and removes the temporary file when aborted before the rename', async () => {
      await writeFile(path.join(root, 'a.txt'), 'old');
      // Fires once the temporary file exists: at the check between writing it and renaming it.
      const signal = {
        get aborted() {
          return readdirSync(root).some((name) => name.startsWith(WORKSPACE_TEMP_PREFIX));
        },
        reason: new Error('cancelled'),
      } as unknown as AbortSignal;
      await expect(write.execute({ path: 'a.txt', content: 'new' }, context(signal))).rejects.toBeInstanceOf(ToolAbortedError);
      expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('old');
      expect(await tree(root)).toEqual(['a.txt']);
    });
  });

  describe('files.append', () => {
    it('appends at the end, creating the file when missing, every time it is called', async () => {
      await expect(append.execute({ path: 'log/run.txt', content: 'one\n' }, context())).resolves.toEqual({ path: 'log/run.txt', appendedBytes: 4, bytes: 4 });
      await append.execute({ path: 'log/run.txt', content: 'two\n' }, context());
      await append.execute({ path: 'log/run.txt', content: 'two\n' }, context());
      await expect(read.execute({ path: 'log/run.txt' }, context())).resolves.toMatchObject({ content: 'one\ntwo\ntwo\n' });
    });

    it('appends nothing when the signal has fired', async () => {
      await writeFile(path.join(root, 'log.txt'), 'one\n');
      const controller = new AbortController();
      controller.abort();
      await expect(append.execute({ path: 'log.txt', content: 'two\n' }, context(controller.signal))).rejects.toBeInstanceOf(ToolAbortedError);
      await expect(append.execute({ path: 'new.txt', content: 'two\n' }, context(controller.signal))).rejects.toBeInstanceOf(ToolAbortedError);
      expect(await readFile(path.join(root, 'log.txt'), 'utf8')).toBe('one\n');
      expect(await tree(root)).toEqual(['log.txt']);
    });
  });

  describe('files.list', () => {
    it('lists one folder sorted by name, with file sizes, hiding stray temporary files', async () => {
      await writeFile(path.join(root, 'b.txt'), '12345');
      await mkdir(path.join(root, 'a'));
      await writeFile(path.join(root, 'a', 'nested.txt'), 'x');
      await writeFile(path.join(root, `${WORKSPACE_TEMP_PREFIX}stray`), 'torn');
      await symlink(path.join(root, 'b.txt'), path.join(root, 'c-link'));
      const listed = (await list.execute({}, context())) as JsonObject;
      expect(listed).toEqual({
        path: '.',
        entries: [
          { name: 'a', type: 'folder' },
          { name: 'b.txt', type: 'file', bytes: 5 },
          { name: 'c-link', type: 'link' },
        ],
        truncated: false,
      });
      await expect(list.execute({ path: 'a' }, context())).resolves.toMatchObject({ path: 'a', entries: [{ name: 'nested.txt', type: 'file', bytes: 1 }] });
    });

    it('refuses a file where a folder is needed', async () => {
      await writeFile(path.join(root, 'b.txt'), 'x');
      await expect(list.execute({ path: 'b.txt' }, context())).rejects.toMatchObject({ problem: 'notADirectory' });
    });
  });

  it('refuses to open a workspace folder that does not exist', async () => {
    await expect(Workspace.open({ workspaceDir: path.join(base, 'missing') }, 'files.workspaceDir')).rejects.toThrow(/^files\.workspaceDir ".*missing" does not exist$/);
    await writeFile(path.join(base, 'file'), '');
    await expect(Workspace.open({ workspaceDir: path.join(base, 'file') })).rejects.toThrow(/is not a folder/);
  });
});
