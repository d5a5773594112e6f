/**
 * Server settings: what a client needs before logging in (server version, feature level,
 * authentication methods, organization name and icon). Public: needs no credentials.
 * https://zulip.com/api/get-server-settings
 */
import type {
  AuthenticationMethods,
  ExternalAuthenticationMethod,
  ServerSettings,
} from '../../zulip/model/server-settings.js';
import { getServerSettings } from '../../zulip/routes/server-settings.js';
import { builder } from '../builder.js';
import { featureLevelOf } from '../upstream/feature-level.js';
import { reaches } from '../zulip-operations.js';

const AuthenticationMethodsRef = builder.objectRef<AuthenticationMethods>('AuthenticationMethods').implement({
  description:
    'Which authentication methods are enabled, one flag per method. Superseded by ' +
    '`ServerSettings.externalAuthenticationMethods`; a flag is null when the server does not mention the method.',
  fields: (t) => ({
    password: t.exposeBoolean('password', { nullable: true, description: 'Email address and password.' }),
    dev: t.exposeBoolean('dev', { nullable: true, description: 'Development API-key login (development servers).' }),
    email: t.exposeBoolean('email', { nullable: true, description: 'Email-based login.' }),
    ldap: t.exposeBoolean('ldap', { nullable: true, description: 'LDAP directory.' }),
    remoteuser: t.exposeBoolean('remoteuser', { nullable: true, description: 'REMOTE_USER single sign-on.' }),
    saml: t.exposeBoolean('saml', { nullable: true, description: 'SAML identity provider.' }),
    openidConnect: t.boolean({
      nullable: true,
      description: 'OpenID Connect (the `openid connect` key on the wire).',
      resolve: (methods) => methods['openid connect'] ?? null,
    }),
    github: t.exposeBoolean('github', { nullable: true, description: 'GitHub account.' }),
    azuread: t.exposeBoolean('azuread', { nullable: true, description: 'Azure Active Directory account.' }),
    gitlab: t.exposeBoolean('gitlab', { nullable: true, description: 'GitLab account.' }),
    apple: t.exposeBoolean('apple', { nullable: true, description: 'Apple account.' }),
    google: t.exposeBoolean('google', { nullable: true, description: 'Google account.' }),
  }),
});

const ExternalAuthenticationMethodRef = builder
  .objectRef<ExternalAuthenticationMethod>('ExternalAuthenticationMethod')
  .implement({
    description: 'An external authentication method (Google, GitHub, SAML...), as a login page offers it.',
    fields: (t) => ({
      name: t.exposeString('name', {
        description: 'Stable machine-readable name, for clients that treat specific methods specially.',
      }),
      displayName: t.exposeString('display_name', { description: 'Label for the login button.' }),
      displayIcon: t.exposeString('display_icon', {
        nullable: true,
        description: 'URL of the button icon; null means show no icon.',
      }),
      loginUrl: t.exposeString('login_url', { description: 'URL that starts logging in with this method.' }),
      signupUrl: t.exposeString('signup_url', { description: 'URL that starts signing up with this method.' }),
    }),
  });

const ServerSettingsRef = builder.objectRef<ServerSettings>('ServerSettings').implement({
  description:
    'Global settings of the chat server and its organization. Nullable fields are null when the server does ' +
    'not send them (older servers, or the root domain of a multi-organization server).',
  fields: (t) => ({
    featureLevel: t.int({
      description:
        'The API feature level: it rises with every API change, and N means every feature introduced ' +
        'before N is present. Missing on the wire counts as 0. The same value gates gateway fields ' +
        'that fail with UNSUPPORTED_BY_SERVER.',
      resolve: featureLevelOf,
    }),
    serviceFeatureLevel: t.int({
      nullable: true,
      description: 'The feature level exactly as the server reported it; null when it sent none (counts as 0).',
      resolve: (s) => s.service_feature_level ?? s.zulip_feature_level ?? null,
    }),
    serviceVersion: t.string({
      nullable: true,
      description: 'The server version, a release number or a Git reference.',
      resolve: (s) => s.service_version ?? s.zulip_version ?? null,
    }),
    serviceMergeBase: t.string({
      nullable: true,
      description: 'The merge base of the server version with the official branches; empty when unavailable.',
      resolve: (s) => s.service_merge_base ?? s.zulip_merge_base ?? null,
    }),
    authenticationMethods: t.expose('authentication_methods', {
      type: AuthenticationMethodsRef,
      nullable: true,
      description: 'Which authentication methods are enabled.',
      deprecationReason: 'Use externalAuthenticationMethods (and emailAuthEnabled).',
    }),
    externalAuthenticationMethods: t.expose('external_authentication_methods', {
      type: [ExternalAuthenticationMethodRef],
      nullable: true,
      description: 'External authentication methods enabled for the organization, in display order.',
    }),
    pushNotificationsEnabled: t.exposeBoolean('push_notifications_enabled', {
      nullable: true,
      description: 'Whether mobile push notifications are configured.',
    }),
    isIncompatible: t.exposeBoolean('is_incompatible', {
      nullable: true,
      description: 'Whether the server deems the requesting client (the gateway) incompatible.',
    }),
    emailAuthEnabled: t.exposeBoolean('email_auth_enabled', {
      nullable: true,
      description: 'Whether users can log in with an email address and password.',
    }),
    requireEmailFormatUsernames: t.exposeBoolean('require_email_format_usernames', {
      nullable: true,
      description: 'Whether every login username is an email address (false with LDAP username logins).',
    }),
    realmUrl: t.exposeString('realm_url', { nullable: true, description: "The organization's canonical URL." }),
    realmUri: t.exposeString('realm_uri', {
      nullable: true,
      description: "The organization's canonical URL.",
      deprecationReason: 'Use realmUrl.',
    }),
    realmName: t.exposeString('realm_name', { nullable: true, description: "The organization's display name." }),
    realmIcon: t.exposeString('realm_icon', {
      nullable: true,
      description: "URL of the organization's square logo.",
    }),
    realmDescription: t.exposeString('realm_description', {
      nullable: true,
      description: "The organization's description, as HTML.",
    }),
    realmWebPublicAccessEnabled: t.exposeBoolean('realm_web_public_access_enabled', {
      nullable: true,
      description:
        'Whether the organization allows web-public channels and at least one exists, so visitors ' +
        'can read without an account.',
    }),
  }),
});

builder.queryField('serverSettings', (t) =>
  t.field({
    extensions: reaches('get-server-settings'),
    type: ServerSettingsRef,
    nullable: true,
    description: 'Global settings of the chat server; works without credentials.',
    resolve: (_root, _args, ctx) => getServerSettings(ctx.anonymousConnection),
  }),
);
