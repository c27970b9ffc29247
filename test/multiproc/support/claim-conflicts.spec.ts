import type { HistoryEvent } from '../../crash/support/history';
import { claimConflictFigures, formatClaimConflicts } from './claim-conflicts';

const claimed = (revision: number): HistoryEvent => ({ type: 'RunClaimed', revision, position: String(revision), data: {} });

describe('claimConflictFigures', () => {
  it('counts, per run, the refused appends that proposed a RunClaimed, apart from the other refused appends, and ignores other streams', () => {
    const stats = {
      total: 7,
      streams: {
        'run-a': { refused: 3, byEventType: { RunClaimed: 2, StepStarted: 1 } },
        'run-b': { refused: 1, byEventType: { RunRequeued: 1 } },
        'run-x': { refused: 3, byEventType: { RunClaimed: 3 } },
      },
    };
    const history = { runs: new Map([['a', [claimed(1), claimed(4)]], ['b', [claimed(1)]], ['c', [claimed(1)]]]) };

    const figures = claimConflictFigures(stats, ['a', 'b', 'c'], history);

    expect(figures).toEqual({
      runs: 3,
      claims: 4,
      conflicts: 2,
      meanPerRun: 2 / 3,
      perClaim: 0.5,
      maxPerRun: 2,
      maxRunId: 'a',
      distribution: { '0': 2, '2': 1 },
      otherRefusedAppends: 2,
    });
    expect(formatClaimConflicts(figures)).toBe(
      'claim conflicts: 2 over 3 runs (0.67 per run, 0.50 per won claim of 4), at most 2 for one run (a); runs by conflicts {0: 2, 2: 1}; other refused appends on the run streams: 2',
    );
  });
});
