/**
 * Data exports of the organization (https://zulip.com/help/export-your-organization): the
 * `realmExports` and `realmExportConsents` (feature level 295) queries and the `exportRealm`
 * mutation. Administrators only: the server answers UNAUTHORIZED_PRINCIPAL otherwise, and
 * BAD_REQUEST "Exceeded rate limit." past five exports a week. https://zulip.com/api/get-realm-exports
 *
 * An export is generated in the background: it is `pending` until the server finishes it, then
 * carries its `url`. The export type travels as a number from feature level 304 to 448 and as a
 * name from 449; the gateway speaks to each.
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { RealmExport, RealmExportConsent, RealmExportTypeCode, RealmExportTypeName } from '../../zulip/model/exports.js';
import { exportRealm, getRealmExportConsents, getRealmExports } from '../../zulip/routes/exports.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { getFeatureLevel, requireFeatureLevel } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';
import { asNode, fromList } from './node.js';
import { UserRef, userOrNull } from './users.js';

const CODES: Record<RealmExportTypeCode, RealmExportTypeName> = { 1: 'public', 2: 'full_with_consent' };

export const RealmExportTypeEnum = builder.enumType('RealmExportType', {
  description: 'What a data export holds. https://zulip.com/help/export-your-organization#export-data-in-an-importable-format',
  values: {
    PUBLIC: { value: 'public', description: 'Public data only.' },
    FULL_WITH_CONSENT: { value: 'full_with_consent', description: 'Public data, and the private data of users who consented (feature level 304).' },
    FULL_WITHOUT_CONSENT: {
      value: 'full_without_consent',
      description: 'All public and private data (feature level 449; the organization must allow it).',
    },
  } as const,
});

export const RealmExportRef = builder.objectRef<RealmExport>('RealmExport').implement({
  description: 'A data export of the organization. https://zulip.com/api/get-realm-exports',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The export ID (Zulip\u2019s own).', resolve: (e) => e.id }),
    actingUserId: t.field({ type: 'Long', description: 'The administrator who asked for it.', resolve: (e) => e.acting_user_id }),
    actingUser: t.field({
      type: UserRef,
      nullable: true,
      description: 'The administrator who asked for it; null when no longer visible.',
      resolve: (e, _args, ctx) => userOrNull(ctx, e.acting_user_id),
    }),
    exportTime: t.float({ description: 'When it was asked for, in UNIX seconds (fractional).', resolve: (e) => e.export_time }),
    pending: t.exposeBoolean('pending', { description: 'Whether it is still being generated (seconds to an hour, by the organization\u2019s size).' }),
    url: t.string({ nullable: true, description: 'Where to download it; null while pending, after a failure, or once deleted.', resolve: (e) => e.export_url }),
    failedAt: t.float({ nullable: true, description: 'When generating it failed, in UNIX seconds; null otherwise.', resolve: (e) => e.failed_timestamp }),
    deletedAt: t.float({ nullable: true, description: 'When it was deleted, in UNIX seconds; null otherwise.', resolve: (e) => e.deleted_timestamp }),
    exportType: t.field({
      type: RealmExportTypeEnum,
      nullable: true,
      description: 'What it holds; null below feature level 304, where every export was public.',
      resolve: (e) => (e.export_type === undefined ? null : typeof e.export_type === 'number' ? CODES[e.export_type] : e.export_type),
    }),
  }),
});

async function listRealmExports(ctx: Context): Promise<RealmExport[]> {
  return (await getRealmExports(ctx.connection)).exports;
}

asNode(RealmExportRef, { key: (e) => e.id, load: fromList(listRealmExports, (e) => e.id, 'data export') });

export const RealmExportConsentRef = builder.objectRef<RealmExportConsent>('RealmExportConsent').implement({
  description: 'Whether a user lets administrators export their private data. https://zulip.com/api/get-realm-export-consents',
  fields: (t) => ({
    userId: t.field({ type: 'Long', description: 'The user.', resolve: (c) => c.user_id }),
    user: t.field({ type: UserRef, nullable: true, description: 'The user; null when not visible.', resolve: (c, _args, ctx) => userOrNull(ctx, c.user_id) }),
    consented: t.exposeBoolean('consented', { description: 'Whether the user consents to exports of their private data.' }),
    emailAddressVisibility: t.int({
      nullable: true,
      description: 'Who may see the user\u2019s real email address (1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators); null below feature level 430.',
      resolve: (c) => c.email_address_visibility ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  realmExports: t.field({
    extensions: reaches('get-realm-exports'),
    type: [RealmExportRef],
    nullable: true,
    description: 'The organization\u2019s data exports (administrators only, else UNAUTHORIZED_PRINCIPAL).',
    resolve: (_root, _args, ctx) => listRealmExports(ctx),
  }),
  realmExportConsents: t.field({
    extensions: reaches('get-realm-export-consents'),
    type: [RealmExportConsentRef],
    nullable: true,
    description: 'Which active users consent to exports of their private data (administrators only). Feature level 295.',
    resolve: async (_root, _args, ctx) => {
      await requireFeatureLevel(ctx, featureLevels.exportConsents, 'Data export consents');
      return (await getRealmExportConsents(ctx.connection)).export_consents;
    },
  }),
}));

const ExportRealmPayloadRef = builder.objectRef<{ id: number | null }>('ExportRealmPayload').implement({
  description: 'A data export that was started.',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', nullable: true, description: 'The export ID (null from servers below feature level 182).', resolve: (p) => p.id }),
    realmExport: t.field({
      type: RealmExportRef,
      nullable: true,
      description: 'The export as the server lists it, pending at first (fetched only when selected).',
      resolve: async (p, _args, ctx) => (p.id === null ? null : ((await listRealmExports(ctx)).find((e) => e.id === p.id) ?? null)),
    }),
  }),
});

/** The wire value of an export type at the server's level: a name from 449, a number from 304, nothing below. */
async function wireExportType(ctx: Context, type: RealmExportTypeName | null | undefined): Promise<RealmExportTypeName | RealmExportTypeCode | undefined> {
  if (type == null) return undefined;
  if (type === 'full_without_consent') await requireFeatureLevel(ctx, featureLevels.exportTypeNames, 'Full exports without consent');
  if (type === 'full_with_consent') await requireFeatureLevel(ctx, featureLevels.exportType, 'Full exports with consent');
  const level = await getFeatureLevel(ctx);
  if (level >= featureLevels.exportTypeNames) return type;
  if (level >= featureLevels.exportType) return type === 'public' ? 1 : 2;
  return undefined; // below 304 every export is public
}

builder.mutationField('exportRealm', (t) =>
  t.field({
    extensions: reaches('export-realm'),
    type: ExportRealmPayloadRef,
    description:
      'Starts a data export (administrators only, else UNAUTHORIZED_PRINCIPAL; BAD_REQUEST "Exceeded rate limit." past five a ' +
      'week). It is pending until the server has generated it.',
    args: {
      exportType: t.arg({ type: RealmExportTypeEnum, required: false, description: 'What to export (default PUBLIC).' }),
    },
    resolve: async (_root, args, ctx) => {
      const exportType = await wireExportType(ctx, args.exportType);
      const { id } = await exportRealm(ctx.connection, { exportType });
      return { id: id ?? null };
    },
  }),
);
