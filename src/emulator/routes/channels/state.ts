/** The `stream` and `default_streams` parts of the register state. */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { EmulatorSettings, StateContext } from '../../context.js';
import type { Channel, Store, User } from '../../store.js';
import { defaultStreamsPayload } from './events.js';
import { serializer } from './wire.js';

// ---- register ------------------------------------------------------------------------------------

/** Channels the user can see, as the `streams` register key lists them (archived ones only from FL 378). */
export function visibleChannels(state: { store: Store; user: User; settings: EmulatorSettings; options: StateContext['options'] }): Channel[] {
  // TODO(server-11): archivedChannelEvents (378); drop the older branch once every supported server has it.
  const archived = state.settings.featureLevel >= featureLevels.archivedChannelEvents && state.options.capabilities.archived_channels === true;
  return [...state.store.channels.values()]
    .filter((c) => (archived || !c.is_archived) && state.store.canAccessChannelMetadata(state.user, c))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function initialState(ctx: StateContext): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  if (ctx.wants('stream')) {
    const s = serializer(ctx);
    state.streams = visibleChannels(ctx).map((c) => s.channel(c));
  }
  if (ctx.wants('default_streams')) {
    // Guests do not learn the default channels.
    state.realm_default_streams = ctx.store.isGuest(ctx.user) ? [] : defaultStreamsPayload(ctx);
  }
  return state;
}
