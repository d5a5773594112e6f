/**
 * Navigation views (new in Zulip 11.0, feature level 390): the user's configuration of the left
 * sidebar's views, built-in ones (Inbox, Recent conversations, ...) and custom ones. The
 * `navigationViews` query and the `addNavigationView`, `editNavigationView` and
 * `removeNavigationView` mutations. A view is identified by its URL fragment.
 * https://zulip.com/api/get-navigation-views
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { NavigationView } from '../../zulip/model/navigation-views.js';
import { addNavigationView, editNavigationView, getNavigationViews, removeNavigationView } from '../../zulip/routes/navigation-views.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { asNode, fromList } from './node.js';

function requireNavigationViews(ctx: Context): Promise<void> {
  return requireFeatureLevel(ctx, featureLevels.navigationViews, 'Navigation views');
}

/** A fragment as Zulip accepts it (stripped, not blank); refused before any upstream call. */
function fragmentArg(fragment: string): string {
  const stripped = fragment.trim();
  if (stripped === '') throw badInput('fragment cannot be blank.', { argument: 'fragment' });
  return stripped;
}

function nameArg(name: string | null | undefined): string | undefined {
  if (name == null) return undefined;
  const stripped = name.trim();
  if (stripped === '') throw badInput('name cannot be blank.', { argument: 'name' });
  return stripped;
}

export const NavigationViewRef = builder.objectRef<NavigationView>('NavigationView');

NavigationViewRef.implement({
  description:
    'The caller\u2019s configuration of one left-sidebar view: a built-in view (no name) or a custom one. ' +
    'https://zulip.com/api/get-navigation-views',
  fields: (t) => ({
    fragment: t.exposeString('fragment', { description: 'The URL hash the view opens (e.g. "narrow/is/alerted"); its identifier.' }),
    isPinned: t.exposeBoolean('is_pinned', { description: 'Pinned in the sidebar (true) or listed in the "More views" menu (false).' }),
    name: t.string({ nullable: true, description: 'The name of a custom view; null for a built-in view.', resolve: (v) => v.name ?? null }),
  }),
});

async function viewByFragment(ctx: Context, fragment: string): Promise<NavigationView | null> {
  const { navigation_views: views } = await getNavigationViews(ctx.connection);
  return views.find((v) => v.fragment === fragment) ?? null;
}

const NavigationViewPayloadRef = builder.objectRef<{ fragment: string; view?: NavigationView }>('NavigationViewPayload').implement({
  description: 'A navigation view that was added or edited.',
  fields: (t) => ({
    fragment: t.string({ description: 'The view\u2019s fragment.', resolve: (p) => p.fragment }),
    navigationView: t.field({
      type: NavigationViewRef,
      nullable: true,
      description:
        'The view as stored: built from the request after an add; fetched (only when selected) after an edit, ' +
        'null if it was removed in the meantime.',
      resolve: (p, _args, ctx) => p.view ?? viewByFragment(ctx, p.fragment),
    }),
  }),
});

const RemoveNavigationViewPayloadRef = builder.objectRef<{ fragment: string }>('RemoveNavigationViewPayload').implement({
  description: 'A navigation view that was removed.',
  fields: (t) => ({
    fragment: t.string({ description: 'The removed view\u2019s fragment.', resolve: (p) => p.fragment }),
  }),
});

builder.queryField('navigationViews', (t) =>
  t.field({
    extensions: reaches('get-navigation-views'),
    type: [NavigationViewRef],
    nullable: true,
    description: 'The caller\u2019s navigation views, in the order they were added. Feature level 390 (else UNSUPPORTED_BY_SERVER).',
    resolve: (_root, _args, ctx) => listNavigationViews(ctx),
  }),
);

async function listNavigationViews(ctx: Context): Promise<NavigationView[]> {
  await requireNavigationViews(ctx);
  return (await getNavigationViews(ctx.connection)).navigation_views;
}

// Keyed by fragment, unique per user (Zulip gives views no ID).
asNode(NavigationViewRef, {
  key: (v) => v.fragment,
  keyKind: 'string',
  load: fromList(listNavigationViews, (v) => v.fragment, 'navigation view'),
});

builder.mutationFields((t) => ({
  addNavigationView: t.field({
    extensions: reaches('add-navigation-view'),
    type: NavigationViewPayloadRef,
    description:
      'Adds a navigation view: a built-in fragment (e.g. "inbox") takes no name, any other fragment needs one ' +
      '(else BAD_REQUEST); an existing fragment or name is BAD_REQUEST. Feature level 390.',
    args: {
      fragment: t.arg.string({ required: true, description: 'The URL hash the view opens; must not be blank.' }),
      isPinned: t.arg.boolean({ required: true, description: 'Pin it in the sidebar (true) or list it under "More views" (false).' }),
      name: t.arg.string({ required: false, description: 'The name of a custom view; omit for a built-in view.' }),
    },
    resolve: async (_root, args, ctx) => {
      const fragment = fragmentArg(args.fragment);
      const name = nameArg(args.name);
      await requireNavigationViews(ctx);
      await addNavigationView(ctx.connection, { fragment, isPinned: args.isPinned, name });
      return { fragment, view: { fragment, is_pinned: args.isPinned, name: name ?? null } };
    },
  }),
  editNavigationView: t.field({
    extensions: reaches('edit-navigation-view'),
    type: NavigationViewPayloadRef,
    description:
      'Pins, unpins or renames a navigation view (give isPinned, name or both; a built-in view cannot be renamed). ' +
      'An unknown fragment is BAD_REQUEST ("Navigation view does not exist."). Feature level 390.',
    args: {
      fragment: t.arg.string({ required: true, description: 'The view to edit.' }),
      isPinned: t.arg.boolean({ required: false, description: 'Pin it in the sidebar (true) or move it to "More views" (false).' }),
      name: t.arg.string({ required: false, description: 'The new name of a custom view.' }),
    },
    resolve: async (_root, args, ctx) => {
      const fragment = fragmentArg(args.fragment);
      const name = nameArg(args.name);
      const isPinned = args.isPinned ?? undefined;
      if (isPinned === undefined && name === undefined) throw badInput('editNavigationView: give isPinned, name or both.');
      await requireNavigationViews(ctx);
      await editNavigationView(ctx.connection, { fragment, isPinned, name });
      return { fragment };
    },
  }),
  removeNavigationView: t.field({
    extensions: reaches('remove-navigation-view'),
    type: RemoveNavigationViewPayloadRef,
    description: 'Removes a navigation view. An unknown fragment is BAD_REQUEST ("Navigation view does not exist."). Feature level 390.',
    args: {
      fragment: t.arg.string({ required: true, description: 'The view to remove.' }),
    },
    resolve: async (_root, args, ctx) => {
      const fragment = fragmentArg(args.fragment);
      await requireNavigationViews(ctx);
      await removeNavigationView(ctx.connection, { fragment });
      return { fragment };
    },
  }),
}));
