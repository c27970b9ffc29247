/**
 * Where the peers of the peers scenario are: packages of `bench/peer` (a
 * package of its own, installed by `bench/peer/ensure-installed.js`, never
 * imported by the product). Nothing here loads them: a peer's round loads
 * its package in its own process, from the folder it is given.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The start of the note of a peer whose package is missing. */
export const PEER_NOT_INSTALLED = 'peer not installed';

/** A package of the peer folder, found or not. */
export type PeerPackage =
  | { readonly installed: true; readonly name: string; readonly version: string; readonly directory: string }
  | { readonly installed: false; readonly reason: string };

/** Looks for `name` in `peerDirectory/node_modules`. */
export function findPeerPackage(peerDirectory: string, name: string): PeerPackage {
  const manifest = join(peerDirectory, 'node_modules', ...name.split('/'), 'package.json');
  if (!existsSync(manifest)) {
    return { installed: false, reason: `${PEER_NOT_INSTALLED} (${manifest} missing; install it with: node bench/peer/ensure-installed.js)` };
  }
  try {
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    return { installed: true, name, version, directory: dirname(manifest) };
  } catch (error) {
    return { installed: false, reason: `peer not loadable: ${manifest}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** A `require` that resolves from the peer folder (its node_modules, not the repository's). */
export function peerRequire(peerDirectory: string): NodeJS.Require {
  return createRequire(join(peerDirectory, 'package.json'));
}
