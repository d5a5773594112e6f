/**
 * Bindings for creating video calls with the organization's call provider, over the generated
 * operation table. Each fails with BAD_REQUEST when the server has not configured that provider.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/calls.js';
import type { CreateVideoCallResult } from '../model/calls.js';

/** https://zulip.com/api/create-big-blue-button-video-call */
export const createBigBlueButtonVideoCall = (
  connection: ZulipConnection,
  params: ops.CreateBigBlueButtonVideoCallParams,
  call?: SendOptions,
): Promise<CreateVideoCallResult> => ops.createBigBlueButtonVideoCall(connection, params, call);

/** New in Zulip 12.0 (feature level 465). https://zulip.com/api/create-nextcloud-talk-video-call */
export const createNextcloudTalkVideoCall = (
  connection: ZulipConnection,
  params: ops.CreateNextcloudTalkVideoCallParams,
  call?: SendOptions,
): Promise<CreateVideoCallResult> => ops.createNextcloudTalkVideoCall(connection, params, call);

/** New in Zulip 12.0 (feature level 460). https://zulip.com/api/create-constructor-groups-video-call */
export const createConstructorGroupsVideoCall = (connection: ZulipConnection, call?: SendOptions): Promise<CreateVideoCallResult> =>
  ops.createConstructorGroupsVideoCall(connection, {}, call);
