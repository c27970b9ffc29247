/**
 * Audit verdict: the integrity verdict of `agent-ledger audit verify` /
 * `GET /audit/chains` (every audit chain verified, every executed write of
 * the run store matched to its `AuditRecorded`) over a history of 1 million
 * events (quick: 20,000), against the baseline of reading and parsing the
 * same events; and the incremental verdict of `GET /audit/review` from a
 * verified checkpoint (every run's audit head re-read and its hash
 * recomputed, then the events appended since, here none).
 *
 * Method: the history is the rebuild scenario's (`rebuild/history.ts`: the
 * domain's deciders, so the audit chains are real hash chains), generated
 * once into one SQLite file (runs and audits in the same store, as the
 * service keeps them unless `AUDIT_STORE_PATH` is set). Each round, in this
 * process: the baseline (`SqliteEventStore.readAll` of every event, parsed),
 * a full verdict (`reviewAuditStores`), then an incremental one on the
 * checkpoint the full one left, in an order that rotates from round to round
 * for the first two.
 */
import { join } from 'node:path';
import { SqliteEventStore } from '@agent-ledger/event-store';
import type { AuditStoreVerdict } from '@agent-ledger/runtime';
import { AuditStoreReviewer } from '@agent-ledger/runtime';
import type { BenchContext, BenchScenario, Measurement, Ratio, ScenarioResult } from '../support/bench-scenario';
import { formatNumber } from '../support/report';
import { median, ratioSamples } from '../support/stats';
import { generateHistory } from './rebuild/history';

/** Events of the history: 1 million, and the smoke size. */
export const AUDIT_VERDICT_EVENTS = { full: 1_000_000, quick: 20_000 } as const;

type Subject = 'full' | 'baseline';

/** Checks that the verdict saw the whole history and found only what the generator made (failed closed, audit missing). */
function checkVerdict(verdict: AuditStoreVerdict, runs: number, auditEvents: number): void {
  if (verdict.records !== auditEvents) throw new Error(`the verdict checked ${verdict.records} audit records; the history has ${auditEvents}`);
  if (verdict.runs > runs) throw new Error(`the verdict saw ${verdict.runs} audited runs; the history has ${runs} runs`);
  if (verdict.brokenRuns.length > 0) throw new Error(`the verdict found broken chains in a generated history: ${verdict.brokenRuns.slice(0, 5).join(', ')}`);
  if (verdict.totals.writesWithoutAuditNotAllowed > 0) throw new Error(`the verdict found ${verdict.totals.writesWithoutAuditNotAllowed} writes without audit that nothing allows`);
}

/** Audit verdict: the full verification and the incremental one, against reading and parsing the same events. */
export const auditVerdictScenario: BenchScenario = {
  name: 'audit-verdict',
  title: 'Audit verdict: every chain verified and every write matched, from the store, against reading and parsing the same events',
  run: async (context: BenchContext): Promise<ScenarioResult> => {
    const targetEvents = context.quick ? AUDIT_VERDICT_EVENTS.quick : AUDIT_VERDICT_EVENTS.full;
    context.log(`generating a history of ${targetEvents} events`);
    const history = await generateHistory({ path: join(context.tempDir('history'), 'agent-ledger.sqlite'), targetEvents, log: context.log });
    context.log(`history: ${history.events} events of ${history.runs} runs, generated in ${history.seconds.toFixed(1)} s`);

    const store = SqliteEventStore.open({ path: history.path });
    const stores = { runStore: store, auditStore: store };
    const seconds: Record<Subject | 'incremental', number[]> = { full: [], baseline: [], incremental: [] };
    let last: AuditStoreVerdict | null = null;
    let lastIncremental: AuditStoreVerdict | null = null;
    try {
      for (let round = 0; round < context.rounds; round++) {
        const order: Subject[] = round % 2 === 0 ? ['full', 'baseline'] : ['baseline', 'full'];
        let reviewer: AuditStoreReviewer | null = null;
        for (const subject of order) {
          const started = performance.now();
          if (subject === 'baseline') {
            let n = 0;
            for await (const event of store.readAll()) if (event.data !== null) n++;
            if (n !== history.events) throw new Error(`readAll read ${n} events; the history has ${history.events}`);
          } else {
            reviewer = new AuditStoreReviewer(stores);
            last = await reviewer.review();
            checkVerdict(last, history.runs, history.auditEvents);
          }
          seconds[subject].push((performance.now() - started) / 1000);
        }
        const started = performance.now();
        lastIncremental = await (reviewer as AuditStoreReviewer).review();
        seconds.incremental.push((performance.now() - started) / 1000);
        if (lastIncremental.verification.mode !== 'incremental') throw new Error(`the second review was ${lastIncremental.verification.mode}: ${String(lastIncremental.verification.fullBecause)}`);
        context.log(
          `round ${round + 1}/${context.rounds}: full ${(seconds.full.at(-1) ?? 0).toFixed(2)} s, incremental ${(seconds.incremental.at(-1) ?? 0).toFixed(2)} s ` +
            `(${lastIncremental.verification.headsChecked} heads), readAll ${(seconds.baseline.at(-1) ?? 0).toFixed(2)} s`,
        );
      }
    } finally {
      await store.close();
    }

    const rate = (subject: Subject) => seconds[subject].map((s) => history.events / s);
    const variant = { events: history.events, runs: history.runs };
    const measurements: Measurement[] = [
      { subject: 'product', variant: { ...variant, work: 'full verdict (audit verify)' }, metric: 'events/s', unit: 'events/s', better: 'higher', samples: rate('full') },
      { subject: 'product', variant: { ...variant, work: 'full verdict (audit verify)' }, metric: 'duration', unit: 's', better: 'lower', samples: seconds.full },
      { subject: 'product', variant: { ...variant, work: 'incremental verdict, nothing new (GET /audit/review)' }, metric: 'duration', unit: 's', better: 'lower', samples: seconds.incremental },
      { subject: 'baseline', variant: { ...variant, work: 'SqliteEventStore.readAll (parsed)' }, metric: 'events/s', unit: 'events/s', better: 'higher', samples: rate('baseline') },
    ];
    const ratios: Ratio[] = [{ name: 'product/baseline audit verdict events/s', variant: { events: history.events, baseline: 'readAll' }, samples: ratioSamples(rate('full'), rate('baseline')) }];
    const quickNote = context.quick ? ` QUICK: ${formatNumber(history.events)} events, not 1M; the figures mean little.` : '';
    const t = last?.totals;
    const notes = [
      `full verdict ${median(seconds.full).toFixed(1)} s, incremental ${median(seconds.incremental).toFixed(1)} s, readAll ${median(seconds.baseline).toFixed(1)} s (medians of ${context.rounds} round(s)).${quickNote}`,
      `history: ${formatNumber(history.events)} events (${formatNumber(history.runEvents)} run, ${formatNumber(history.auditEvents)} audit) of ${formatNumber(history.runs)} runs, one file`,
      `verdict: ${last?.runs ?? 0} chains, ${last?.records ?? 0} records, ${t?.writesExecuted ?? 0} writes executed, ${t?.writesAudited ?? 0} audited, ` +
        `${t?.writesWithoutAudit ?? 0} without audit (all in runs failed closed or AUDIT_MISSING, as generated), ${t?.auditedLate ?? 0} audited late`,
      `incremental: ${lastIncremental?.verification.headsChecked ?? 0} audit heads re-read and hashed, ${lastIncremental?.verification.eventsRead ?? 0} events read`,
    ];
    // No target: the issue asks for the figure, not for a threshold.
    return { measurements, ratios, targets: [], notes };
  },
};
