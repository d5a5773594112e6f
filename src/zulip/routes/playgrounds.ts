/**
 * Bindings for code playgrounds. Changes need an organization administrator (else
 * UNAUTHORIZED_PRINCIPAL); the list itself is the `realm_playgrounds` register state (there is no
 * GET endpoint). https://zulip.com/help/code-blocks#code-playgrounds
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/playgrounds.js';
import type { AddCodePlaygroundResult } from '../model/playgrounds.js';

/** Adds a playground (feature level 49). https://zulip.com/api/add-code-playground */
export const addCodePlayground = (c: ZulipConnection, p: ops.AddCodePlaygroundParams, call?: SendOptions): Promise<AddCodePlaygroundResult> =>
  ops.addCodePlayground(c, p, call);

/** Removes a playground (feature level 49). https://zulip.com/api/remove-code-playground */
export const removeCodePlayground = (c: ZulipConnection, p: ops.RemoveCodePlaygroundParams, call?: SendOptions): Promise<object> =>
  ops.removeCodePlayground(c, p, call);
