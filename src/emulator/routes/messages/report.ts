/**
 * `POST /messages/{message_id}/report` (https://zulip.com/api/report-message, feature level 382).
 * As Zulip's report_message_backend (zerver/views/message_report.py): the reason must be one of
 * Zulip's report types, `other` needs a description, the organization must have a moderation
 * request channel, and the caller must be able to read the message. Notification Bot then posts
 * the report to that channel in the topic "<sender's name> moderation"
 * (zerver/lib/message_report.py; the emulator's text is shorter than Zulip's).
 */
import type { RouteContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { accessMessage } from './access.js';
import { sendNotification } from './send.js';

/** Zulip's Realm.REPORT_MESSAGE_REASONS: the accepted `report_type` values and how a report names them. */
const REPORT_REASONS: Readonly<Record<string, string>> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other reason',
};

/** Zulip's Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
const MAX_DESCRIPTION_LENGTH = 1000;

export function reportMessage(ctx: RouteContext): Record<string, unknown> {
  const { store, user, params } = ctx;
  const messageId = ctx.pathInt('message_id');
  const reportType = params.str('report_type');
  const description = params.optStr('description') ?? '';
  if (!Object.hasOwn(REPORT_REASONS, reportType)) throw badRequest('Invalid report_type');
  if ([...description].length > MAX_DESCRIPTION_LENGTH) throw badRequest(`description is too long (limit: ${MAX_DESCRIPTION_LENGTH} characters)`);
  if (reportType === 'other' && description === '') throw badRequest('An explanation is required.');
  const channelId = store.realm.settings.moderation_request_channel_id;
  const channel = channelId === null ? undefined : store.channels.get(channelId);
  if (!channel) throw badRequest('Message reporting is not enabled in this organization.');
  const message = accessMessage(store, user, messageId);
  const sender = store.users.get(message.sender_id)!;
  const sentAt = new Date(message.timestamp * 1000).toISOString().replace('.000Z', 'Z');
  const content =
    `@_**${user.full_name}|${user.user_id}** reported a message sent by @_**${sender.full_name}|${sender.user_id}** at <time:${sentAt}>.\n` +
    `\`\`\`quote\n**${REPORT_REASONS[reportType]!}**. ${description}\n\`\`\`\n\n` +
    `\`\`\`\` spoiler Original message\n${message.content}\n\`\`\`\`\n`;
  sendNotification(ctx, channel, `${sender.full_name} moderation`, content, new Set(store.subscriberIds(channel.stream_id)));
  return {};
}
