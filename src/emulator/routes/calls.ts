/**
 * Video calls: `GET /calls/bigbluebutton/create`, `POST /calls/nextcloud_talk/create` and `POST
 * /calls/constructorgroups/create` (https://zulip.com/api/create-big-blue-button-video-call and
 * neighbours). The emulator talks to no call server: when the organization's
 * `video_chat_provider` (a realm setting the tests set) is the endpoint's provider, it answers with
 * a plausible join URL of that provider's shape; otherwise with Zulip's BAD_REQUEST "<provider> is
 * not configured.".
 */
import type { Route, RouteContext } from '../context.js';
import { badRequest } from '../errors.js';
import type { VideoChatProvider } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

const PROVIDER_NAMES: Record<VideoChatProvider, string> = {
  big_blue_button: 'BigBlueButton',
  nextcloud_talk: 'Nextcloud Talk',
  constructor_groups: 'Constructor Groups',
};

/** A deterministic call number for the join URL. */
function nextCall(ctx: RouteContext, provider: VideoChatProvider): number {
  if (ctx.store.realm.settings.video_chat_provider !== provider) throw badRequest(`${PROVIDER_NAMES[provider]} is not configured.`);
  return ctx.store.nextId('call');
}

/** https://zulip.com/api/create-big-blue-button-video-call: Zulip signs the meeting's details into the join link. */
function bigBlueButton(ctx: RouteContext): Record<string, unknown> {
  const name = ctx.params.str('meeting_name');
  const voiceOnly = ctx.params.bool('voice_only', false);
  const id = `zulip-${100_000_000_000 + nextCall(ctx, 'big_blue_button')}`;
  const details = { meeting_id: id, name, lock_settings_disable_cam: voiceOnly, moderator: ctx.user.user_id };
  const signed = Buffer.from(JSON.stringify(details)).toString('base64url');
  return { url: `/calls/bigbluebutton/join?bigbluebutton=${signed}` };
}

/** https://zulip.com/api/create-nextcloud-talk-video-call */
function nextcloudTalk(ctx: RouteContext): Record<string, unknown> {
  ctx.params.str('room_name');
  const token = `room${nextCall(ctx, 'nextcloud_talk')}`;
  return { url: `https://nextcloud.example.com/index.php/call/${token}` };
}

/** https://zulip.com/api/create-constructor-groups-video-call */
function constructorGroups(ctx: RouteContext): Record<string, unknown> {
  return { url: `https://example.constructor.app/groups/room/room-${nextCall(ctx, 'constructor_groups')}` };
}

export const routes: Route[] = [
  { operation: ops.createBigBlueButtonVideoCall, handler: bigBlueButton },
  { operation: ops.createNextcloudTalkVideoCall, handler: nextcloudTalk },
  { operation: ops.createConstructorGroupsVideoCall, handler: constructorGroups },
];
