/**
 * Hands the event hub to resolvers (`ctx.events`), for every transport that runs through yoga's
 * envelop (HTTP, SSE and graphql-ws), and closes it with the gateway: every subscription ends and
 * every upstream queue is deleted on `gateway.dispose()`.
 */
import type { Plugin } from 'graphql-yoga';
import type { EventHub } from '../events/hub.js';

export function useEventHub(hub: EventHub): Plugin<{ events?: EventHub }> {
  return {
    onContextBuilding({ extendContext }) {
      extendContext({ events: hub });
    },
    onDispose: () => hub.close(),
  };
}
