/**
 * Bindings for navigation views (new in Zulip 11.0, feature level 390), over the generated
 * operation table. A view is identified by its fragment, which travels percent-encoded in the path
 * of the edit and remove calls.
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/navigation-views.js';
import type { GetNavigationViewsResult } from '../model/navigation-views.js';

/** https://zulip.com/api/get-navigation-views */
export const getNavigationViews = (connection: ZulipConnection, call?: SendOptions): Promise<GetNavigationViewsResult> =>
  ops.getNavigationViews(connection, {}, call);

/**
 * Adds a view; a built-in fragment takes no name, a custom one needs one.
 * https://zulip.com/api/add-navigation-view
 */
export const addNavigationView = (connection: ZulipConnection, params: ops.AddNavigationViewParams, call?: SendOptions): Promise<object> =>
  ops.addNavigationView(connection, params, call);

/** https://zulip.com/api/edit-navigation-view */
export const editNavigationView = (connection: ZulipConnection, params: ops.EditNavigationViewParams, call?: SendOptions): Promise<object> =>
  ops.editNavigationView(connection, params, call);

/** https://zulip.com/api/remove-navigation-view */
export const removeNavigationView = (connection: ZulipConnection, params: ops.RemoveNavigationViewParams, call?: SendOptions): Promise<object> =>
  ops.removeNavigationView(connection, params, call);
