/**
 * Saved snippets (Zulip 10.0, feature level 297): text a user keeps to insert into the messages
 * they compose. The `savedSnippets` query and the `createSavedSnippet`, `editSavedSnippet`
 * (feature level 368) and `deleteSavedSnippet` mutations. A snippet is private to its owner.
 * https://zulip.com/api/get-saved-snippets
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { SavedSnippet } from '../../zulip/model/saved-snippets.js';
import { createSavedSnippet, deleteSavedSnippet, editSavedSnippet, getSavedSnippets } from '../../zulip/routes/saved-snippets.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { asNode, fromList } from './node.js';

export const SavedSnippetRef = builder.objectRef<SavedSnippet>('SavedSnippet').implement({
  description: 'A piece of message text the user saved to insert into messages they compose. https://zulip.com/api/get-saved-snippets',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The saved snippet ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (s) => s.id }),
    title: t.exposeString('title', { description: 'The title the user picks the snippet by.' }),
    content: t.exposeString('content', { description: 'The text (Zulip-flavored Markdown) inserted into the message being composed.' }),
    dateCreated: t.field({ type: 'Long', description: 'When the snippet was created, in UNIX seconds.', resolve: (s) => s.date_created }),
  }),
});

async function snippetById(ctx: Context, id: number): Promise<SavedSnippet | null> {
  const { saved_snippets } = await getSavedSnippets(ctx.connection);
  return saved_snippets.find((s) => s.id === id) ?? null;
}

/** A payload carrying the ID of the snippet a mutation created or changed, and the snippet itself. */
const SavedSnippetPayloadRef = builder.objectRef<{ id: number }>('SavedSnippetPayload').implement({
  description: 'A saved snippet that was created or edited.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The saved snippet ID.', resolve: (p) => p.id }),
    savedSnippet: t.field({
      type: SavedSnippetRef,
      nullable: true,
      description: 'The snippet as the server stored it (fetched only when selected); null if deleted in the meantime.',
      resolve: (p, _args, ctx) => snippetById(ctx, p.id),
    }),
  }),
});

const DeleteSavedSnippetPayloadRef = builder.objectRef<{ id: number }>('DeleteSavedSnippetPayload').implement({
  description: 'A saved snippet that was deleted.',
  fields: (t) => ({
    id: t.field({ type: 'Long', description: 'The deleted saved snippet\u2019s ID.', resolve: (p) => p.id }),
  }),
});

/** Refuses a title or content that the server would find empty once stripped. */
function checkText(field: string, argument: 'title' | 'content', value: string | null | undefined): void {
  if (value != null && value.trim() === '') throw badInput(`${field}: \`${argument}\` must not be blank.`, { argument });
}

const requireSavedSnippets = (ctx: Context, level: number = featureLevels.savedSnippets): Promise<void> =>
  requireFeatureLevel(ctx, level, level === featureLevels.savedSnippets ? 'Saved snippets' : 'Editing saved snippets');

builder.queryField('savedSnippets', (t) =>
  t.field({
    extensions: reaches('get-saved-snippets'),
    type: [SavedSnippetRef],
    nullable: true,
    description: 'The caller\u2019s saved snippets, oldest first. Needs feature level 297 (else UNSUPPORTED_BY_SERVER).',
    resolve: (_root, _args, ctx) => listSavedSnippets(ctx),
  }),
);

async function listSavedSnippets(ctx: Context): Promise<SavedSnippet[]> {
  await requireSavedSnippets(ctx);
  return (await getSavedSnippets(ctx.connection)).saved_snippets;
}

asNode(SavedSnippetRef, { key: (s) => s.id, load: fromList(listSavedSnippets, (s) => s.id, 'saved snippet') });

builder.mutationFields((t) => ({
  createSavedSnippet: t.field({
    extensions: reaches('create-saved-snippet'),
    type: SavedSnippetPayloadRef,
    description:
      'Saves a snippet. The server strips the title and content of surrounding whitespace; a blank one is refused ' +
      '(BAD_USER_INPUT), a title over 60 characters fails with BAD_REQUEST. Feature level 297.',
    args: {
      title: t.arg.string({ required: true, description: 'The title the user picks the snippet by (at most 60 characters).' }),
      content: t.arg.string({ required: true, description: 'The text (Zulip-flavored Markdown) to insert into messages.' }),
    },
    resolve: async (_root, args, ctx) => {
      checkText('createSavedSnippet', 'title', args.title);
      checkText('createSavedSnippet', 'content', args.content);
      await requireSavedSnippets(ctx);
      const { saved_snippet_id } = await createSavedSnippet(ctx.connection, { title: args.title, content: args.content });
      return { id: saved_snippet_id };
    },
  }),
  editSavedSnippet: t.field({
    extensions: reaches('edit-saved-snippet'),
    type: SavedSnippetPayloadRef,
    description:
      'Changes a saved snippet\u2019s title and/or content (at least one, neither blank: else BAD_USER_INPUT). An unknown ' +
      'ID, or another user\u2019s snippet, fails with BAD_REQUEST ("Saved snippet does not exist."). Feature level 368.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The saved snippet to change.' }),
      title: t.arg.string({ required: false, description: 'The new title (unchanged when omitted).' }),
      content: t.arg.string({ required: false, description: 'The new content (unchanged when omitted).' }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.title == null && args.content == null) throw badInput('editSavedSnippet: give a title or a content.');
      checkText('editSavedSnippet', 'title', args.title);
      checkText('editSavedSnippet', 'content', args.content);
      await requireSavedSnippets(ctx, featureLevels.editSavedSnippet);
      await editSavedSnippet(ctx.connection, { savedSnippetId: args.id, title: args.title ?? undefined, content: args.content ?? undefined });
      return { id: args.id };
    },
  }),
  deleteSavedSnippet: t.field({
    extensions: reaches('delete-saved-snippet'),
    type: DeleteSavedSnippetPayloadRef,
    description:
      'Deletes a saved snippet. An unknown ID, or another user\u2019s snippet, fails with BAD_REQUEST ' +
      '("Saved snippet does not exist."). Feature level 297.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The saved snippet to delete.' }),
    },
    resolve: async (_root, args, ctx) => {
      await requireSavedSnippets(ctx);
      await deleteSavedSnippet(ctx.connection, { savedSnippetId: args.id });
      return { id: args.id };
    },
  }),
}));
