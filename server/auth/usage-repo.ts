import type { Store } from '../store/store.js';
import type { TenantUsage } from '../store/schema.js';

/** Store access for per-tenant usage counters. */
export interface UsageRepo {
  get(tenant: string): Readonly<TenantUsage> | undefined;
  /** Add deltas to the persisted counters (one write for all tenants). */
  add(deltas: ReadonlyMap<string, UsageDelta>, at: string): Promise<void>;
}

/** Counts gathered since the last flush. */
export interface UsageDelta {
  readonly requests: Map<string, number>;
  bytesUploaded: number;
  audioSeconds: number;
}

/** A UsageRepo over the store. */
export function createUsageRepo(store: Store): UsageRepo {
  return {
    get: (tenant) => store.data.usage[tenant],
    add: (deltas, at) =>
      store.mutate(
        (db) => {
          for (const [tenant, delta] of deltas) {
            // Entries are immutable (the store freezes them): each flush writes a new one.
            const old = db.usage[tenant] ?? { requests: {}, bytesUploaded: 0, audioSeconds: 0, updatedAt: at };
            const requests = { ...old.requests };
            for (const [route, n] of delta.requests) requests[route] = (requests[route] ?? 0) + n;
            db.usage[tenant] = {
              requests,
              bytesUploaded: old.bytesUploaded + delta.bytesUploaded,
              audioSeconds: Math.round((old.audioSeconds + delta.audioSeconds) * 1000) / 1000,
              updatedAt: at,
            };
          }
          // Named, so the flush every few seconds leaves caches of other tables alone.
        },
        ['usage'],
      ),
  };
}
