/** `renderMessage` end to end: one upstream call, and bad input refused before any call. */
import { describe, expect, it } from 'vitest';
import { setupHarness } from '../../../helpers/harness.js';
import { AS_HAMLET } from './shared.js';

const RENDER = 'query ($c: String!) { renderMessage(content: $c) }';

describe('renderMessage', () => {
  it('answers the server\u2019s HTML in one upstream call', async () => {
    const h = setupHarness();
    const { data, errors } = await h.gql(RENDER, { c: '**bold** text' }, AS_HAMLET);
    expect(errors).toBeUndefined();
    expect(data).toEqual({ renderMessage: '<p><strong>bold</strong> text</p>' });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST messages/render']);
  });

  it('refuses content with a null byte before any upstream call', async () => {
    const h = setupHarness();
    const { errors } = await h.gql(RENDER, { c: 'a\u0000b' }, AS_HAMLET);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'content' });
    expect(h.upstreamRequests).toEqual([]);
  });
});
