/** The emulator's `POST /messages/render`, driven through the REST client: rendered, nothing stored. */
import { describe, expect, it } from 'vitest';
import { renderMessage } from '../../../src/zulip/routes/messages.js';
import { caughtApiError, expectValidResponse, setupEmulator } from '../../helpers/emulator.js';

describe('POST /messages/render', () => {
  it('renders Markdown without storing a message', async () => {
    const t = setupEmulator();
    const before = t.store.messages.size;
    const body = await renderMessage(t.as('hamlet'), { content: '**bold** text' });
    expectValidResponse('post', '/messages/render', body);
    expect(body.rendered).toBe('<p><strong>bold</strong> text</p>');
    expect(t.store.messages.size).toBe(before);
  });

  it('refuses a missing content', async () => {
    const t = setupEmulator();
    const e = await caughtApiError(t.as('hamlet').request('render-message', 'POST', 'messages/render', {}));
    expect([e.code, e.message]).toEqual(['REQUEST_VARIABLE_MISSING', "Missing 'content' argument"]);
  });
});
