import type { EventStoreDBClient, ResolvedEvent, StreamSubscription, AllStreamSubscription } from '@eventstore/db-client';
import { scaled } from '../time-scale';

let counter = 0;

/** A stream name unique within the test run: `<category>-<n>`. */
export function uniqueStream(category = 'test'): string {
  counter += 1;
  return `${category}-${counter}-${Date.now().toString(36)}`;
}

/** Drains a read into an array (rejects with the read's error). */
export async function collect<T>(readable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of readable) items.push(item);
  return items;
}

/** Polls `predicate` until it holds or `timeoutMs` passes (no fixed sleeps). */
export async function waitFor(predicate: () => boolean, unscaledTimeoutMs = 5_000, what = 'condition'): Promise<void> {
  const timeoutMs = scaled(unscaledTimeoutMs);
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What a subscription emitted, in order, with its `confirmation`, `caughtUp`, checkpoints and errors. */
export interface Recording {
  readonly events: ResolvedEvent[];
  readonly log: string[];
  readonly errors: Error[];
  ended: boolean;
}

/** Attaches listeners that record everything a subscription emits (errors included, so none goes unhandled). */
export function record(subscription: StreamSubscription | AllStreamSubscription): Recording {
  const recording: Recording = { events: [], log: [], errors: [], ended: false };
  subscription
    .on('data', (event: ResolvedEvent) => {
      recording.events.push(event);
      recording.log.push(`event:${event.event?.type ?? '?'}`);
    })
    .on('confirmation', () => recording.log.push('confirmation'))
    .on('caughtUp', () => recording.log.push('caughtUp'))
    .on('error', (error: Error) => {
      recording.errors.push(error);
      recording.log.push(`error:${error.name}`);
    })
    .on('end', () => {
      recording.ended = true;
    });
  return recording;
}

/** Disposes clients, ignoring those never created. */
export async function disposeAll(...clients: Array<EventStoreDBClient | undefined>): Promise<void> {
  await Promise.all(clients.map((client) => client?.dispose()));
}

/** Retries an async assertion until it passes or `timeoutMs` passes (then rethrows its last failure). */
export async function eventually(assertion: () => Promise<void>, unscaledTimeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + scaled(unscaledTimeoutMs);
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
