/** `GET /server_settings`: public, no authentication. https://zulip.com/api/get-server-settings */
import type { Route } from '../context.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

export const routes: Route[] = [
  {
    operation: ops.getServerSettings,
    auth: false,
    handler: ({ store, settings, baseUrl }) => ({
      authentication_methods: {
        password: true,
        dev: true,
        email: true,
        ldap: false,
        remoteuser: false,
        github: false,
        azuread: false,
        gitlab: false,
        apple: false,
        google: false,
        saml: false,
        'openid connect': false,
      },
      external_authentication_methods: [],
      zulip_feature_level: settings.featureLevel,
      zulip_version: settings.version,
      zulip_merge_base: '',
      service_feature_level: settings.featureLevel,
      service_version: settings.version,
      service_merge_base: '',
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_uri: baseUrl,
      realm_url: baseUrl,
      realm_name: store.realm.name,
      realm_icon: `${baseUrl}/static/images/logo/zulip-icon-128x128.png`,
      realm_description: `<p>${store.realm.description}</p>`,
      realm_web_public_access_enabled: store.realm.settings.enable_spectator_access,
    }),
  },
];
