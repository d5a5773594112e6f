/**
 * The typed `NarrowInput` and its encoding into Zulip's narrow terms, whose operator names depend
 * on the server's feature level. https://zulip.com/api/construct-narrow
 */
import type { NarrowTerm } from '../../../zulip/model/messages.js';
import { featureLevels } from '../../../zulip/feature-levels.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { badInput, unsupportedByServer } from '../../errors.js';
import { getFeatureLevel } from '../../upstream/feature-level.js';
import { NarrowChannelsEnum, NarrowHasEnum, NarrowIsEnum } from './enums.js';

/** The GraphQL input as resolvers receive it. */
export interface NarrowShape {
  channelId?: number | null;
  channelName?: string | null;
  channels?: string | null;
  topic?: string | null;
  senderId?: number | null;
  dmUserIds?: number[] | null;
  dmIncluding?: number | null;
  is?: string[] | null;
  has?: string[] | null;
  search?: string | null;
  id?: number | null;
  not?: NarrowShape | null;
}

export const NarrowInput = builder.inputRef<NarrowShape>('NarrowInput').implement({
  description:
    'Which messages to consider. Every field given adds one condition and a message must meet all of them; ' +
    'the conditions under `not` are each negated. Without channel conditions only the caller\u2019s personal ' +
    'history is searched (add `channels: PUBLIC` to search all public channels). An empty narrow means every ' +
    'message the caller has received. https://zulip.com/api/construct-narrow',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', required: false, description: 'Messages in this channel.' }),
    channelName: t.string({ required: false, description: 'Messages in the channel with this name (use channelId when known).' }),
    channels: t.field({ type: NarrowChannelsEnum, required: false, description: 'Search all channels of a kind.' }),
    topic: t.string({ required: false, description: 'Messages in this topic (case-insensitive).' }),
    senderId: t.field({ type: 'Long', required: false, description: 'Messages sent by this user.' }),
    dmUserIds: t.field({
      type: ['Long'],
      required: false,
      description: 'The direct-message conversation between the caller and exactly these users.',
    }),
    dmIncluding: t.field({
      type: 'Long',
      required: false,
      description: 'Direct messages (1:1 and group) that include this user (feature level 177).',
    }),
    is: t.field({ type: [NarrowIsEnum], required: false, description: 'Message states; all must hold.' }),
    has: t.field({ type: [NarrowHasEnum], required: false, description: 'Content the message must have; all must hold.' }),
    search: t.string({ required: false, description: 'Full-text search: every word must appear.' }),
    id: t.field({ type: 'Long', required: false, description: 'Only the message with this ID.' }),
    not: t.field({
      type: NarrowInput,
      required: false,
      description: 'Conditions that must each NOT hold (e.g. `not: { senderId: 5, topic: "x" }`: neither). Cannot be nested.',
    }),
  }),
});

/** Whether encoding `narrow` depends on the server's feature level. */
function narrowNeedsFeatureLevel(narrow: NarrowShape | null | undefined): boolean {
  if (!narrow) return false;
  return (
    narrow.channelId != null ||
    narrow.channelName != null ||
    narrow.channels != null ||
    narrow.dmUserIds != null ||
    narrow.dmIncluding != null ||
    narrow.id != null ||
    (narrow.is ?? []).includes('dm') ||
    narrowNeedsFeatureLevel(narrow.not)
  );
}

/**
 * Encodes a narrow for the server at `featureLevel` (only consulted for the terms
 * {@link narrowNeedsFeatureLevel} names).
 */
function encodeNarrow(narrow: NarrowShape | null | undefined, featureLevel: number, negated = false): NarrowTerm[] {
  if (!narrow) return [];
  const terms: NarrowTerm[] = [];
  const add = (operator: string, operand: string | number | number[]) =>
    terms.push(negated ? { operator, operand, negated: true } : { operator, operand });
  const modernChannels = featureLevel >= featureLevels.channelNarrowOperators;
  const modernDms = featureLevel >= featureLevels.dmNarrowOperators;

  if (narrow.channelId != null && narrow.channelName != null) {
    throw badInput('NarrowInput: give channelId or channelName, not both.');
  }
  if (narrow.channelId != null) add(modernChannels ? 'channel' : 'stream', narrow.channelId);
  if (narrow.channelName != null) add(modernChannels ? 'channel' : 'stream', narrow.channelName);
  if (narrow.channels != null) add(modernChannels ? 'channels' : 'streams', narrow.channels);
  if (narrow.topic != null) add('topic', narrow.topic);
  if (narrow.senderId != null) add('sender', narrow.senderId);
  if (narrow.dmUserIds != null) {
    if (narrow.dmUserIds.length === 0) throw badInput('NarrowInput.dmUserIds must name at least one user.');
    add(modernDms ? 'dm' : 'pm-with', narrow.dmUserIds);
  }
  if (narrow.dmIncluding != null) {
    // `group-pm-with`, its predecessor, matched group conversations only: not the same question.
    if (!modernDms) throw unsupportedByServer('NarrowInput.dmIncluding', featureLevels.dmNarrowOperators, featureLevel);
    add('dm-including', narrow.dmIncluding);
  }
  for (const state of narrow.is ?? []) add('is', state === 'dm' && !modernDms ? 'private' : state);
  for (const content of narrow.has ?? []) add('has', content);
  if (narrow.search != null) add('search', narrow.search);
  if (narrow.id != null) add('id', featureLevel >= featureLevels.integerIdOperand ? narrow.id : String(narrow.id));
  if (narrow.not) {
    if (negated) throw badInput('NarrowInput.not cannot be nested.');
    terms.push(...encodeNarrow(narrow.not, featureLevel, true));
  }
  return terms;
}

/** The wire narrow for the caller's server; reads the feature level only when the narrow needs it. */
export async function narrowFor(ctx: Context, narrow: NarrowShape | null | undefined): Promise<NarrowTerm[]> {
  if (!narrow) return [];
  // Encoding validates too: refuse a bad narrow before spending a request on the feature level.
  encodeNarrow(narrow, Number.MAX_SAFE_INTEGER);
  const level = narrowNeedsFeatureLevel(narrow) ? await getFeatureLevel(ctx) : Number.MAX_SAFE_INTEGER;
  return encodeNarrow(narrow, level);
}
