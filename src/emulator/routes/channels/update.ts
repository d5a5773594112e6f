/**
 * `PATCH /streams/{id}` (https://zulip.com/api/update-stream) and `DELETE /streams/{id}`
 * (https://zulip.com/api/archive-stream).
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import type { ChannelPermissionSetting } from '../../../zulip/model/channels.js';
import type { RouteContext } from '../../context.js';
import { badRequest, invalidChannelId } from '../../errors.js';
import { groupSettingsEqual } from '../../group-settings.js';
import { renderDescription } from '../../markdown.js';
import { CHANNEL_PERMISSION_SETTINGS, Role, type Channel, type GroupSettingValue } from '../../store.js';
import { accessChannelForUpdate, hasContentAccess, metadataAudience } from './access.js';
import { notifyAccessChange, notifyDefaultStreams, streamDeleteEvent, streamUpdate } from './events.js';
import { checkCanMakeWebPublic, checkChannelName, checkDescription, parseChannelGroupSetting, readRetentionDays } from './rules.js';
import { copyGroupSetting, serializer } from './wire.js';

// ---- PATCH /streams/{stream_id} -----------------------------------------------------------------

interface GroupChange {
  setting: ChannelPermissionSetting;
  value: GroupSettingValue;
}

/** Settings whose change needs content access (for a private channel: being subscribed, or able to join). */
const NEED_CONTENT_ACCESS: ReadonlySet<ChannelPermissionSetting> = new Set(['can_add_subscribers_group', 'can_subscribe_group']);

function readGroupUpdate(ctx: RouteContext, channel: Channel, setting: ChannelPermissionSetting): GroupChange | undefined {
  const raw = ctx.params.optJson<unknown>(setting);
  if (raw === undefined) return undefined;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || !('new' in raw)) {
    throw badRequest(`${setting} must be an object with "new" and optionally "old"`);
  }
  const update = raw as { new: unknown; old?: unknown };
  const next = parseChannelGroupSetting(ctx.store, setting, update.new);
  if (update.old !== undefined && update.old !== null) {
    const expected = parseChannelGroupSetting(ctx.store, setting, update.old);
    if (!groupSettingsEqual(expected, channel[setting])) throw badRequest("'old' value does not match the expected value.");
  }
  return { setting, value: next };
}

export function updateStream(ctx: RouteContext) {
  const { params, store, user, settings } = ctx;
  const channel = accessChannelForUpdate(ctx, ctx.pathInt('stream_id'));
  // TODO(server-10): archivedChannelEdits (362); drop the older branch once every supported server has it.
  if (channel.is_archived && settings.featureLevel < featureLevels.archivedChannelEdits) throw invalidChannelId();

  // The parameters are parsed before anything changes (typed_endpoint); the rest follows Zulip's
  // update_stream_backend (zerver/views/streams.py) step by step: each change is checked, then
  // applied, and no transaction spans them, so a refusal leaves the earlier steps applied.
  const rawDescription = params.optStr('description');
  const description = rawDescription === undefined ? undefined : checkDescription(settings, 'description', rawDescription);
  const rawName = params.optStr('new_name');
  const isPrivate = params.optBool('is_private');
  const isWebPublic = params.optBool('is_web_public');
  const historyParam = params.optBool('history_public_to_subscribers');
  const isDefault = params.optBool('is_default_stream');
  // Before feature level 136, history_public_to_subscribers alone was silently ignored.
  // TODO(server-6): channelHistoryAlone (136); drop the older branch once every supported server has it.
  const historyIgnored = settings.featureLevel < featureLevels.channelHistoryAlone && isPrivate === undefined && isWebPublic === undefined;
  const historyPublic = historyIgnored ? undefined : historyParam;
  const retention = readRetentionDays(params);
  const groupChanges = CHANNEL_PERMISSION_SETTINGS.map((s) => readGroupUpdate(ctx, channel, s)).filter(
    (c): c is GroupChange => c !== undefined && !groupSettingsEqual(c.value, channel[c.setting]),
  );

  const wasDefault = store.defaultChannelIds.has(channel.stream_id);
  const proposedPrivate = isPrivate ?? channel.invite_only;
  const proposedWebPublic = isWebPublic ?? channel.is_web_public;
  const proposedDefault = isDefault ?? wasDefault;
  const proposedHistory = historyPublic ?? (isPrivate !== undefined ? !isPrivate : channel.history_public_to_subscribers);
  if (proposedWebPublic && (!proposedHistory || proposedPrivate)) throw badRequest('Invalid parameters');
  if (!proposedPrivate && !proposedHistory) throw badRequest('Invalid parameters');
  if (proposedPrivate && proposedDefault) throw badRequest('A default channel cannot be private.');
  if (!proposedPrivate && channel.is_moderation_request_channel) throw badRequest('Moderation request channel must be private.');
  const contentAccess = hasContentAccess(store, user, channel);
  if (isPrivate !== undefined && !contentAccess) throw badRequest('Channel content access is required.');
  if (isWebPublic) checkCanMakeWebPublic(store, user);

  // Apply, with the events Zulip sends for each change.
  if (isPrivate !== undefined || isWebPublic !== undefined || historyPublic !== undefined) {
    const before = new Set(metadataAudience(store, channel));
    channel.invite_only = proposedPrivate;
    channel.is_web_public = proposedWebPublic;
    channel.history_public_to_subscribers = proposedHistory;
    const kept = notifyAccessChange(ctx, channel, before);
    ctx.events.notify(
      kept,
      streamUpdate(channel, 'invite_only', channel.invite_only, {
        history_public_to_subscribers: channel.history_public_to_subscribers,
        is_web_public: channel.is_web_public,
      }),
    );
  }
  if (isDefault !== undefined && !store.isAdmin(user)) throw badRequest('You do not have permission to change default channels.');
  if (isDefault !== undefined && isDefault !== wasDefault) {
    if (isDefault) store.defaultChannelIds.add(channel.stream_id);
    else store.defaultChannelIds.delete(channel.stream_id);
    notifyDefaultStreams(ctx);
  }
  if (retention !== undefined) {
    if (user.role !== Role.OWNER) throw badRequest('Must be an organization owner');
    channel.message_retention_days = retention;
    ctx.events.notify(metadataAudience(store, channel), streamUpdate(channel, 'message_retention_days', retention));
  }
  if (description !== undefined) {
    channel.description = description;
    channel.rendered_description = renderDescription(description);
    ctx.events.notify(
      metadataAudience(store, channel),
      streamUpdate(channel, 'description', description, { rendered_description: channel.rendered_description }),
    );
  }
  if (rawName !== undefined) {
    const newName = rawName.trim();
    if (newName === channel.name) throw badRequest('Channel already has that name.');
    checkChannelName(settings, newName);
    const other = store.channelByName(newName);
    if (other && other.stream_id !== channel.stream_id) throw badRequest('Channel name already in use.');
    const event = streamUpdate(channel, 'name', newName); // `name` is still the old one
    channel.name = newName;
    ctx.events.notify(metadataAudience(store, channel), event);
  }
  for (const change of groupChanges) {
    if (NEED_CONTENT_ACCESS.has(change.setting) && !contentAccess) throw badRequest('Channel content access is required.');
    // Administration rights move with can_administer_channel_group, so the audience is taken before and after.
    const before = new Set(metadataAudience(store, channel));
    channel[change.setting] = change.value;
    const kept = notifyAccessChange(ctx, channel, before);
    ctx.events.notify(kept, streamUpdate(channel, change.setting, copyGroupSetting(change.value)));
  }
  return {};
}

// ---- DELETE /streams/{stream_id} ----------------------------------------------------------------

export function archiveStream(ctx: RouteContext) {
  const channel = accessChannelForUpdate(ctx, ctx.pathInt('stream_id'));
  if (channel.is_archived) throw badRequest('Channel is already deactivated');
  const audience = metadataAudience(ctx.store, channel);
  const wire = serializer(ctx).channel(channel);
  channel.is_archived = true;
  if (ctx.store.defaultChannelIds.delete(channel.stream_id)) notifyDefaultStreams(ctx);
  // Before feature level 378 every user who could see the channel gets a delete event, whatever
  // their archived_channels capability (subscriptions are kept).
  ctx.events.notify(audience, streamDeleteEvent(ctx.settings, [{ ...wire, is_archived: true }]));
  return {};
}
