/**
 * Shared by the messages end-to-end tests: the REST oracle (what the emulator itself answers through
 * the REST client) and a paging helper for the `messages` connection.
 */
import { expect } from 'vitest';
import { demoUser } from '../../../../src/emulator/seed.js';
import { ZulipConnection } from '../../../../src/zulip/connection.js';
import { getMessages } from '../../../../src/zulip/routes/messages.js';
import type { Harness } from '../../../helpers/harness.js';

export const HAMLET = demoUser('hamlet');
export const AS_HAMLET = { as: HAMLET.email };

/** What the emulator itself answers, through the REST client (the oracle). */
function restAs(h: Harness, email: string, apiKey: string): ZulipConnection {
  return new ZulipConnection({
    baseUrl: h.zulipUrl,
    credentials: { email, apiKey },
    fetch: (input, init) => h.emulator.fetch(new Request(input, init)),
  });
}

export async function allMessageIds(h: Harness, narrow: { operator: string; operand: string | number | number[] }[] = []): Promise<number[]> {
  const { messages } = await getMessages(restAs(h, HAMLET.email, HAMLET.apiKey), { anchor: 'newest', numBefore: 1000, numAfter: 0, narrow });
  return messages.map((m) => m.id);
}

export interface Page {
  edges: { cursor: string; node: { zulipId: number } }[];
  pageInfo: { hasPreviousPage: boolean; hasNextPage: boolean; startCursor: string | null; endCursor: string | null };
  anchor: number | null;
  foundAnchor: boolean;
  foundNewest: boolean;
  foundOldest: boolean;
  historyLimited: boolean;
}

const PAGE = /* GraphQL */ `
  query Page($narrow: NarrowInput, $anchor: MessageAnchorInput, $first: Int, $after: String, $last: Int, $before: String, $includeAnchor: Boolean) {
    messages(narrow: $narrow, anchor: $anchor, first: $first, after: $after, last: $last, before: $before, includeAnchor: $includeAnchor) {
      edges { cursor node { zulipId } }
      pageInfo { hasPreviousPage hasNextPage startCursor endCursor }
      anchor foundAnchor foundNewest foundOldest historyLimited
    }
  }
`;

export async function page(h: Harness, variables: Record<string, unknown>): Promise<Page> {
  const { data, errors } = await h.gql<{ messages: Page }>(PAGE, variables, AS_HAMLET);
  expect(errors).toBeUndefined();
  return data!.messages;
}

export const ids = (p: Page) => p.edges.map((e) => e.node.zulipId);
