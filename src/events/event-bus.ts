/**
 * Live notification of committed events to subscribers: in-process by default, Redis pub/sub across instances when
 * REDIS_URL is set (@graphql-yoga/redis-event-target). Pub/sub is at-most-once: subscribers that reconnect re-query by
 * `sinceSequence`; the database is the truth.
 */
import { createPubSub } from 'graphql-yoga';
import { setMaxListeners } from 'node:events';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';
import { DomainError } from '../domain/errors.ts';

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
  /**
   * Calls `onEvent` for every event of the workspace published from the moment the returned promise resolves (with
   * Redis: once the channel is subscribed), synchronously and without buffering limits; resolves to the function that
   * stops it. Subscriptions use it to hear the live events before they read what they missed from the database.
   */
  listen(workspaceId: string, onEvent: (event: BusEvent) => void): Promise<() => void>;
  close(): Promise<void>;
}

type Channels = { workspace: [string, BusEvent] };

/** The pub/sub topic of a workspace's events (graphql-yoga's createPubSub names it `<routing key>:<id>`). */
const topicOf = (workspaceId: string) => `workspace:${workspaceId}`;

/** How long a subscription waits for Redis to confirm its channel before it fails (SERVICE_UNAVAILABLE). */
const REDIS_SUBSCRIBE_TIMEOUT_MS = 5_000;

type Target = Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;

/** `listen` over an event target; `subscribed(topic)` resolves once events published on the topic reach the target. */
function listenOn(target: Target, subscribed: (topic: string) => Promise<void>): EventBus['listen'] {
  return async (workspaceId, onEvent) => {
    const topic = topicOf(workspaceId);
    const listener = (e: Event) => onEvent((e as CustomEvent<BusEvent>).detail);
    target.addEventListener(topic, listener);
    try {
      await subscribed(topic);
    } catch (e) {
      target.removeEventListener(topic, listener);
      throw e;
    }
    return () => target.removeEventListener(topic, listener);
  };
}

export function createEventBus(redisUrl?: string): EventBus {
  if (!redisUrl) {
    const target = new EventTarget();
    // Every subscriber of a workspace listens on its topic: no leak at 11 of them (Node warns past 10 by default).
    setMaxListeners(0, target);
    const pubsub = createPubSub<Channels>({ eventTarget: target as never });
    return {
      publish: (e) => pubsub.publish('workspace', e.workspaceId, e),
      subscribe: (workspaceId) => pubsub.subscribe('workspace', workspaceId) as never,
      listen: listenOn(target, async () => {}),
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
    // The event target SUBSCRIBEs when a topic gets its first listener, without telling when Redis confirmed it. A
    // second SUBSCRIBE of the same channel on the same connection is answered after the first: once it is, the
    // channel is live (subscribing twice is harmless: Redis keeps one subscription per channel and connection).
    listen: listenOn(eventTarget as unknown as Target, async (topic) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DomainError('SERVICE_UNAVAILABLE', { message: 'Live events are unavailable (Redis did not answer); retry later.' })), REDIS_SUBSCRIBE_TIMEOUT_MS);
      });
      try {
        await Promise.race([subscribeClient.subscribe(topic), timeout]);
      } finally {
        clearTimeout(timer);
      }
    }),
    async close() {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}
