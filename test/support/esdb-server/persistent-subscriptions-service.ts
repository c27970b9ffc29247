import type { ServerDuplexStream, ServerErrorResponse, sendUnaryData } from '@grpc/grpc-js';
import type { IPersistentSubscriptionsServer } from '@eventstore/db-client/generated/persistent_grpc_pb';
import {
  CreateResp,
  DeleteResp,
  GetInfoResp,
  ListResp,
  ReadReq,
  ReplayParkedResp,
  UpdateResp,
} from '@eventstore/db-client/generated/persistent_pb';
import type { CreateReq, ReadResp, UpdateReq as UpdateRequest } from '@eventstore/db-client/generated/persistent_pb';
import { Empty } from '@eventstore/db-client/generated/shared_pb';
import type { StreamIdentifier } from '@eventstore/db-client/generated/shared_pb';

import { eventFilterFromProto, isInvalidFilter } from './event-filter';
import { abortCall } from './open-calls';
import type { OpenCalls } from './open-calls';
import { GroupMember } from './persistent-subscription-group';
import type { MemberChannel, NackAction, PersistentSubscriptionGroup } from './persistent-subscription-group';
import { allStart, isInvalidSettings, settingsFromProto, sourceName, streamStart } from './persistent-subscription-settings';
import type { GroupSettings, GroupSource, InvalidSettings } from './persistent-subscription-settings';
import type { PersistentSubscriptions } from './persistent-subscriptions';
import { fromStreamIdentifier } from './read-event-message';
import {
  invalidArgumentError,
  maximumSubscribersReachedError,
  persistentSubscriptionDoesNotExistError,
  persistentSubscriptionExistsError,
  persistentSubscriptionFailedError,
} from './rpc-errors';
import { parseGrpcUuid } from './uuid';

/** What the persistent subscription service of one server incarnation needs. */
export interface PersistentSubscriptionsContext {
  readonly subscriptions: PersistentSubscriptions;
  readonly openCalls: OpenCalls;
}

const NACK_ACTIONS: Record<number, NackAction> = {
  [ReadReq.Nack.Action.UNKNOWN]: 'unknown',
  [ReadReq.Nack.Action.PARK]: 'park',
  [ReadReq.Nack.Action.RETRY]: 'retry',
  [ReadReq.Nack.Action.SKIP]: 'skip',
  [ReadReq.Nack.Action.STOP]: 'stop',
};

/**
 * `event_store.client.persistent_subscriptions.PersistentSubscriptions`: Create, Update, Delete,
 * GetInfo, List, ReplayParked, RestartSubsystem and Read (the bidi call of a member: options
 * first, then acks and nacks). Errors take the wire form of the server's `RpcExceptions`, with
 * `$all` as the stream name of a `$all` group.
 */
export function createPersistentSubscriptionsService(context: PersistentSubscriptionsContext): IPersistentSubscriptionsServer {
  const { subscriptions } = context;
  return {
    create: (call, callback) => {
      const options = call.request.getOptions();
      const groupName = options?.getGroupName() ?? '';
      const source = createSource(options);
      if (source === undefined || 'invalid' in source) {
        callback(invalidArgumentError(source?.invalid ?? 'CreateReq.options needs a stream or all option'));
        return;
      }
      const settings = decodeSettings(options, source);
      if (refused(settings, source, groupName, callback)) return;
      if (!subscriptions.create(source, groupName, settings)) {
        callback(persistentSubscriptionExistsError(sourceName(source), groupName));
        return;
      }
      callback(null, new CreateResp());
    },

    update: (call, callback) => {
      const options = call.request.getOptions();
      const groupName = options?.getGroupName() ?? '';
      const source: GroupSource | undefined = options?.hasAll()
        ? { kind: 'all', filter: undefined }
        : streamSource(options?.getStream()?.getStreamIdentifier() ?? options?.getStreamIdentifier());
      if (source === undefined) {
        callback(invalidArgumentError('UpdateReq.options needs a stream or all option'));
        return;
      }
      const settings = decodeSettings(options, source);
      if (refused(settings, source, groupName, callback)) return;
      if (!subscriptions.update(source, groupName, settings)) {
        callback(persistentSubscriptionDoesNotExistError(sourceName(source), groupName));
        return;
      }
      callback(null, new UpdateResp());
    },

    delete: (call, callback) => {
      const options = call.request.getOptions();
      const groupName = options?.getGroupName() ?? '';
      const source = options?.hasAll() ? allSource() : streamSource(options?.getStreamIdentifier());
      if (source === undefined) {
        callback(invalidArgumentError('DeleteReq.options needs a stream or all option'));
        return;
      }
      if (!subscriptions.delete(source, groupName)) {
        callback(persistentSubscriptionDoesNotExistError(sourceName(source), groupName));
        return;
      }
      callback(null, new DeleteResp());
    },

    getInfo: (call, callback) => {
      const group = findGroup(subscriptions, call.request.getOptions(), callback);
      if (group === undefined) return;
      const response = new GetInfoResp();
      response.setSubscriptionInfo(group.info());
      callback(null, response);
    },

    list: (call, callback) => {
      const options = call.request.getOptions();
      let groups: PersistentSubscriptionGroup[];
      if (options?.hasListForStream() === true) {
        const forStream = options.getListForStream();
        const source = forStream?.hasAll() === true ? allSource() : streamSource(forStream?.getStream());
        if (source === undefined) {
          callback(invalidArgumentError('ListReq.options.list_for_stream needs a stream or all option'));
          return;
        }
        groups = subscriptions.list(source);
        // The real server answers "not found" for a stream without groups, an empty list for all.
        if (groups.length === 0) {
          callback(persistentSubscriptionDoesNotExistError(sourceName(source), ''));
          return;
        }
      } else {
        groups = subscriptions.list();
      }
      const response = new ListResp();
      response.setSubscriptionsList(groups.map((group) => group.info()));
      callback(null, response);
    },

    replayParked: (call, callback) => {
      const options = call.request.getOptions();
      const group = findGroup(subscriptions, options, callback);
      if (group === undefined) return;
      group.replayParked(options?.hasStopAt() === true ? BigInt(options.getStopAt()) : undefined);
      callback(null, new ReplayParkedResp());
    },

    restartSubsystem: (_call, callback) => {
      subscriptions.restartSubsystem();
      callback(null, new Empty());
    },

    read: (call) => handleRead(call, context),
  };
}

type ReadCall = ServerDuplexStream<ReadReq, ReadResp>;

/** One member's `Read` call: joins the group named by the first message, then applies acks and nacks. */
function handleRead(call: ReadCall, context: PersistentSubscriptionsContext): void {
  let member: GroupMember | undefined;
  let group: PersistentSubscriptionGroup | undefined;
  let ended = false;
  const end = (error: ServerErrorResponse): Promise<void> => {
    leave();
    return abortCall(call, error);
  };
  const unregister = context.openCalls.add({ abort: end });
  const leave = (): void => {
    if (ended) return;
    ended = true;
    unregister();
    if (member !== undefined) group?.leave(member);
  };
  call.on('cancelled', leave);
  call.on('error', leave);
  call.on('data', (request: ReadReq) => {
    if (ended) return;
    if (member === undefined) {
      const options = request.getOptions();
      if (options === undefined) {
        void end(invalidArgumentError('The first ReadReq must carry options'));
        return;
      }
      const source = options.hasAll() ? allSource() : streamSource(options.getStreamIdentifier());
      if (source === undefined) {
        void end(invalidArgumentError('ReadReq.options needs a stream or all option'));
        return;
      }
      const groupName = options.getGroupName();
      const channel: MemberChannel = {
        write: (response) => {
          if (!call.cancelled && !call.writableFinished) call.write(response);
        },
        drop: (error) => void end(error),
        from: call.getPeer(),
        connectionName: String(call.metadata.get('connection-name')[0] ?? '<unknown>'),
        uuidFormat: options.getUuidOption()?.hasStructured() === true ? 'structured' : 'string',
      };
      member = new GroupMember(channel, Math.max(1, options.getBufferSize()));
      const outcome = context.subscriptions.join(source, groupName, member);
      if (outcome.kind === 'not-found') void end(persistentSubscriptionDoesNotExistError(sourceName(source), groupName));
      else if (outcome.kind === 'max-subscribers-reached') void end(maximumSubscribersReachedError(sourceName(source), groupName));
      else group = outcome.group;
      return;
    }
    if (request.hasAck()) group?.ack(idsOf(request.getAck()?.getIdsList()));
    else if (request.hasNack()) {
      const nack = request.getNack();
      group?.nack(idsOf(nack?.getIdsList()), NACK_ACTIONS[nack?.getAction() ?? 0] ?? 'unknown', nack?.getReason() ?? '');
    }
  });
}

function idsOf(uuids: ReturnType<ReadReq.Ack['getIdsList']> | undefined): string[] {
  return (uuids ?? []).map((uuid) => parseGrpcUuid(uuid)).filter((id): id is string => id !== undefined);
}

function allSource(): GroupSource {
  return { kind: 'all', filter: undefined };
}

function streamSource(identifier: StreamIdentifier | undefined): GroupSource | undefined {
  const streamName = fromStreamIdentifier(identifier);
  return streamName === undefined || streamName === '' ? undefined : { kind: 'stream', streamName };
}

/** The source of a Create: a stream (new `stream` option or deprecated `stream_identifier`), or `$all` with its filter. */
function createSource(options: CreateReq.Options | undefined): GroupSource | InvalidSettings | undefined {
  if (options === undefined) return undefined;
  if (options.hasAll()) {
    const all = options.getAll();
    const filterOptions = all?.getFilter();
    if (all?.hasFilter() !== true || filterOptions === undefined) return allSource();
    const filter = eventFilterFromProto(filterOptions);
    return isInvalidFilter(filter) ? { invalid: filter.invalid } : { kind: 'all', filter };
  }
  return streamSource(options.getStream()?.getStreamIdentifier() ?? options.getStreamIdentifier());
}

/** The settings of a Create or Update, with the start point its source takes. */
function decodeSettings(options: CreateReq.Options | UpdateRequest.Options | undefined, source: GroupSource): GroupSettings | InvalidSettings {
  const start = source.kind === 'stream' ? streamStart(options?.getStream(), options?.getSettings()) : allStart(options?.getAll());
  return settingsFromProto(options?.getSettings(), start);
}

/** The options of GetInfo and ReplayParked name a group by stream (or `$all`) and name. */
interface GroupLocator {
  getGroupName(): string;
  hasAll(): boolean;
  getStreamIdentifier(): StreamIdentifier | undefined;
}

/** The group a request names, or `undefined` once the call was answered `persistent-subscription-does-not-exist`. */
function findGroup(
  subscriptions: PersistentSubscriptions,
  options: GroupLocator | undefined,
  callback: sendUnaryData<never>,
): PersistentSubscriptionGroup | undefined {
  const groupName = options?.getGroupName() ?? '';
  const source = options?.hasAll() === true ? allSource() : streamSource(options?.getStreamIdentifier());
  const group = source === undefined ? undefined : subscriptions.group(source, groupName);
  if (group === undefined) callback(persistentSubscriptionDoesNotExistError(source === undefined ? '' : sourceName(source), groupName));
  return group;
}

function refused(
  settings: GroupSettings | InvalidSettings,
  source: GroupSource,
  groupName: string,
  callback: sendUnaryData<never>,
): settings is InvalidSettings {
  if (!isInvalidSettings(settings)) return false;
  callback(persistentSubscriptionFailedError(sourceName(source), groupName, settings.invalid));
  return true;
}


