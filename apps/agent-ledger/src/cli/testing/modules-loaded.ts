import type { CliOutput } from '../cli-output';
import type * as Main from '../main';

/** A CLI output that keeps its lines. */
export function capturedOutput(): CliOutput & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), isTTY: false };
}

/**
 * Runs `argv` on a fresh copy of the CLI (`jest.isolateModules`); resolves to
 * its exit code, its output and which of the `watched` modules it asked for.
 * Call {@link forgetWatched} after each test.
 */
export async function modulesLoadedBy(
  watched: readonly string[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv = {},
  deps: Main.CliDeps = {},
): Promise<{ code: number; loaded: string[]; output: ReturnType<typeof capturedOutput> }> {
  const loaded: string[] = [];
  let main: typeof Main | undefined;
  // The verbs' own import()s run after isolateModules returns, in the file's registry: emptied so that they load afresh.
  jest.resetModules();
  jest.isolateModules(() => {
    for (const name of watched) {
      jest.doMock(name, () => {
        loaded.push(name);
        return jest.requireActual(name);
      });
    }
    main = jest.requireActual<typeof Main>('../main');
  });
  const output = capturedOutput();
  const code = await (main as typeof Main).runCli(argv, output, env, deps);
  return { code, loaded, output };
}

/** Undoes {@link modulesLoadedBy}'s mocks. */
export function forgetWatched(watched: readonly string[]): void {
  for (const name of watched) jest.dontMock(name);
}
