/**
 * Where the service's CPU goes while it answers `POST /runs`: a V8 CPU
 * profile (`node --cpu-prof`) of the service, its samples within the load's
 * window sorted into the stages of a request and the background work each
 * accepted run causes, by the frames on each sample's stack.
 */
import { readFileSync } from 'node:fs';
import type { CpuProfile, ProfileNode, ProfileWindow } from '../../support/cpu-profile-format';
import { forEachSample } from '../../support/cpu-profile-format';



/** A stage and its share of the sampled time. */
export interface StageShare {
  readonly stage: string;
  /** 0..1 */
  readonly share: number;
}

/**
 * Background work, recognised anywhere on a sample's stack (it runs from
 * timers and subscriptions, never inside a request's handler).
 */
const BACKGROUND_STAGES: ReadonlyArray<readonly [string, RegExp]> = [
  ['read models (projections: apply, checkpoint)', /libs\/projections\/src\//],
  ['queue index', /queue-index/],
  ['subscriptions reading $all', /pull-subscription|^(readPage|pageOfAll) .*sqlite-event-store/],
  ['store group commit (transaction, inserts)', /^(flush|runBatch|appendInTransaction) .*sqlite-event-store/],
];

/** Request stages: the one nearest the sampled frame wins (a handler runs nested inside Express's and body-parser's callbacks). */
const REQUEST_STAGES: ReadonlyArray<readonly [string, RegExp]> = [
  ['validation pipe (class-validator, class-transformer)', /validation-pipe|class-validator|class-transformer/],
  ['API key guard (SHA-256 of the key)', /api-key\.guard|api-key-verifier/],
  ['run command: read the stream, decide, event data (ids, checks)', /run-command-processor|run-service|run-starter|command-bus|command-handlers/],
  ['answer: replyJson (headers, JSON, socket write)', /json-reply/],
  ['body: body-parser, raw-body, JSON.parse', /body-parser|raw-body/],
  ['HTTP parser, Express router, Nest plumbing', /_http_(server|common|incoming)|express|router\/|@nestjs|parseurl|finalhandler|on-finished/],
];

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url}:${lineNumber + 1}`;
}

/**
 * Shares of the stages in the samples between `fromUs` and `toUs` (the
 * monotonic clock of `process.hrtime`, which V8's profile timestamps share on
 * Linux), largest first; `(garbage collector)`, `(idle)`, `(program)` and
 * `other` for the rest.
 */
export function profileStages(path: string, window: ProfileWindow): { readonly sampledMs: number; readonly stages: readonly StageShare[] } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const totals = new Map<string, number>();
  let total = 0;
  forEachSample(profile, window, (leaf, delta) => {
    const stack: string[] = [];
    for (let at: number | undefined = leaf.id; at !== undefined; at = parentOf.get(at)) stack.push(frameName(byId.get(at) as ProfileNode));
    let stage = BACKGROUND_STAGES.find(([, pattern]) => stack.some((frame) => pattern.test(frame)))?.[0];
    for (let i = 0; stage === undefined && i < stack.length; i += 1) stage = REQUEST_STAGES.find(([, pattern]) => pattern.test(stack[i] as string))?.[0];
    stage ??= leaf.callFrame.url === '' && leaf.callFrame.functionName.startsWith('(') ? leaf.callFrame.functionName : 'other';
    totals.set(stage, (totals.get(stage) ?? 0) + delta);
    total += delta;
  });
  const stages = [...totals].sort((a, b) => b[1] - a[1]).map(([stage, us]) => ({ stage, share: total === 0 ? 0 : us / total }));
  return { sampledMs: total / 1000, stages };
}
