import type { IServerFeaturesServer } from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import { SupportedMethod, SupportedMethods } from '@eventstore/db-client/generated/serverfeatures_pb';

/** The EventStoreDB version the test server claims to be (the client only logs it). */
export const EMULATED_SERVER_VERSION = '23.10.0';

/** Methods the server implements, with the feature flags the real server attaches to them. */
const IMPLEMENTED: ReadonlyArray<{ service: string; method: string; features: readonly string[] }> = [
  { service: 'event_store.client.streams.Streams', method: 'Read', features: ['position', 'events'] },
  { service: 'event_store.client.streams.Streams', method: 'Append', features: [] },
  { service: 'event_store.client.streams.Streams', method: 'BatchAppend', features: ['deadline_duration'] },
  { service: 'event_store.client.streams.Streams', method: 'Delete', features: [] },
  { service: 'event_store.client.streams.Streams', method: 'Tombstone', features: [] },
  ...['Create', 'Update', 'Delete', 'Read', 'GetInfo', 'List', 'ReplayParked'].map((method) => ({
    service: 'event_store.client.persistent_subscriptions.PersistentSubscriptions',
    method,
    features: ['stream', 'all'],
  })),
  { service: 'event_store.client.persistent_subscriptions.PersistentSubscriptions', method: 'RestartSubsystem', features: [] },
  { service: 'event_store.client.gossip.Gossip', method: 'Read', features: [] },
  { service: 'event_store.client.server_features.ServerFeatures', method: 'GetSupportedMethods', features: [] },
];

/**
 * `ServerFeatures.GetSupportedMethods`: advertises exactly what this server implements, with
 * lower-cased names like the real server. The client checks `streams/batchappend` to choose
 * `BatchAppend` over `Append`, and `stream`/`all` on the persistent subscription methods to use
 * gRPC rather than its HTTP fallbacks; absent methods (projections, operations...) make
 * it refuse or fall back as it would against an old server.
 */
export function createServerFeaturesService(): IServerFeaturesServer {
  return {
    getSupportedMethods: (_call, callback) => {
      const methods = new SupportedMethods();
      methods.setEventStoreServerVersion(EMULATED_SERVER_VERSION);
      for (const { service, method, features } of IMPLEMENTED) {
        const supported = new SupportedMethod();
        supported.setServiceName(service.toLowerCase());
        supported.setMethodName(method.toLowerCase());
        supported.setFeaturesList([...features]);
        methods.addMethods(supported);
      }
      callback(null, methods);
    },
  };
}
