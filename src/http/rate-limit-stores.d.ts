// The counting stores of @fastify/rate-limit (in-process LRU and Redis with an atomic Lua script),
// used directly by http/rate-limit.ts. The package ships no types for these files.
declare module '@fastify/rate-limit/store/*' {
  import type { Redis } from 'ioredis';
  export interface RateLimitCount {
    current: number;
    ttl: number;
  }
  export interface RateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: RateLimitCount) => void,
      timeWindow: number,
      max: number,
    ): void;
  }
  const Store: {
    new (
      continueExceeding: boolean,
      exponentialBackoff: boolean,
      cacheOrRedis?: number | Redis,
      prefix?: string,
    ): RateLimitStore;
  };
  export default Store;
}
