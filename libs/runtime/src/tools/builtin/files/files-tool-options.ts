/** The largest file the file tools read or leave behind, in bytes. @default 1048576 (1 MiB) */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** The file tools' options (`ToolsModule.forRoot({ builtins: { files } })`). */
export interface FilesToolOptions {
  /**
   * The folder the file tools are confined to. It must exist when the module
   * starts. Every path a tool is given is relative to it; a path that leads
   * outside it (`..`, an absolute path, a symbolic link) is refused.
   */
  readonly workspaceDir: string;
  /**
   * The largest file, in bytes, that `files.read` reads and that
   * `files.write` / `files.append` leave behind.
   * @default 1048576 (1 MiB, {@link DEFAULT_MAX_FILE_BYTES})
   */
  readonly maxFileBytes?: number;
}
