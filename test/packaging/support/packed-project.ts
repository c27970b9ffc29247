import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root. */
export const REPO_ROOT = join(__dirname, '..', '..', '..');

/** One package packed by `npm pack`, as its `--json` output lists it. */
export interface PackedPackage {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

/** What a command run in a project printed, and how it ended. */
export interface CommandResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The environment of a command run as a user would: without the `npm_*`
 * variables of the `npm test` that runs this suite (a nested `npm install`
 * would otherwise inherit this workspace's settings), nor Node options that
 * reach into this repository.
 */
export function userEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'NODE_OPTIONS' || key === 'NODE_PATH' || key === 'TS_NODE_PROJECT') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to its end (no shell), in `cwd`, with the user's environment. */
export function run(command: string, args: readonly string[], cwd: string, options: { env?: NodeJS.ProcessEnv; timeoutMs: number }): CommandResult {
  const result = spawnSync(command, [...args], { cwd, env: userEnvironment(options.env), encoding: 'utf8', timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs a command that must succeed; its output is in the error when it does not. */
export function runOk(command: string, args: readonly string[], cwd: string, options: { env?: NodeJS.ProcessEnv; timeoutMs: number }): CommandResult {
  const result = run(command, args, cwd, options);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${result.status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  return result;
}

/** Builds the packages and the service (incremental: quick when `npm run build` has run), and the console when it is missing. */
export function buildWorkspace(timeoutMs: number): void {
  runOk('npx', ['tsc', '-b', 'tsconfig.build.json'], REPO_ROOT, { timeoutMs });
  if (!existsSync(join(REPO_ROOT, 'libs', 'http', 'console', 'index.html'))) runOk('npm', ['run', 'console:build'], REPO_ROOT, { timeoutMs });
}

/** `npm pack` of every workspace package into `destination`. */
export function packWorkspaces(destination: string, timeoutMs: number): PackedPackage[] {
  const { stdout } = runOk('npm', ['pack', '--workspaces', '--json', '--pack-destination', destination], REPO_ROOT, { timeoutMs });
  return JSON.parse(stdout) as PackedPackage[];
}

/**
 * Creates a project in `dir` that depends on the packed tarballs (by `file:`
 * path) and on the registry for everything else, copies `fixture`'s files
 * into it, and installs it with `npm install`. The tarballs also override
 * every transitive dependency on an agent-ledger package, so that nothing is
 * fetched from the registry under those names nor resolved from this
 * repository.
 */
export function createProject(
  dir: string,
  packed: readonly PackedPackage[],
  tarballDir: string,
  options: { fixture?: string; devDependencies?: Record<string, string>; env?: NodeJS.ProcessEnv; timeoutMs: number },
): void {
  const dependencies = Object.fromEntries(packed.map((p) => [p.name, `file:${join(tarballDir, p.filename)}`]));
  const manifest = {
    name: 'my-agents',
    version: '1.0.0',
    private: true,
    dependencies: { ...dependencies, ...NEST_DEPENDENCIES },
    overrides: Object.fromEntries(packed.map((p) => [p.name, `$${p.name}`])),
    devDependencies: options.devDependencies ?? {},
  };
  if (options.fixture !== undefined) cpSync(options.fixture, dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  runOk('npm', ['install', '--no-audit', '--no-fund'], dir, { env: options.env ?? {}, timeoutMs: options.timeoutMs });
}

/**
 * better-sqlite3's native module, built by this repository's own install,
 * offered to `npm install` as the prebuilt binary it would download from
 * GitHub with internet access (prebuild-install's local prebuilds: a tarball
 * named as the release asset, in the folder the returned environment names).
 * A user's install downloads that binary; offline, as here, it would compile
 * SQLite from source for about 90 s in every project. When the project
 * resolves another version than the repository's, the name does not match and
 * the install compiles, as before: slower, never wrong.
 */
export function offerNativePrebuild(dir: string, timeoutMs: number): NodeJS.ProcessEnv {
  const packageDir = join(REPO_ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(dir, { recursive: true });
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  runOk('tar', ['-czf', join(dir, asset), 'build/Release/better_sqlite3.node'], packageDir, { timeoutMs });
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

/**
 * Points a project's dependencies on agent-ledger packages (as `agent-ledger
 * init` writes them, at the published version) at the packed tarballs, and
 * overrides every transitive one with them too: what installing the
 * published version would give, without a registry that has it.
 */
export function pinToTarballs(dir: string, packed: readonly PackedPackage[], tarballDir: string): void {
  const path = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { dependencies?: Record<string, string>; overrides?: Record<string, string> };
  const tarballOf = new Map(packed.map((p) => [p.name, `file:${join(tarballDir, p.filename)}`]));
  const dependencies = { ...manifest.dependencies };
  for (const name of Object.keys(dependencies)) {
    const tarball = tarballOf.get(name);
    if (tarball !== undefined) dependencies[name] = tarball;
  }
  const overrides = Object.fromEntries(packed.map((p) => [p.name, dependencies[p.name] === undefined ? (tarballOf.get(p.name) as string) : `$${p.name}`]));
  writeFileSync(path, `${JSON.stringify({ ...manifest, dependencies, overrides }, null, 2)}\n`);
}

/** The Nest packages a host application imports itself, in the ranges the packages ask of it as peers. */
const NEST_DEPENDENCIES: Record<string, string> = (() => {
  const runtime = JSON.parse(readFileSync(join(REPO_ROOT, 'libs', 'runtime', 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
  return runtime.peerDependencies;
})();

/** A service started with `npx agent-ledger serve` in a project. */
export interface ServedProject {
  /** `http://127.0.0.1:<port>`, as the service announced it. */
  readonly baseUrl: string;
  /** What the service printed so far (stdout and stderr). */
  output(): string;
  /**
   * Stops it as Ctrl-C in a terminal would: SIGINT to its process group
   * (npx and the CLI; the CLI then sends the service, in a group of its own,
   * one SIGTERM and waits for its shutdown). Resolves once npx has ended and
   * no process runs from `cwd` any more, with what still ran at the deadline
   * (nothing, when it stopped cleanly).
   */
  stop(): Promise<{ readonly leftovers: readonly string[] }>;
}

/**
 * Starts `npx agent-ledger serve` in `cwd` (its own process group), and
 * resolves once it announces the address it listens on.
 * @throws when it exits first or does not announce it within `timeoutMs`, with its output
 */
export function serveProject(cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number, args: readonly string[] = []): Promise<ServedProject> {
  const child = spawn('npx', ['agent-ledger', 'serve', ...args], { cwd, env: userEnvironment(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<{ readonly leftovers: readonly string[] }> => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGINT');
    const deadline = Date.now() + timeoutMs;
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    let leftovers = processesRunningFrom(cwd);
    while (leftovers.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      leftovers = processesRunningFrom(cwd);
    }
    for (const line of leftovers) process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    return { leftovers };
  };
  return new Promise<ServedProject>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`npx agent-ledger serve announced no address within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ baseUrl: match[1] as string, output: () => output, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npx agent-ledger serve exited with ${code} before it listened:\n${output}`));
    });
  });
}

/** The processes (`pid args`) whose command line names a file under `dir`. */
function processesRunningFrom(dir: string): string[] {
  const { stdout } = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return stdout.split('\n').filter((line) => line.includes(`${dir}/`) && !line.includes(' ps -eo'));
}
