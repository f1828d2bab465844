/** The package ioredis computes cluster slots with (CommonJS, no types of its own). */
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0-16383) of a key, by its hash tag when it has one. */
  export default function calculateSlot(key: string | Buffer): number;
}
