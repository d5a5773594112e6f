/**
 * The message cache end to end (issue 18, "Done when"): the README dashboard, repeated warm, costs
 * no upstream call; a message, a reaction, an edit, a move and a deletion made by another user
 * straight on the chat server show in the next query once their event reached the gateway; every
 * answer equals what the server itself returns to `GET /messages`. With `LIVE_CACHE=off` (or the
 * live directory off) the same answers cost one call each.
 */
import { describe, expect, it } from 'vitest';
import { addReaction } from '../../src/zulip/routes/reactions.js';
import { deleteMessage, getMessages, sendMessage, updateMessage } from '../../src/zulip/routes/messages.js';
import { demoUser } from '../../src/emulator/seed.js';
import { GatewayMetrics } from '../../src/gateway/observability/metrics.js';
import { Readiness } from '../../src/gateway/observability/readiness.js';
import { setupHarness, TEST_MESSAGE_CACHE, type Harness } from '../helpers/harness.js';
import { caughtUp, rest } from '../helpers/unreads.js';

/** The README's dashboard (numeric ids under `zulipId`), with the fields compared to the server's answer. */
const DASHBOARD = /* GraphQL */ `
  query Dashboard {
    messages(last: 100) {
      edges {
        cursor
        node {
          zulipId timestamp content topic flagNames
          sender { zulipId fullName avatarUrl role }
          channel { zulipId name description }
          reactions { emojiName userId user { zulipId fullName } }
        }
      }
      pageInfo { hasPreviousPage startCursor }
    }
  }
`;

interface DashboardNode {
  zulipId: number;
  content: string;
  topic: string;
  flagNames: string[];
  reactions: { emojiName: string; userId: number }[];
}

interface Dashboard {
  messages: { edges: { node: DashboardNode }[]; pageInfo: { hasPreviousPage: boolean } };
}

/** Upstream calls of a warm dashboard: none from the cache, else `GET /messages`. */
const WARM = TEST_MESSAGE_CACHE ? [] : ['GET messages'];

async function dashboard(h: Harness, login: string): Promise<{ nodes: DashboardNode[]; calls: string[]; reported: unknown }> {
  h.resetUpstreamRequests();
  const { data, errors, extensions } = await h.gql<Dashboard>(DASHBOARD, {}, { as: demoUser(login).email });
  expect(errors).toBeUndefined();
  return { nodes: data!.messages.edges.map((e) => e.node), calls: h.upstreamRequests.map((r) => `${r.method} ${r.path}`), reported: extensions?.upstreamRequests };
}

/** What the chat server itself answers to the same page, in the dashboard's shape. */
async function fromServer(h: Harness, login: string): Promise<Pick<DashboardNode, 'zulipId' | 'content' | 'topic' | 'flagNames' | 'reactions'>[]> {
  const { messages } = await getMessages(rest(h, login), { anchor: 'newest', numBefore: 100, numAfter: 0, narrow: [], applyMarkdown: true, clientGravatar: false });
  return messages.map((m) => ({
    zulipId: m.id,
    content: m.content,
    topic: m.subject,
    flagNames: m.flags,
    reactions: m.reactions.map((r) => ({ emojiName: r.emoji_name, userId: r.user_id })),
  }));
}

const compared = (nodes: DashboardNode[]) => nodes.map(({ zulipId, content, topic, flagNames, reactions }) => ({ zulipId, content, topic, flagNames, reactions: reactions.map(({ emojiName, userId }) => ({ emojiName, userId })) }));

/** Warms `login`'s dashboard: the directory loaded and caught up, then the window fetched once. */
async function warm(h: Harness, login: string): Promise<void> {
  await caughtUp(h, login);
  await dashboard(h, login); // fetched (and stored) once the directory is ready
  const second = await dashboard(h, login);
  expect(second.calls).toEqual(WARM);
}

describe('message cache', () => {
  it('serves the README dashboard warm with 0 upstream calls, and shows changes made by others in the next query', async () => {
    const h = setupHarness();
    await warm(h, 'desdemona');
    const repeated = await dashboard(h, 'desdemona');
    expect(repeated.calls).toEqual(WARM);
    expect(repeated.reported).toBe(WARM.length);
    expect(compared(repeated.nodes)).toEqual(await fromServer(h, 'desdemona'));

    // A message from another user, straight to the chat server.
    const iago = rest(h, 'iago');
    const sent = await sendMessage(iago, { type: 'stream', to: h.channelId('general'), topic: 'live cache', content: 'Seen **without** a call.' });
    await caughtUp(h, 'desdemona');
    const afterSend = await dashboard(h, 'desdemona');
    expect(afterSend.calls).toEqual(WARM);
    expect(afterSend.reported).toBe(WARM.length);
    expect(afterSend.nodes.at(-1)).toMatchObject({ zulipId: sent.id, topic: 'live cache', content: '<p>Seen <strong>without</strong> a call.</p>' });
    expect(compared(afterSend.nodes)).toEqual(await fromServer(h, 'desdemona'));

    // A reaction by another user: applied to the window.
    await addReaction(rest(h, 'hamlet'), { messageId: sent.id, emojiName: 'octopus' });
    await caughtUp(h, 'desdemona');
    const afterReaction = await dashboard(h, 'desdemona');
    expect(afterReaction.calls).toEqual(WARM);
    expect(afterReaction.nodes.at(-1)!.reactions).toEqual([expect.objectContaining({ emojiName: 'octopus', userId: h.userId('hamlet') })]);
    expect(compared(afterReaction.nodes)).toEqual(await fromServer(h, 'desdemona'));

    // An edit and a move drop the window: the next query fetches it again (one call), then it is warm.
    await updateMessage(iago, { messageId: sent.id, content: 'Edited elsewhere.' });
    await caughtUp(h, 'desdemona');
    const afterEdit = await dashboard(h, 'desdemona');
    expect(afterEdit.calls.length).toBeLessThanOrEqual(1);
    expect(afterEdit.nodes.at(-1)).toMatchObject({ zulipId: sent.id, content: '<p>Edited elsewhere.</p>' });
    expect(compared(afterEdit.nodes)).toEqual(await fromServer(h, 'desdemona'));
    expect((await dashboard(h, 'desdemona')).calls).toEqual(WARM);

    // Without the notification bot's messages: a cross-realm bot is looked up per request (not the cache's doing).
    await updateMessage(iago, { messageId: sent.id, topic: 'moved elsewhere', propagateMode: 'change_one', sendNotificationToOldThread: false, sendNotificationToNewThread: false });
    await caughtUp(h, 'desdemona');
    const afterMove = await dashboard(h, 'desdemona');
    expect(afterMove.nodes.at(-1)).toMatchObject({ zulipId: sent.id, topic: 'moved elsewhere' });
    expect(compared(afterMove.nodes)).toEqual(await fromServer(h, 'desdemona'));
    expect((await dashboard(h, 'desdemona')).calls).toEqual(WARM);

    // A deletion by an administrator.
    await deleteMessage(iago, { messageId: sent.id });
    await caughtUp(h, 'desdemona');
    const afterDelete = await dashboard(h, 'desdemona');
    expect(afterDelete.calls.length).toBeLessThanOrEqual(1);
    expect(afterDelete.nodes.map((n) => n.zulipId)).not.toContain(sent.id);
    expect(compared(afterDelete.nodes)).toEqual(await fromServer(h, 'desdemona'));
  });

  it('shows the caller\u2019s own write in their next query (read-your-writes)', async () => {
    const h = setupHarness();
    await warm(h, 'desdemona');
    const { data, errors } = await h.gql<{ sendMessage: { zulipId?: number; id: number } }>(
      'mutation { sendMessage(channelName: "general", topic: "own", content: "Mine.") { id } }',
    );
    expect(errors).toBeUndefined();
    // No wait: the write fenced the caller's windows until its event arrives.
    const next = await dashboard(h, 'desdemona');
    expect(next.nodes.at(-1)).toMatchObject({ zulipId: data!.sendMessage.id, content: '<p>Mine.</p>' });
    await caughtUp(h, 'desdemona');
    expect(compared((await dashboard(h, 'desdemona')).nodes)).toEqual(await fromServer(h, 'desdemona'));
  });

  it('keeps a guest and an administrator to what was sent to each, with no crossing', async () => {
    const h = setupHarness();
    await warm(h, 'iago');
    await warm(h, 'polonius');
    const shiva = rest(h, 'shiva');
    // Private channel of administrators and engineers (not the guest); a direct message to each.
    const secret = await sendMessage(shiva, { type: 'stream', to: h.channelId('engineering'), topic: 'secrets', content: 'Staff only.' });
    const toIago = await sendMessage(shiva, { type: 'private', to: [h.userId('iago')], content: 'For Iago.' });
    const toGuest = await sendMessage(shiva, { type: 'private', to: [h.userId('polonius')], content: 'For Polonius.' });
    const everyone = await sendMessage(shiva, { type: 'stream', to: h.channelId('general'), topic: 'all hands', content: 'For all.' });
    await caughtUp(h, 'iago');
    await caughtUp(h, 'polonius');

    const admin = await dashboard(h, 'iago');
    const guest = await dashboard(h, 'polonius');
    expect(admin.calls).toEqual(WARM);
    expect(guest.calls).toEqual(WARM);
    const ids = (nodes: DashboardNode[]) => nodes.map((n) => n.zulipId);
    expect(ids(admin.nodes)).toEqual(expect.arrayContaining([secret.id, toIago.id, everyone.id]));
    expect(ids(admin.nodes)).not.toContain(toGuest.id);
    expect(ids(guest.nodes)).toEqual(expect.arrayContaining([toGuest.id, everyone.id]));
    expect(ids(guest.nodes)).not.toContain(secret.id);
    expect(ids(guest.nodes)).not.toContain(toIago.id);
    expect(compared(admin.nodes)).toEqual(await fromServer(h, 'iago'));
    expect(compared(guest.nodes)).toEqual(await fromServer(h, 'polonius'));

    // Asked at the same time, interleaved, each still gets exactly their own answer.
    const both = await Promise.all(['iago', 'polonius', 'iago', 'polonius'].map((login) => dashboard(h, login)));
    expect(both.map((b) => compared(b.nodes))).toEqual([compared(admin.nodes), compared(guest.nodes), compared(admin.nodes), compared(guest.nodes)]);
  });

  it.runIf(TEST_MESSAGE_CACHE)('counts what it cannot serve by reason, and reports an event it cannot apply in /readiness', async () => {
    const metrics = new GatewayMetrics({ processMetrics: false });
    const h = setupHarness({ gateway: { metrics } });
    const readiness = new Readiness({
      zulipUrl: h.zulipUrl,
      fetch: (url, init) => h.emulator.fetch(new Request(url, init)),
      degradations: () => h.gateway.directories?.degradations() ?? [],
    });
    await warm(h, 'desdemona');
    const scrape = async () => (await metrics.scrape()).body;

    // A narrow the gateway cannot match from events alone: served upstream, and counted.
    h.resetUpstreamRequests();
    const searched = await h.gql('{ messages(narrow: { search: "hello" }, last: 5) { nodes { zulipId } } }');
    expect(searched.errors).toBeUndefined();
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET messages']);
    expect(await scrape()).toContain('chatgraph_live_cache_unusable_total{reason="narrow"} 1');
    expect((await readiness.check()).detail).toBeUndefined();

    // An event type the cache does not know (a newer server, sending a type it was not asked for):
    // every window of the credential goes.
    for (const queue of h.emulator.queues.queuesOf(h.userId('desdemona'))) (queue.options as { eventTypes: unknown }).eventTypes = null;
    h.emulator.queues.notify([h.userId('desdemona')], { type: 'future_event_type' });
    await caughtUp(h, 'desdemona');
    expect(await scrape()).toContain('chatgraph_live_cache_drops_total{reason="event"} 1');
    const report = await readiness.check();
    expect(report.ready).toBe(true);
    expect(report.detail).toEqual([expect.stringContaining('future_event_type')]);
    expect((await dashboard(h, 'desdemona')).calls).toEqual(['GET messages']);
    expect((await dashboard(h, 'desdemona')).calls).toEqual([]);
  });
});
