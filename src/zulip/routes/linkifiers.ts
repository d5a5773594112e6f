/**
 * Bindings for the organization's linkifiers. Every change needs an organization administrator
 * (else UNAUTHORIZED_PRINCIPAL "Must be an organization administrator").
 * https://zulip.com/help/add-a-custom-linkifier
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/linkifiers.js';
import type { AddLinkifierResult, GetLinkifiersResult } from '../model/linkifiers.js';

/** The linkifiers in processing order (feature level 54). https://zulip.com/api/get-linkifiers */
export const getLinkifiers = (c: ZulipConnection, call?: SendOptions): Promise<GetLinkifiersResult> =>
  ops.getLinkifiers(c, {}, call);

/** Adds a linkifier at the end of the order. https://zulip.com/api/add-linkifier */
export const addLinkifier = (c: ZulipConnection, p: ops.AddLinkifierParams, call?: SendOptions): Promise<AddLinkifierResult> =>
  ops.addLinkifier(c, p, call);

/** Replaces a linkifier's pattern and URL template (feature level 57). https://zulip.com/api/update-linkifier */
export const updateLinkifier = (c: ZulipConnection, p: ops.UpdateLinkifierParams, call?: SendOptions): Promise<object> =>
  ops.updateLinkifier(c, p, call);

/** Removes a linkifier. https://zulip.com/api/remove-linkifier */
export const removeLinkifier = (c: ZulipConnection, p: ops.RemoveLinkifierParams, call?: SendOptions): Promise<object> =>
  ops.removeLinkifier(c, p, call);

/** Sets the processing order; the list names every linkifier once (feature level 202). https://zulip.com/api/reorder-linkifiers */
export const reorderLinkifiers = (c: ZulipConnection, p: ops.ReorderLinkifiersParams, call?: SendOptions): Promise<object> =>
  ops.reorderLinkifiers(c, p, call);
