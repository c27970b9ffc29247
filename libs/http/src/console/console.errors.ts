/** The console's folder has no `index.html`: it was not built. Answered 404. */
export class ConsoleNotBuiltError extends Error {
  readonly code = 'CONSOLE_NOT_BUILT' as const;

  constructor() {
    // The folder is named in the start-up log, not to an anonymous client.
    super('The console is not built: run `npm run build` (or set CONSOLE_DIR to the folder of a built console)');
    this.name = 'ConsoleNotBuiltError';
  }
}

/**
 * No such file in the console's folder, or a path that may not be served
 * (`..`, an absolute path, a NUL byte, a hidden file, a symbolic link out of
 * the folder): the same answer for each, 404.
 */
export class ConsoleFileNotFoundError extends Error {
  readonly code = 'CONSOLE_FILE_NOT_FOUND' as const;

  constructor() {
    super('No such file in the console');
    this.name = 'ConsoleFileNotFoundError';
  }
}

/** A console route asked with another method than GET or HEAD. Answered 405 with `Allow: GET, HEAD`. */
export class ConsoleMethodNotAllowedError extends Error {
  readonly code = 'METHOD_NOT_ALLOWED' as const;

  constructor(readonly method: string) {
    super(`The console's files answer GET and HEAD only (got ${method})`);
    this.name = 'ConsoleMethodNotAllowedError';
  }
}
