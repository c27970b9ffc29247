import { describeSimulationShard } from './simulation-shard';

// Shard 1 of the simulation's budget (simulation-shard.ts): the shards run side by side.
describeSimulationShard(1);
