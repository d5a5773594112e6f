/**
 * Code playgrounds: the `codePlaygrounds` query and the `addCodePlayground` and
 * `removeCodePlayground` mutations. https://zulip.com/api/add-code-playground
 *
 * Zulip has no endpoint listing playgrounds: they are the `realm_playgrounds` register state, and
 * the live directory does not keep realm state, so the query asks `POST /register` for that one
 * key (one call). Every field needs feature level 196 (RFC 6570 URL templates; a `url_prefix`
 * before). Changes need an organization administrator (UNAUTHORIZED_PRINCIPAL otherwise).
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { CodePlayground } from '../../zulip/model/playgrounds.js';
import { registerQueue } from '../../zulip/routes/events.js';
import { addCodePlayground, removeCodePlayground } from '../../zulip/routes/playgrounds.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { asNode, fromList } from './node.js';

export const CodePlaygroundRef = builder.objectRef<CodePlayground>('CodePlayground').implement({
  description:
    'An external site a code block of one language can be opened in. https://zulip.com/help/code-blocks#code-playgrounds',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The playground ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (p) => p.id }),
    name: t.exposeString('name', { description: 'The name users pick it by, e.g. "Python playground".' }),
    pygmentsLanguage: t.exposeString('pygments_language', { description: 'The Pygments name of the language, e.g. "Python".' }),
    urlTemplate: t.exposeString('url_template', { description: 'The RFC 6570 URL template; its one variable, `code`, is the code block.' }),
  }),
});

const requirePlaygrounds = (ctx: Context) => requireFeatureLevel(ctx, featureLevels.playgroundUrlTemplate, 'Code playgrounds');

const AddCodePlaygroundPayloadRef = builder.objectRef<CodePlayground>('AddCodePlaygroundPayload').implement({
  description: 'A code playground that was added.',
  fields: (t) => ({
    codePlayground: t.field({ type: CodePlaygroundRef, description: 'The playground (fields trimmed as the server stores them).', resolve: (p) => p }),
  }),
});

const RemoveCodePlaygroundPayloadRef = builder.objectRef<{ id: number }>('RemoveCodePlaygroundPayload').implement({
  description: 'A code playground that was removed.',
  fields: (t) => ({ id: t.field({ type: 'Long', description: 'The removed playground\u2019s ID.', resolve: (p) => p.id }) }),
});

builder.queryField('codePlaygrounds', (t) =>
  t.field({
    type: [CodePlaygroundRef],
    nullable: true,
    description: 'The organization\u2019s code playgrounds (one `POST /register` for that state). Needs feature level 196.',
    resolve: (_root, _args, ctx) => listPlaygrounds(ctx),
  }),
);

async function listPlaygrounds(ctx: Context): Promise<CodePlayground[]> {
  await requirePlaygrounds(ctx);
  const state = await registerQueue(ctx.connection, { eventTypes: ['realm_playgrounds'], fetchEventTypes: ['realm_playgrounds'] });
  return (state as unknown as { realm_playgrounds?: CodePlayground[] }).realm_playgrounds ?? [];
}

asNode(CodePlaygroundRef, { key: (p) => p.id, load: fromList(listPlaygrounds, (p) => p.id, 'code playground') });

builder.mutationFields((t) => ({
  addCodePlayground: t.field({
    extensions: reaches('add-code-playground'),
    type: AddCodePlaygroundPayloadRef,
    description:
      'Adds a code playground (organization administrators). Errors: UNAUTHORIZED_PRINCIPAL; BAD_REQUEST for an ' +
      'invalid language or template, a template whose variables are not exactly `code`, or a name already used for the language.',
    args: {
      name: t.arg.string({ required: true, description: 'The name users pick it by.' }),
      pygmentsLanguage: t.arg.string({ required: true, description: 'The Pygments name of the language.' }),
      urlTemplate: t.arg.string({ required: true, description: 'An RFC 6570 URL template whose one variable is `code`.' }),
    },
    resolve: async (_root, args, ctx) => {
      const fields = { name: args.name.trim(), pygments_language: args.pygmentsLanguage.trim(), url_template: args.urlTemplate.trim() };
      for (const [argument, value] of [['name', fields.name], ['pygmentsLanguage', fields.pygments_language], ['urlTemplate', fields.url_template]]) {
        if (value === '') throw badInput(`${argument} must not be empty`, { argument });
      }
      await requirePlaygrounds(ctx);
      const { id } = await addCodePlayground(ctx.connection, { name: args.name, pygmentsLanguage: args.pygmentsLanguage, urlTemplate: args.urlTemplate });
      return { id, ...fields };
    },
  }),
  removeCodePlayground: t.field({
    extensions: reaches('remove-code-playground'),
    type: RemoveCodePlaygroundPayloadRef,
    description: 'Removes a code playground (organization administrators). An unknown ID is BAD_REQUEST "Invalid playground".',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The playground to remove.' }) },
    resolve: async (_root, args, ctx) => {
      await requirePlaygrounds(ctx);
      await removeCodePlayground(ctx.connection, { playgroundId: args.id });
      return { id: args.id };
    },
  }),
}));
