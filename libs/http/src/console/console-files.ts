import { existsSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { HttpApiOptions } from '../http-api-options';
import { HTTP_API_OPTIONS } from '../http-api-options';
import { consoleCacheControlOf, consoleContentTypeOf } from './console-file-types';
import { ConsoleFileNotFoundError, ConsoleNotBuiltError } from './console.errors';
import { CONSOLE_INDEX } from './console-path';

/** A file of the console, ready to send. */
export interface ConsoleFile {
  readonly body: Buffer;
  readonly contentType: string;
  readonly cacheControl: string;
}

/**
 * The built console's files, read from `CONSOLE_DIR` on each request (they
 * are small; the OS caches them). Warns once at start-up when the folder
 * holds no `index.html`: the service runs, `/console/` answers 404
 * `CONSOLE_NOT_BUILT`.
 */
@Injectable()
export class ConsoleFiles implements OnApplicationBootstrap {
  private readonly logger = new Logger('Console');
  /** `CONSOLE_DIR`, absolute. */
  readonly dir: string;

  constructor(@Inject(HTTP_API_OPTIONS) config: HttpApiOptions) {
    this.dir = config.consoleDir;
  }

  onApplicationBootstrap(): void {
    if (!existsSync(join(this.dir, CONSOLE_INDEX))) {
      this.logger.warn(`The console is not built: no ${CONSOLE_INDEX} in ${this.dir} (run npm run build, or set CONSOLE_DIR); /console/ answers 404 CONSOLE_NOT_BUILT`);
    }
  }

  /**
   * The file at `relativePath` (as `consoleRelativePath` gave it): a regular
   * file whose real path (symbolic links resolved) lies inside the real
   * console folder.
   * @throws ConsoleNotBuiltError for `index.html` when it is missing
   * @throws ConsoleFileNotFoundError for any other file that is missing, not a regular file, or out of the folder
   */
  async read(relativePath: string): Promise<ConsoleFile> {
    const path = await this.realPathInside(relativePath);
    if (path === null) throw relativePath === CONSOLE_INDEX ? new ConsoleNotBuiltError() : new ConsoleFileNotFoundError();
    return { body: await readFile(path), contentType: consoleContentTypeOf(relativePath), cacheControl: consoleCacheControlOf(relativePath) };
  }

  /** The real path of a regular file inside the console folder, or null (missing, a folder, or a link out of it). */
  private async realPathInside(relativePath: string): Promise<string | null> {
    try {
      const root = await realpath(this.dir);
      const path = await realpath(join(this.dir, ...relativePath.split('/')));
      if (!path.startsWith(root + sep)) return null;
      return (await stat(path)).isFile() ? path : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }
}

/** Whether a file-system error says the path names nothing (or goes through something that is not a folder). */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'ENAMETOOLONG';
}
