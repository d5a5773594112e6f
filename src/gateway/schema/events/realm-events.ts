/**
 * Organization-level events (a typed envelope and the server's fields as JSON), the server
 * restart, events this gateway does not model, and the gateway's own `ResyncEvent`.
 */
import { builder } from '../../builder.js';
import type { ResyncData } from '../../events/model.js';
import { EventOpEnum, ResyncReasonEnum, eventType, otherType } from './kinds.js';
import { dataOf, num, str, type Payload } from './payloads.js';

/**
 * Organization-level events: a typed envelope and an opaque payload. `withOp` for the types whose
 * wire events always carry an op (the parser turns any other op into an UnknownEvent).
 */
function dataType(name: string, description: string, withOp = true) {
  const ref = otherType(name, description);
  builder.objectFields(ref, (t) => ({
    ...(withOp && { op: t.field({ type: EventOpEnum, description: 'What happened.', resolve: (p) => String(p.event.wire.op) }) }),
    data: t.field({ type: 'JSON', description: 'The event\u2019s fields as the server sent them.', resolve: (p) => dataOf(p.event.wire) }),
  }));
  return ref;
}

export const AttachmentEventRef = dataType('AttachmentEvent', 'The caller\u2019s uploaded files changed (kind ATTACHMENT).');
export const SavedSnippetsEventRef = dataType('SavedSnippetsEvent', 'The caller\u2019s saved snippets changed (kind SAVED_SNIPPETS).');
export const CustomProfileFieldsEventRef = dataType('CustomProfileFieldsEvent', 'Custom profile fields changed (kind CUSTOM_PROFILE_FIELDS).', false);
export const RealmEventRef = dataType('RealmEvent', 'An organization setting changed, or the organization was deactivated (kind REALM).');
export const RealmBotEventRef = dataType('RealmBotEvent', 'A bot the caller administers changed (kind REALM_BOT).');
export const RealmDomainsEventRef = dataType('RealmDomainsEvent', 'Allowed email domains changed (kind REALM_DOMAINS).');
export const RealmEmojiEventRef = dataType('RealmEmojiEvent', 'Custom emoji changed (kind REALM_EMOJI).');
export const RealmUserSettingsDefaultsEventRef = dataType(
  'RealmUserSettingsDefaultsEvent',
  'A default setting for new users changed (kind REALM_USER_SETTINGS_DEFAULTS).',
);

export const ServerRestartEventRef = otherType('ServerRestartEvent', 'The chat server restarted; the stream continues (kind SERVER_RESTART).');
builder.objectFields(ServerRestartEventRef, (t) => ({
  featureLevel: t.int({ nullable: true, description: 'The server\u2019s feature level now.', resolve: (p) => num(p.event.wire, 'zulip_feature_level') }),
  version: t.string({ nullable: true, description: 'The server\u2019s version now.', resolve: (p) => str(p.event.wire, 'zulip_version') }),
}));

export const UnknownEventRef = otherType('UnknownEvent', 'An event this gateway does not model, passed through (kind UNKNOWN).');
builder.objectFields(UnknownEventRef, (t) => ({
  type: t.string({ description: 'The server\u2019s event type.', resolve: (p) => p.event.wire.type }),
  operation: t.string({ nullable: true, description: 'The server\u2019s operation (`op`), if any.', resolve: (p) => str(p.event.wire, 'op') }),
  data: t.field({ type: 'JSON', description: 'The event\u2019s fields as the server sent them.', resolve: (p) => dataOf(p.event.wire) }),
}));

export const ResyncEventRef = eventType<Payload<ResyncData>>(
  'ResyncEvent',
  'Events may have been missed and cannot be replayed: refetch what you display by query, then carry on (kind RESYNC). ' +
    'Its cursor is a valid resume point.',
);
builder.objectFields(ResyncEventRef, (t) => ({
  reason: t.field({ type: ResyncReasonEnum, description: 'Why.', resolve: (p) => p.event.reason }),
  featureLevel: t.int({ nullable: true, description: 'The chat server\u2019s feature level now.', resolve: (p) => p.event.featureLevel }),
}));
