/**
 * Wire types of `GET /server_settings` (https://zulip.com/api/get-server-settings), snake_case as
 * sent. Every key is optional: older servers omit some, and the root domain of a multi-subdomain
 * server omits the organization-specific ones.
 */

/**
 * Deprecated map of which authentication methods are enabled. The spec lists password, dev,
 * email, ldap, remoteuser, saml, `openid connect` and five external identity providers.
 */
export interface AuthenticationMethods {
  password?: boolean;
  dev?: boolean;
  email?: boolean;
  ldap?: boolean;
  remoteuser?: boolean;
  saml?: boolean;
  'openid connect'?: boolean;
  github?: boolean;
  azuread?: boolean;
  gitlab?: boolean;
  apple?: boolean;
  google?: boolean;
}

/** One external authentication method, in the order clients should display them. */
export interface ExternalAuthenticationMethod {
  name: string;
  display_name: string;
  display_icon: string | null;
  login_url: string;
  signup_url: string;
}

export interface ServerSettings {
  /** @deprecated in favour of `external_authentication_methods`. */
  authentication_methods?: AuthenticationMethods;
  external_authentication_methods?: ExternalAuthenticationMethod[];
  /** Missing means 0 (https://zulip.com/api/changelog). */
  service_feature_level?: number;
  service_version?: string;
  /** Empty when unavailable. */
  service_merge_base?: string;
  /**
   * The names servers in the wild use for the three `service_*` fields; read only as a fallback
   * so the gateway also works in front of such servers.
   */
  zulip_feature_level?: number;
  zulip_version?: string;
  zulip_merge_base?: string;
  push_notifications_enabled?: boolean;
  is_incompatible?: boolean;
  email_auth_enabled?: boolean;
  require_email_format_usernames?: boolean;
  /** @deprecated in favour of `realm_url`. */
  realm_uri?: string;
  realm_url?: string;
  realm_name?: string;
  realm_icon?: string;
  /** HTML. */
  realm_description?: string;
  realm_web_public_access_enabled?: boolean;
}
