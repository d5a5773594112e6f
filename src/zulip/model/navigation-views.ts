/**
 * Wire types for navigation views (https://zulip.com/api/get-navigation-views), snake_case as
 * sent: a user's configuration of one left-sidebar view, built-in or custom. New in Zulip 11.0
 * (feature level 390).
 */

/** One navigation view, as `GET /navigation_views`, the register state and its events send it. */
export interface NavigationView {
  /** The URL hash the view opens; also the view's identifier. */
  fragment: string;
  /** Pinned in the sidebar (true) or in the "More views" menu (false). */
  is_pinned: boolean;
  /** The name of a custom view; null (or absent) for a built-in view. */
  name?: string | null;
}

/** `GET /navigation_views` success body. */
export interface GetNavigationViewsResult {
  navigation_views: NavigationView[];
}
