/**
 * `reportMessage` (https://zulip.com/api/report-message, feature level 382): asks the
 * organization's moderators to review a message; the server posts the report to its moderation
 * request channel.
 */
import { featureLevels } from '../../../zulip/feature-levels.js';
import { reportMessage } from '../../../zulip/routes/messages.js';
import { builder } from '../../builder.js';
import { badInput } from '../../errors.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { reaches } from '../../zulip-operations.js';
import { checkMessageId, messageOrNull } from './history.js';
import { MessageRef } from './message.js';

/** Zulip's limit on a report's description, in Unicode code points. */
const MAX_DESCRIPTION_LENGTH = 1000;

const ReportMessagePayloadRef = builder.objectRef<{ messageId: number }>('ReportMessagePayload').implement({
  description: 'A message that was reported to the moderators.',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The reported message\u2019s ID.', resolve: (p) => p.messageId }),
    message: t.field({ type: MessageRef, nullable: true, description: 'The reported message (fetched only when selected).', resolve: (p, _args, ctx) => messageOrNull(ctx, p.messageId) }),
  }),
});

builder.mutationField('reportMessage', (t) =>
  t.field({
    extensions: reaches('report-message'),
    type: ReportMessagePayloadRef,
    description:
      'Reports a message to the organization\u2019s moderators (feature level 382, else UNSUPPORTED_BY_SERVER). ' +
      'Fails with BAD_REQUEST: "Message reporting is not enabled in this organization." (no moderation request ' +
      'channel), "Invalid report_type", "Invalid message(s)".',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The message to report.' }),
      reportType: t.arg.string({
        required: true,
        description:
          'Why: one of the `key` values of the server\u2019s report message types (`spam`, `harassment`, ' +
          '`inappropriate`, `norms`, `other` before feature level 435).',
      }),
      description: t.arg.string({ required: false, description: 'More context for the moderators, up to 1000 characters; required for `other`.' }),
    },
    resolve: async (_root, args, ctx) => {
      checkMessageId('reportMessage', args.id);
      const description = args.description ?? undefined;
      if (args.reportType.trim() === '') throw badInput('reportMessage: `reportType` must not be blank.', { argument: 'reportType' });
      if (description !== undefined && [...description].length > MAX_DESCRIPTION_LENGTH) {
        throw badInput(`reportMessage: \`description\` must be at most ${MAX_DESCRIPTION_LENGTH} characters.`, { argument: 'description' });
      }
      if (args.reportType === 'other' && !description) throw badInput('reportMessage: `description` is required for `other`.', { argument: 'description' });
      await requireFeatureLevel(ctx, featureLevels.reportMessage, 'Reporting messages');
      await reportMessage(ctx.connection, { messageId: args.id, reportType: args.reportType, description });
      return { messageId: args.id };
    },
  }),
);
