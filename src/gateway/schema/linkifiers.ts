/**
 * The organization's linkifiers: the `linkifiers` query and the `addLinkifier`, `updateLinkifier`,
 * `removeLinkifier` and `reorderLinkifiers` mutations. https://zulip.com/api/get-linkifiers
 *
 * Every field needs feature level 176 (RFC 6570 URL templates; older servers speak Python format
 * strings), `reorderLinkifiers` level 202. Changes need an organization administrator: the server
 * answers UNAUTHORIZED_PRINCIPAL otherwise; an invalid pattern or template is BAD_REQUEST with the
 * server's `errors` map in the extensions.
 */
import type { Linkifier } from '../../zulip/model/linkifiers.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { addLinkifier, getLinkifiers, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../zulip/routes/linkifiers.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { asNode, fromList } from './node.js';

export const LinkifierRef = builder.objectRef<Linkifier>('Linkifier').implement({
  description:
    'A regular expression whose matches in messages and topics link to a URL built from its named groups. ' +
    'https://zulip.com/help/add-a-custom-linkifier',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The linkifier ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (l) => l.id }),
    pattern: t.exposeString('pattern', { description: 'The regular expression, with named groups `(?P<name>...)`.' }),
    urlTemplate: t.exposeString('url_template', {
      description: 'The RFC 6570 URL template a match links to; its variables are the pattern\u2019s groups.',
    }),
  }),
});

const requireLinkifiers = (ctx: Context) => requireFeatureLevel(ctx, featureLevels.linkifierUrlTemplate, 'Linkifiers');

const listLinkifiers = async (ctx: Context) => (await getLinkifiers(ctx.connection)).linkifiers;

/** Refuses an empty pattern or template before the call (the server would answer with a less useful message). */
function checkDefinition(pattern: string, urlTemplate: string): void {
  if (pattern.trim() === '') throw badInput('pattern must not be empty', { argument: 'pattern' });
  if (urlTemplate.trim() === '') throw badInput('urlTemplate must not be empty', { argument: 'urlTemplate' });
}

const LinkifierPayloadRef = builder.objectRef<Linkifier>('LinkifierPayload').implement({
  description: 'A linkifier that was added or updated, as the server stored it.',
  fields: (t) => ({
    linkifier: t.field({ type: LinkifierRef, description: 'The linkifier.', resolve: (l) => l }),
  }),
});

const RemoveLinkifierPayloadRef = builder.objectRef<{ id: number }>('RemoveLinkifierPayload').implement({
  description: 'A linkifier that was removed.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The removed linkifier\u2019s ID.', resolve: (p) => p.id }),
  }),
});

const ReorderLinkifiersPayloadRef = builder.objectRef<{ ids: number[] }>('ReorderLinkifiersPayload').implement({
  description: 'The linkifiers in their new processing order.',
  fields: (t) => ({
    ids: t.field({ type: ['Long'], description: 'The linkifier IDs in their new order.', resolve: (p) => p.ids }),
    linkifiers: t.field({
      type: [LinkifierRef],
      description: 'The linkifiers in their new order (fetched only when selected).',
      resolve: (_p, _args, ctx) => listLinkifiers(ctx),
    }),
  }),
});

asNode(LinkifierRef, {
  key: (l) => l.id,
  load: fromList(
    async (ctx) => {
      await requireLinkifiers(ctx);
      return listLinkifiers(ctx);
    },
    (l) => l.id,
    'linkifier',
  ),
});

builder.queryField('linkifiers', (t) =>
  t.field({
    extensions: reaches('get-linkifiers'),
    type: [LinkifierRef],
    nullable: true,
    description: 'The organization\u2019s linkifiers in processing order (the first match wins). Needs feature level 176.',
    resolve: async (_root, _args, ctx) => {
      await requireLinkifiers(ctx);
      return listLinkifiers(ctx);
    },
  }),
);

builder.mutationFields((t) => ({
  addLinkifier: t.field({
    extensions: reaches('add-linkifier'),
    type: LinkifierPayloadRef,
    description:
      'Adds a linkifier after the existing ones (organization administrators). Errors: UNAUTHORIZED_PRINCIPAL; ' +
      'BAD_REQUEST for a bad pattern or template, groups and variables that differ, or a pattern already used.',
    args: {
      pattern: t.arg.string({ required: true, description: 'The regular expression, with named groups `(?P<name>...)`.' }),
      urlTemplate: t.arg.string({ required: true, description: 'An RFC 6570 URL template over exactly the pattern\u2019s groups.' }),
    },
    resolve: async (_root, args, ctx) => {
      checkDefinition(args.pattern, args.urlTemplate);
      await requireLinkifiers(ctx);
      const { id } = await addLinkifier(ctx.connection, { pattern: args.pattern, urlTemplate: args.urlTemplate });
      return { id, pattern: args.pattern, url_template: args.urlTemplate };
    },
  }),
  updateLinkifier: t.field({
    extensions: reaches('update-linkifier'),
    type: LinkifierPayloadRef,
    description:
      'Replaces a linkifier\u2019s pattern and URL template, keeping its place in the order (organization ' +
      'administrators). Errors as addLinkifier, and BAD_REQUEST "Linkifier not found." for an unknown ID.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The linkifier to update.' }),
      pattern: t.arg.string({ required: true, description: 'The new regular expression.' }),
      urlTemplate: t.arg.string({ required: true, description: 'The new RFC 6570 URL template.' }),
    },
    resolve: async (_root, args, ctx) => {
      checkDefinition(args.pattern, args.urlTemplate);
      await requireLinkifiers(ctx);
      await updateLinkifier(ctx.connection, { filterId: args.id, pattern: args.pattern, urlTemplate: args.urlTemplate });
      return { id: args.id, pattern: args.pattern, url_template: args.urlTemplate };
    },
  }),
  removeLinkifier: t.field({
    extensions: reaches('remove-linkifier'),
    type: RemoveLinkifierPayloadRef,
    description: 'Removes a linkifier (organization administrators). An unknown ID is BAD_REQUEST "Linkifier not found."',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The linkifier to remove.' }) },
    resolve: async (_root, args, ctx) => {
      await requireLinkifiers(ctx);
      await removeLinkifier(ctx.connection, { filterId: args.id });
      return { id: args.id };
    },
  }),
  reorderLinkifiers: t.field({
    extensions: reaches('reorder-linkifiers'),
    type: ReorderLinkifiersPayloadRef,
    description:
      'Sets the order linkifiers are tried in (organization administrators); `ids` names every linkifier once. ' +
      'Needs feature level 202.',
    args: { ids: t.arg({ type: ['Long'], required: true, description: 'Every linkifier ID, in the new order.' }) },
    resolve: async (_root, args, ctx) => {
      if (new Set(args.ids).size < args.ids.length) throw badInput('ids must not repeat a linkifier', { argument: 'ids' });
      await requireFeatureLevel(ctx, featureLevels.reorderLinkifiers, 'Reordering linkifiers');
      await reorderLinkifiers(ctx.connection, { orderedLinkifierIds: args.ids });
      return { ids: args.ids };
    },
  }),
}));
