/**
 * The environment of every process the multi-process EventStoreDB tier and
 * its bench scenario start (the API, the workers, the CLI verbs of the
 * checks), in one place: switch a setting here and both use it.
 */
/**
 * How work reaches the workers. Empty: the product's default on EventStoreDB,
 * the consumer group `agent-ledger-workers` offers each runnable run to one
 * worker process. `{ EVENTSTORE_CONSUMER_GROUP: 'none' }`: every worker
 * races the others to claim each due run from its checkpointed queue index
 * (the claim is an append with the expected revision; one wins). Or set
 * `MULTIPROC_ENV` to a JSON object for one run of the tests or the bench.
 */
export const WORK_DISTRIBUTION_ENV: Readonly<Record<string, string>> = {};

/** The settings every process of a cluster gets (`esdb-cluster.ts`): {@link WORK_DISTRIBUTION_ENV}, then `MULTIPROC_ENV`. */
export function clusterEnv(environment: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { ...WORK_DISTRIBUTION_ENV, ...extraEnv(environment) };
}

/** `MULTIPROC_ENV`: a JSON object of string values added to every process's environment. */
function extraEnv(environment: NodeJS.ProcessEnv): Record<string, string> {
  const text = environment['MULTIPROC_ENV'];
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`MULTIPROC_ENV must be a JSON object of strings: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw new Error(`MULTIPROC_ENV must be a JSON object of strings, got ${text}`);
  }
  return value as Record<string, string>;
}
