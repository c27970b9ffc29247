import type { IGossipServer } from '@eventstore/db-client/generated/gossip_grpc_pb';
import { ClusterInfo, EndPoint, MemberInfo } from '@eventstore/db-client/generated/gossip_pb';

import { unixMillisToTicks } from './ticks';
import { toGrpcUuid } from './uuid';

/**
 * `Gossip.Read`: a one-member cluster whose only node is an alive leader at the server's own
 * endpoint. Only used by `esdb+discover://` and multi-host connection strings; a plain
 * `esdb://host:port` connects to the endpoint directly without gossip.
 */
export function createGossipService(endpoint: () => { host: string; port: number }, instanceId: string): IGossipServer {
  return {
    read: (_call, callback) => {
      const { host, port } = endpoint();
      const httpEndPoint = new EndPoint();
      httpEndPoint.setAddress(host);
      httpEndPoint.setPort(port);
      const member = new MemberInfo();
      member.setInstanceId(toGrpcUuid(instanceId, 'structured'));
      member.setTimeStamp(unixMillisToTicks(Date.now()).toString(10));
      member.setState(MemberInfo.VNodeState.LEADER);
      member.setIsAlive(true);
      member.setHttpEndPoint(httpEndPoint);
      const info = new ClusterInfo();
      info.addMembers(member);
      callback(null, info);
    },
  };
}
