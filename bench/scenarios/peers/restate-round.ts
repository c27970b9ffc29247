/**
 * Restate in the peers scenario: `restate-server` from its npm package
 * (`@restatedev/restate-server`, whose platform package holds the binary),
 * started for each round as a child process with its data in a fresh
 * folder and its defaults (only the ports, the folder and telemetry set),
 * and the round's service and load in a Node process of their own
 * (`restate-child.ts`).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runChildRound } from './child-round';
import type { RestateRoundRequest } from './restate-child';
import { findPeerPackage, PEER_NOT_INSTALLED, peerRequire } from './peer-packages';
import type { PeerWorkload, SubjectRoundResult } from './workload';
import { freePort } from '../../../test/support/free-port';

const run = promisify(execFile);

/** Restate's packages in the peer folder, found or not. */
export type RestateInstall =
  | { readonly installed: true; readonly sdkVersion: string; readonly serverVersion: string; readonly binary: string }
  | { readonly installed: false; readonly reason: string };

/** Looks for the SDK, the server's package and its binary for this platform. */
export function findRestate(peerDirectory: string): RestateInstall {
  const sdk = findPeerPackage(peerDirectory, '@restatedev/restate-sdk');
  if (!sdk.installed) return sdk;
  const server = findPeerPackage(peerDirectory, '@restatedev/restate-server');
  if (!server.installed) return server;
  // As the package's own launcher (lib/index.js) finds it.
  const binaryPackage = `@restatedev/restate-server-${platform()}-${arch()}`;
  let binary: string;
  try {
    binary = peerRequire(server.directory).resolve(`${binaryPackage}/bin/restate-server`);
  } catch {
    return { installed: false, reason: `${PEER_NOT_INSTALLED} (${binaryPackage}, the server's binary for this platform, is missing)` };
  }
  return { installed: true, sdkVersion: sdk.version, serverVersion: server.version, binary };
}

/** The configuration file: the server's defaults but for where it listens and keeps its data, and no telemetry. */
function configuration(dir: string, ports: { node: number; admin: number; ingress: number }): string {
  return [
    `base-dir = ${JSON.stringify(join(dir, 'data'))}`,
    'node-name = "bench"',
    'disable-telemetry = true',
    `bind-address = "127.0.0.1:${ports.node}"`,
    `advertised-address = "http://127.0.0.1:${ports.node}/"`,
    '',
    '[admin]',
    `bind-address = "127.0.0.1:${ports.admin}"`,
    '',
    '[ingress]',
    `bind-address = "127.0.0.1:${ports.ingress}"`,
    '',
  ].join('\n');
}

/** The settings that decide what a journaled step survives, from the server's `--dump-config` (the defaults plus the file). */
const DURABILITY_SETTINGS: ReadonlyArray<readonly [section: string, key: string]> = [
  ['', 'default-replication'],
  ['', 'default-num-partitions'],
  ['bifrost', 'default-provider'],
  ['log-server', 'rocksdb-disable-wal-fsync'],
  ['bifrost.local', 'rocksdb-disable-wal'],
  ['bifrost.local', 'rocksdb-disable-wal-fsync'],
];

/** Reads `key = value` lines of a TOML dump by section (enough for `--dump-config`'s flat output). */
function tomlValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  let section = '';
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header !== null) {
      section = header[1] ?? '';
      continue;
    }
    const pair = /^\s*([A-Za-z0-9_-]+)\s*=\s*(.+?)\s*$/.exec(line);
    if (pair !== null) values.set(section === '' ? (pair[1] ?? '') : `${section}.${pair[1]}`, (pair[2] ?? '').replace(/^"(.*)"$/, '$1'));
  }
  return values;
}

/** A running `restate-server`. */
export class RestateServer {
  private exited: string | null = null;
  private readonly killOnExit = () => this.child.kill('SIGKILL');

  private constructor(
    private readonly child: ChildProcess,
    private readonly logPath: string,
    readonly adminUrl: string,
    readonly ingressUrl: string,
  ) {
    child.once('exit', (code, signal) => {
      this.exited = `restate-server exited (code ${code}, signal ${signal})`;
    });
    // Should the bench process end without stopping it (an uncaught error), the server goes with it.
    process.once('exit', this.killOnExit);
  }

  /** Starts a server with its data in `dir` and waits until its admin API and ingress answer. */
  static async start(binary: string, dir: string): Promise<RestateServer> {
    const ports = { node: await freePort(), admin: await freePort(), ingress: await freePort() };
    const configPath = join(dir, 'restate.toml');
    writeFileSync(configPath, configuration(dir, ports));
    const logPath = join(dir, 'restate-server.log');
    const log = openSync(logPath, 'a');
    let child: ChildProcess;
    try {
      child = spawn(binary, ['--config-file', configPath, '--no-logo', '--listen-mode', 'tcp', '--log-disable-ansi-codes', 'true'], { stdio: ['ignore', log, log] });
    } finally {
      closeSync(log);
    }
    const server = new RestateServer(child, logPath, `http://127.0.0.1:${ports.admin}`, `http://127.0.0.1:${ports.ingress}`);
    try {
      await server.waitUntilReady(60_000);
      return server;
    } catch (error) {
      await server.stop();
      throw error;
    }
  }

  /** The durability settings in force with the bench's configuration file, and the server's version. */
  static async describe(binary: string, dir: string): Promise<string> {
    const configPath = join(dir, 'restate-describe.toml');
    writeFileSync(configPath, configuration(join(dir, 'describe'), { node: 1, admin: 2, ingress: 3 }));
    const version = (await run(binary, ['--version'])).stdout.trim();
    const values = tomlValues((await run(binary, ['--dump-config', '--config-file', configPath], { maxBuffer: 16 * 1024 * 1024 })).stdout);
    const settings = DURABILITY_SETTINGS.map(([section, key]) => {
      const name = section === '' ? key : `${section}.${key}`;
      return `${name}=${values.get(name) ?? '(not in the dump)'}`;
    });
    return `${version}: ${settings.join(', ')}`;
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const answers = async (url: string) => {
      try {
        return (await fetch(url)).ok;
      } catch {
        return false;
      }
    };
    while (!((await answers(`${this.adminUrl}/health`)) && (await answers(`${this.ingressUrl}/restate/health`)))) {
      if (this.exited !== null) throw new Error(`${this.exited} while starting${this.logTail()}`);
      if (Date.now() > deadline) throw new Error(`restate-server not ready after ${timeoutMs / 1000} s${this.logTail()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The last lines of the server's log, for an error. */
  logTail(): string {
    if (!existsSync(this.logPath)) return '';
    const lines = readFileSync(this.logPath, 'utf8').split('\n').filter((l) => l.trim() !== '');
    return lines.length === 0 ? '' : `; its log ends: ${lines.slice(-12).join(' | ').slice(-1500)}`;
  }

  /** Stops the server (SIGTERM, then SIGKILL after 10 s). */
  async stop(): Promise<void> {
    process.removeListener('exit', this.killOnExit);
    if (this.exited !== null) return;
    const ended = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await ended;
    clearTimeout(timer);
  }
}

/** Runs one Restate round: a fresh server in `dir`, the service and the load in a process of their own. */
export async function restateRound(options: {
  readonly peerDirectory: string;
  readonly binary: string;
  readonly dir: string;
  readonly workload: PeerWorkload;
  readonly timeoutMs: number;
}): Promise<{ readonly result: SubjectRoundResult; readonly details: readonly string[] }> {
  const server = await RestateServer.start(options.binary, options.dir);
  try {
    const request: RestateRoundRequest = { peerDirectory: options.peerDirectory, adminUrl: server.adminUrl, ingressUrl: server.ingressUrl, workload: options.workload };
    try {
      // The SDK logs every invocation at INFO: warnings and errors only.
      return await runChildRound(join(__dirname, 'restate-child.ts'), request, { timeoutMs: options.timeoutMs, env: { RESTATE_LOGGING: 'WARN' } });
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}${server.logTail()}`, { cause: error });
    }
  } finally {
    await server.stop();
  }
}
