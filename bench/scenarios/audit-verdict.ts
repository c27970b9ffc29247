/**
 * Audit verdict: the integrity verdict of `agent-ledger audit verify` /
 * `GET /audit/chains` (every audit chain verified, every executed write of
 * the run store matched to its `AuditRecorded`) over a history of 1 million
 * events (quick: 20,000), against the baseline of reading and parsing the
 * same events; and the reviews of `GET /audit/review` that continue from the
 * verified checkpoint: with nothing new (what the console's refresh costs),
 * after 1,000 new events, and the first review of a new process, which loads
 * the checkpoint file.
 *
 * Method: the history is the rebuild scenario's (`rebuild/history.ts`: the
 * domain's deciders, so the audit chains are real hash chains), generated
 * once into one SQLite file (runs and audits in the same store, as the
 * service keeps them unless `AUDIT_STORE_PATH` is set). Each round, in this
 * process: the baseline (`SqliteEventStore.readAll` of every event, parsed)
 * and a full pass of the service's reviewer (`full: true`, which also writes
 * its checkpoint file), in an order that rotates from round to round; then
 * {@link NOTHING_NEW_REVIEWS} reviews with nothing new on that reviewer (the
 * round's sample is their median); then a new reviewer on a newly opened
 * store and the same checkpoint file (a restarted service) reviews once;
 * then about 1,000 events of new runs are appended (the same generator,
 * another seed) and it reviews again.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '@agent-ledger/event-store';
import type { AuditStoreVerdict } from '@agent-ledger/runtime';
import { AUDIT_VERDICT_CHECKPOINT_FILE, AuditStoreReviewer, VERDICT_RUN_EVENT_TYPES } from '@agent-ledger/runtime';
import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult, TargetCheck } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { median, ratioSamples } from '../support/stats';
import { generateHistory } from './rebuild/history';

/** Events of the history: 1 million, and the smoke size. */
export const AUDIT_VERDICT_EVENTS = { full: 1_000_000, quick: 20_000 } as const;

/** Events appended before the review that reads new events (whole runs: a few more). */
export const AUDIT_VERDICT_NEW_EVENTS = 1_000;

/** Reviews with nothing new per round (the round's sample is their median). */
export const NOTHING_NEW_REVIEWS = 10;

/** The targets of issue 26: a review with nothing new, and one after 1,000 new events. */
export const AUDIT_VERDICT_TARGET_MS = { nothingNew: 100, newEvents: 1_000 } as const;

type Subject = 'full' | 'baseline';

/** Checks that the verdict saw the whole history and found only what the generator made (failed closed, audit missing). */
function checkVerdict(verdict: AuditStoreVerdict, runs: number, auditEvents: number): void {
  if (verdict.records !== auditEvents) throw new Error(`the verdict checked ${verdict.records} audit records; the history has ${auditEvents}`);
  if (verdict.runs > runs) throw new Error(`the verdict saw ${verdict.runs} audited runs; the history has ${runs} runs`);
  if (verdict.brokenRuns.length > 0) throw new Error(`the verdict found broken chains in a generated history: ${verdict.brokenRuns.slice(0, 5).join(', ')}`);
  if (verdict.totals.writesWithoutAuditNotAllowed > 0) throw new Error(`the verdict found ${verdict.totals.writesWithoutAuditNotAllowed} writes without audit that nothing allows`);
}

function expectMode(verdict: AuditStoreVerdict, mode: 'full' | 'incremental', what: string): void {
  if (verdict.verification.mode !== mode) throw new Error(`${what} was ${verdict.verification.mode} (${String(verdict.verification.fullBecause)}), not ${mode}`);
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

/** Audit verdict: the full verification and the incremental reviews, against reading and parsing the same events. */
export const auditVerdictScenario: BenchScenario = {
  name: 'audit-verdict',
  title: 'Audit verdict: every chain verified and every write matched, from the store, against reading and parsing the same events; the reviews from the checkpoint',
  run: async (context: BenchContext): Promise<ScenarioResult> => {
    const targetEvents = context.quick ? AUDIT_VERDICT_EVENTS.quick : AUDIT_VERDICT_EVENTS.full;
    context.log(`generating a history of ${targetEvents} events`);
    const history = await generateHistory({ path: join(context.tempDir('history'), 'agent-ledger.sqlite'), targetEvents, log: context.log });
    context.log(`history: ${history.events} events of ${history.runs} runs, generated in ${history.seconds.toFixed(1)} s`);
    const checkpointPath = join(context.tempDir('read-models'), AUDIT_VERDICT_CHECKPOINT_FILE);

    let events = history.events;
    let runs = history.runs;
    let auditEvents = history.auditEvents;
    const seconds: Record<Subject, number[]> = { full: [], baseline: [] };
    const ms = { nothingNew: [] as number[], newProcess: [] as number[], newEvents: [] as number[] };
    const appended: number[] = [];
    let last: AuditStoreVerdict | null = null;
    let lastNothingNew: AuditStoreVerdict | null = null;
    let lastNewProcess: AuditStoreVerdict | null = null;
    let lastNewEvents: AuditStoreVerdict | null = null;
    for (let round = 0; round < context.rounds; round++) {
      const store = SqliteEventStore.open({ path: history.path });
      const stores = { runStore: store, auditStore: store };
      const reviewer = new AuditStoreReviewer(stores, { checkpointPath });
      try {
        for (const subject of round % 2 === 0 ? (['full', 'baseline'] as const) : (['baseline', 'full'] as const)) {
          const started = performance.now();
          if (subject === 'baseline') {
            let n = 0;
            for await (const event of store.readAll()) if (event.data !== null) n++;
            if (n !== events) throw new Error(`readAll read ${n} events; the history has ${events}`);
          } else {
            last = await reviewer.review({ full: true });
            expectMode(last, 'full', 'the full pass');
            checkVerdict(last, runs, auditEvents);
          }
          seconds[subject].push((performance.now() - started) / 1000);
        }
        const nothingNew: number[] = [];
        for (let i = 0; i < NOTHING_NEW_REVIEWS; i++) {
          const { result, ms: took } = await timed(() => reviewer.review());
          expectMode(result, 'incremental', 'a review with nothing new');
          if (result.verification.eventsRead !== 0) throw new Error(`a review with nothing new read ${result.verification.eventsRead} events`);
          nothingNew.push(took);
          lastNothingNew = result;
        }
        ms.nothingNew.push(median(nothingNew));
      } finally {
        reviewer.close();
        await store.close();
      }

      // A restarted service: a new store object, a new reviewer, the same checkpoint file.
      const restarted = SqliteEventStore.open({ path: history.path });
      const next = new AuditStoreReviewer({ runStore: restarted, auditStore: restarted }, { checkpointPath });
      try {
        const loaded = await timed(() => next.review());
        expectMode(loaded.result, 'incremental', 'the first review of a new process');
        if (loaded.result.verification.checkpoint !== 'file') throw new Error('the first review of a new process did not load the checkpoint file');
        checkVerdict(loaded.result, runs, auditEvents);
        ms.newProcess.push(loaded.ms);
        lastNewProcess = loaded.result;

        const added = await generateHistory({ path: history.path, targetEvents: AUDIT_VERDICT_NEW_EVENTS, seed: 7_000 + round });
        events += added.events;
        runs += added.runs;
        auditEvents += added.auditEvents;
        appended.push(added.events);
        // The verdict reads the audit streams and five of the run events' types.
        const relevant = added.auditEvents + VERDICT_RUN_EVENT_TYPES.reduce((n, type) => n + (added.eventsByType[type] ?? 0), 0);
        const afterNew = await timed(() => next.review());
        expectMode(afterNew.result, 'incremental', `the review after ${added.events} new events`);
        if (afterNew.result.verification.eventsRead !== relevant) {
          throw new Error(`the review after ${added.events} new events read ${afterNew.result.verification.eventsRead} of them, not the ${relevant} the verdict reads`);
        }
        checkVerdict(afterNew.result, runs, auditEvents);
        ms.newEvents.push(afterNew.ms);
        lastNewEvents = afterNew.result;
      } finally {
        next.close();
        await restarted.close();
      }
      context.log(
        `round ${round + 1}/${context.rounds}: full ${(seconds.full.at(-1) ?? 0).toFixed(2)} s, readAll ${(seconds.baseline.at(-1) ?? 0).toFixed(2)} s, ` +
          `nothing new ${(ms.nothingNew.at(-1) ?? 0).toFixed(1)} ms, new process ${(ms.newProcess.at(-1) ?? 0).toFixed(0)} ms, ` +
          `${appended.at(-1) ?? 0} new events ${(ms.newEvents.at(-1) ?? 0).toFixed(0)} ms`,
      );
    }

    const rate = (subject: Subject) => seconds[subject].map((s) => history.events / s);
    const variant = { events: history.events, runs: history.runs };
    const measurements: Measurement[] = [
      { subject: 'product', variant: { ...variant, work: 'full verdict (audit verify)' }, metric: 'events/s', unit: 'events/s', better: 'higher', samples: rate('full') },
      { subject: 'product', variant: { ...variant, work: 'full verdict (audit verify)' }, metric: 'duration', unit: 's', better: 'lower', samples: seconds.full },
      { subject: 'product', variant: { ...variant, work: 'review, nothing new (GET /audit/review)' }, metric: 'duration', unit: 'ms', better: 'lower', samples: ms.nothingNew },
      { subject: 'product', variant: { ...variant, work: 'first review of a new process (checkpoint file loaded)' }, metric: 'duration', unit: 'ms', better: 'lower', samples: ms.newProcess },
      { subject: 'product', variant: { ...variant, work: `review after ${AUDIT_VERDICT_NEW_EVENTS} new events` }, metric: 'duration', unit: 'ms', better: 'lower', samples: ms.newEvents },
      { subject: 'baseline', variant: { ...variant, work: 'SqliteEventStore.readAll (parsed)' }, metric: 'events/s', unit: 'events/s', better: 'higher', samples: rate('baseline') },
    ];
    const fullMs = seconds.full.map((s) => s * 1000);
    const ratios: Ratio[] = [
      { name: 'product/baseline audit verdict events/s', variant: { events: history.events, baseline: 'readAll' }, samples: ratioSamples(rate('full'), rate('baseline')) },
      { name: 'first review of a new process / full pass', variant: { events: history.events }, samples: ratioSamples(ms.newProcess, fullMs), better: 'lower' },
    ];
    const quickNote = context.quick ? ` QUICK: ${formatNumber(history.events)} events, not 1M; the figures mean little.` : '';
    const size = `${formatNumber(history.events)} events / ${formatNumber(history.runs)} runs`;
    const targets: TargetCheck[] = [
      {
        target: `review with nothing new, ${size}: < ${AUDIT_VERDICT_TARGET_MS.nothingNew} ms`,
        measured: `${median(ms.nothingNew).toFixed(1)} ms (median of ${context.rounds} round(s), each the median of ${NOTHING_NEW_REVIEWS} reviews${quickNote})`,
        met: median(ms.nothingNew) < AUDIT_VERDICT_TARGET_MS.nothingNew,
      },
      {
        target: `review after ${formatNumber(AUDIT_VERDICT_NEW_EVENTS)} new events, ${size}: < ${formatNumber(AUDIT_VERDICT_TARGET_MS.newEvents)} ms`,
        measured: `${median(ms.newEvents).toFixed(0)} ms (median of ${context.rounds} round(s)${quickNote})`,
        met: median(ms.newEvents) < AUDIT_VERDICT_TARGET_MS.newEvents,
      },
    ];
    const fileMb = statSync(checkpointPath).size / 1e6;
    const t = last?.totals;
    const notes = [
      `full verdict ${median(seconds.full).toFixed(1)} s (checkpoint file written), readAll ${median(seconds.baseline).toFixed(1)} s; nothing new ${median(ms.nothingNew).toFixed(1)} ms, ` +
        `first review of a new process ${median(ms.newProcess).toFixed(0)} ms, after ${AUDIT_VERDICT_NEW_EVENTS} new events ${median(ms.newEvents).toFixed(0)} ms (medians of ${context.rounds} round(s)).${quickNote}`,
      `history: ${formatNumber(history.events)} events (${formatNumber(history.runEvents)} run, ${formatNumber(history.auditEvents)} audit) of ${formatNumber(history.runs)} runs, one file; ` +
        `each round appends about ${AUDIT_VERDICT_NEW_EVENTS} more (${appended.join(', ')})`,
      `verdict: ${last?.runs ?? 0} chains, ${last?.records ?? 0} records, ${t?.writesExecuted ?? 0} writes executed, ${t?.writesAudited ?? 0} audited, ` +
        `${t?.writesWithoutAudit ?? 0} without audit (all in runs failed closed or AUDIT_MISSING, as generated), ${t?.auditedLate ?? 0} audited late`,
      `nothing new: ${lastNothingNew?.verification.headsChecked ?? 0} audit heads re-read and hashed per review (rotating), ${lastNothingNew?.verification.headRounds ?? 0} rounds done; ` +
        `new process: ${lastNewProcess?.verification.headsChecked ?? 0} heads; after new events: ${lastNewEvents?.verification.eventsRead ?? 0} of them read (the audit events and five run event types), ${lastNewEvents?.verification.headsChecked ?? 0} heads`,
      `checkpoint file: ${fileMb.toFixed(1)} MB`,
    ];
    return { measurements, ratios, targets, notes };
  },
};
