/**
 * Live notification of committed events to subscribers: in-process by default, Redis pub/sub across instances when
 * REDIS_URL is set (@graphql-yoga/redis-event-target). Pub/sub is at-most-once: subscribers that reconnect re-query by
 * `sinceSequence`; the database is the truth.
 */
import { createPubSub } from 'graphql-yoga';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';

export interface BusEvent {
  eventId: string;
  workspaceId: string;
  /** Per-workspace sequence (a decimal string: it is a bigint). */
  sequence: string;
  type: string;
  invoiceId: string | null;
  cashReceiptId: string | null;
  bankAccountIds: string[];
  createdAt: string;
  /** The invoice's row as the dispatcher read it after the commit (JSON: timestamps as strings), when there is one. */
  invoice?: Record<string, unknown>;
}

export interface EventBus {
  publish(event: BusEvent): void;
  subscribe(workspaceId: string): AsyncIterableIterator<BusEvent> & { return?(): Promise<IteratorResult<BusEvent>> };
  close(): Promise<void>;
}

type Channels = { workspace: [string, BusEvent] };

export function createEventBus(redisUrl?: string): EventBus {
  if (!redisUrl) {
    const pubsub = createPubSub<Channels>();
    return {
      publish: (e) => pubsub.publish('workspace', e.workspaceId, e),
      subscribe: (workspaceId) => pubsub.subscribe('workspace', workspaceId) as never,
      close: async () => {},
    };
  }
  const publishClient = new Redis(redisUrl, { maxRetriesPerRequest: 3, lazyConnect: false });
  const subscribeClient = new Redis(redisUrl, { maxRetriesPerRequest: null });
  publishClient.on('error', () => {});
  subscribeClient.on('error', () => {});
  const eventTarget = createRedisEventTarget<CustomEvent>({ publishClient, subscribeClient });
  const pubsub = createPubSub<Channels>({ eventTarget: eventTarget as never });
  return {
    publish: (e) => pubsub.publish('workspace', e.workspaceId, e),
    subscribe: (workspaceId) => pubsub.subscribe('workspace', workspaceId) as never,
    async close() {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}
