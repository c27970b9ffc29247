import { hostname, userInfo } from 'node:os';
import type { ProjectionName, RebuildProgress } from '@agent-ledger/projections';
import { PROJECTION_NAMES, ProjectionRebuilder } from '@agent-ledger/projections';
import type { ServiceConfig } from '../config/service-config';
import type { CliOutput } from './cli-output';
import { ExitCode } from './cli-output';
import { readModelSources } from '@agent-ledger/module';
import { openReadModels } from '../config/read-models';
import type { OpenStores } from '../config/open-stores';
import { openStores } from '../config/open-stores';
import { resetOrCheckLedger, resetProcessorsOfOtherStores } from '../config/store-identity-check';
import { announceStores, storesRead } from './stores-read';

/**
 * `agent-ledger projections rebuild [name] [--config FILE]`: says which stores
 * it reads (its first line), then rebuilds one projection (or all)
 * from the beginning of the history into fresh tables and swaps them in when
 * caught up. A running service keeps answering from the old tables until the
 * swap. Progress: a bar on a terminal, plain lines otherwise. The swap is
 * recorded in the read models' file as asked by {@link cliRequester}, where
 * the service's `GET /projections/rebuild` (and its console) shows it.
 *
 * It is also the fix for read models made from another store (the service
 * refuses to start on them): a rebuild of every projection records the
 * configured stores as the ones the read models follow, and resets the
 * audit-gap saga's ledger when it too was made from other stores.
 */
export async function projectionsRebuild(config: ServiceConfig, name: string | undefined, output: CliOutput, cwd: string = process.cwd()): Promise<ExitCode> {
  if (name !== undefined && !(PROJECTION_NAMES as readonly string[]).includes(name)) {
    output.err(`Unknown projection "${name}" (known: ${PROJECTION_NAMES.join(', ')})`);
    return ExitCode.USAGE;
  }
  const stores = openStores(config);
  const readModels = openReadModels(config);
  try {
    announceStores(await storesRead(config, stores, cwd), 'projections rebuild', output, false);
    const rebuilder = new ProjectionRebuilder(readModels, readModelSources(stores.runStore, stores.auditStore));
    const progress = rebuilder.rebuildWithProgress({ projections: name === undefined ? undefined : [name as ProjectionName], requestedBy: cliRequester() });
    let lastLine = 0;
    for (;;) {
      const next = await progress.next();
      if (next.done === true) {
        if (output.isTTY) output.out('');
        const result = next.value;
        output.out(`Rebuilt ${result.projections.join(', ')}: ${result.eventsDone} events (${result.eventsApplied} applied) in ${(result.elapsedMs / 1000).toFixed(1)} s; swapped in`);
        if (name === undefined) await resetLedgerOfOtherStores(config, stores, output);
        return ExitCode.OK;
      }
      const now = Date.now();
      if (output.isTTY) {
        process.stdout.write(`\r${bar(next.value)}`);
      } else if (now - lastLine >= 1000 || next.value.phase !== 'replaying') {
        output.out(plain(next.value));
        lastLine = now;
      }
    }
  } finally {
    readModels.close();
    await stores.close();
  }
}

/**
 * After a rebuild of every projection: the audit-gap saga's ledger, when it
 * was made from other stores (the same mistake that made the read models
 * refuse), is reset to follow the configured stores from their start, so that
 * the service starts; told on the output. A ledger of these stores is untouched.
 */
async function resetLedgerOfOtherStores(config: ServiceConfig, stores: OpenStores, output: CliOutput): Promise<void> {
  await resetOrCheckLedger(config, stores, 'reset', (message) => output.out(message));
  await resetProcessorsOfOtherStores(config, stores, (message) => output.out(message));
}

function plain(p: RebuildProgress): string {
  const fraction = p.fractionDone === null ? '' : ` ${(p.fractionDone * 100).toFixed(1)}%`;
  const eta = p.etaMs === null ? '' : `, ${(p.etaMs / 1000).toFixed(0)} s left`;
  return `${p.phase}${p.source === null ? '' : ` ${p.source}`}:${fraction} ${p.eventsDone} events, ${Math.round(p.eventsPerSecond)} events/s${eta}`;
}

function bar(p: RebuildProgress): string {
  const width = 30;
  const filled = p.fractionDone === null ? 0 : Math.round(p.fractionDone * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${plain(p)}`.padEnd(100);
}

/**
 * `cli:<user>@<host>`: who ran a rebuild from the CLI, as the read models'
 * file records it (the CLI opens the files itself: no API key names the
 * caller). The user is the operating system's (`USER` when it has no entry
 * for this process's user id).
 */
export function cliRequester(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
  return `cli:${user}@${hostname()}`;
}
