import { describeSimulationShard } from './simulation-shard';

// Shard 2 of the simulation's budget (simulation-shard.ts): the shards run side by side.
describeSimulationShard(2);
