/**
 * Video calls with the organization's call provider: `createBigBlueButtonCall`,
 * `createNextcloudTalkCall` (feature level 465) and `createConstructorGroupsCall` (feature level
 * 460). Each answers the join URL a client puts in a message; a provider the server has not
 * configured is BAD_REQUEST ("<provider> is not configured.").
 * https://zulip.com/api/create-big-blue-button-video-call
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { CreateVideoCallResult } from '../../zulip/model/calls.js';
import { createBigBlueButtonVideoCall, createConstructorGroupsVideoCall, createNextcloudTalkVideoCall } from '../../zulip/routes/calls.js';
import { builder } from '../builder.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';

type Provider = 'BIG_BLUE_BUTTON' | 'NEXTCLOUD_TALK' | 'CONSTRUCTOR_GROUPS';

const VideoCallProviderEnum = builder.enumType('VideoCallProvider', {
  description: 'A call provider a chat server can create calls with.',
  values: {
    BIG_BLUE_BUTTON: { description: 'BigBlueButton.' },
    NEXTCLOUD_TALK: { description: 'Nextcloud Talk.' },
    CONSTRUCTOR_GROUPS: { description: 'Constructor Groups.' },
  } as const,
});

const VideoCallRef = builder.objectRef<CreateVideoCallResult & { provider: Provider }>('VideoCall').implement({
  description: 'A call that was created; share its URL (e.g. in a message) for others to join.',
  fields: (t) => ({
    url: t.exposeString('url', {
      description: 'The URL to join the call: relative to the chat server for BigBlueButton, absolute for the other providers.',
    }),
    provider: t.field({ type: VideoCallProviderEnum, description: 'The provider the call was created with.', resolve: (c) => c.provider }),
  }),
});

builder.mutationFields((t) => ({
  createBigBlueButtonCall: t.field({
    extensions: reaches('create-big-blue-button-video-call'),
    type: VideoCallRef,
    description: 'Creates a BigBlueButton call. BAD_REQUEST when the server has not configured BigBlueButton.',
    args: {
      meetingName: t.arg.string({ required: true, description: 'The meeting\u2019s name, shown to whoever joins.' }),
      voiceOnly: t.arg.boolean({
        required: false,
        description: 'Start with cameras off, only the creator able to turn them on (feature level 337; default false).',
      }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.voiceOnly != null) await requireFeatureLevel(ctx, featureLevels.bigBlueButtonVoiceOnly, 'A voice-only call');
      const call = await createBigBlueButtonVideoCall(ctx.connection, { meetingName: args.meetingName, voiceOnly: args.voiceOnly ?? undefined });
      return { url: call.url, provider: 'BIG_BLUE_BUTTON' as const };
    },
  }),
  createNextcloudTalkCall: t.field({
    extensions: reaches('create-nextcloud-talk-video-call'),
    type: VideoCallRef,
    description: 'Creates a Nextcloud Talk call. Feature level 465; BAD_REQUEST when the server has not configured Nextcloud Talk.',
    args: {
      roomName: t.arg.string({ required: true, description: 'The room\u2019s name (the web app uses the conversation, e.g. "#design > colors").' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireFeatureLevel(ctx, featureLevels.nextcloudTalkCalls, 'Nextcloud Talk calls');
      const call = await createNextcloudTalkVideoCall(ctx.connection, { roomName: args.roomName });
      return { url: call.url, provider: 'NEXTCLOUD_TALK' as const };
    },
  }),
  createConstructorGroupsCall: t.field({
    extensions: reaches('create-constructor-groups-video-call'),
    type: VideoCallRef,
    description: 'Creates a Constructor Groups call. Feature level 460; BAD_REQUEST when the server has not configured Constructor Groups.',
    resolve: async (_root, _args, ctx) => {
      await requireFeatureLevel(ctx, featureLevels.constructorGroupsCalls, 'Constructor Groups calls');
      const call = await createConstructorGroupsVideoCall(ctx.connection);
      return { url: call.url, provider: 'CONSTRUCTOR_GROUPS' as const };
    },
  }),
}));
