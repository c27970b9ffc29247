import { Logger } from '@nestjs/common';
import type { ProjectionName, ProjectionRebuilder, RebuildOptions, RebuildProgress, RebuildResult } from '@agent-ledger/projections';
import { RebuildAbortedError, RebuildInProgressError } from '@agent-ledger/projections';
import { ProjectionRebuildService } from './projection-rebuild.service';

const progress = (projections: readonly ProjectionName[]): RebuildProgress => ({
  phase: 'started',
  projections,
  source: null,
  eventsDone: 0,
  eventsApplied: 0,
  fractionDone: null,
  eventsTotalEstimate: null,
  eventsPerSecond: 0,
  elapsedMs: 0,
  etaMs: null,
});

/** A rebuilder whose rebuild yields one record, then does what `then` says once the test calls `proceed()`. */
function fakeRebuilder(then: (options: RebuildOptions) => Promise<RebuildResult>) {
  let proceed!: () => void;
  const gate = new Promise<void>((resolve) => (proceed = resolve));
  const calls: RebuildOptions[] = [];
  const rebuilder = {
    inProgress: null as readonly ProjectionName[] | null,
    async *rebuildWithProgress(options: RebuildOptions = {}): AsyncGenerator<RebuildProgress, RebuildResult, undefined> {
      calls.push(options);
      yield progress(options.projections ?? ['runStatus', 'steps']);
      await gate;
      return then(options);
    },
  };
  return { rebuilder: rebuilder as unknown as ProjectionRebuilder & { inProgress: readonly ProjectionName[] | null }, proceed: () => proceed(), calls };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('condition never met');
}

describe('ProjectionRebuildService', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('refuses a second start while one runs, and a start while the rebuilder runs one of its own', async () => {
    const { rebuilder, proceed } = fakeRebuilder(async () => ({ projections: ['steps'], eventsDone: 3, eventsApplied: 3, elapsedMs: 1, eventsPerSecond: 3000 }));
    const service = new ProjectionRebuildService(rebuilder);
    expect(service.start('steps', 'ops')).toMatchObject({ state: 'running', projections: ['steps'], requestedBy: 'ops' });
    expect(() => service.start(undefined, 'ops')).toThrow(RebuildInProgressError);
    proceed();
    await until(() => service.state().state === 'succeeded');
    expect(service.state()).toMatchObject({ result: { eventsDone: 3 }, error: null });
    rebuilder.inProgress = ['approvals'];
    expect(() => service.start(undefined, 'ops')).toThrow(expect.objectContaining({ code: 'REBUILD_IN_PROGRESS', running: ['approvals'] }) as Error);
  });

  it('keeps a failure as failed with its message, and logs it as an error with its stack', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { rebuilder, proceed } = fakeRebuilder(async () => {
      throw new Error('disk I/O error');
    });
    const service = new ProjectionRebuildService(rebuilder);
    service.start(undefined, 'ops');
    await until(() => service.state().progress !== null);
    proceed();
    await until(() => service.state().state !== 'running');
    expect(service.state()).toMatchObject({ state: 'failed', error: 'disk I/O error', result: null, progress: { phase: 'started' } });
    expect(service.state().finishedAt).not.toBeNull();
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('disk I/O error'), expect.stringContaining('Error: disk I/O error'));
    // A failed rebuild does not block the next one.
    expect(() => service.start('steps', 'ops')).not.toThrow();
  });

  it('aborts a running rebuild at shutdown and waits for it to end', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    let aborted = false;
    const { rebuilder, proceed, calls } = fakeRebuilder(async (options) => {
      aborted = options.signal?.aborted === true;
      throw new RebuildAbortedError(['runStatus']);
    });
    const service = new ProjectionRebuildService(rebuilder);
    service.start('runStatus', 'ops');
    await until(() => service.state().progress !== null);
    expect(calls[0]?.signal?.aborted).toBe(false);
    const destroyed = service.onModuleDestroy();
    proceed();
    await destroyed;
    expect(aborted).toBe(true);
    expect(service.state()).toMatchObject({ state: 'failed', error: expect.stringContaining('runStatus') as string });
  });
});
