/** Wire types for video calls (https://zulip.com/api/create-big-blue-button-video-call and neighbours). */

/** The success body of every call-creation endpoint. */
export interface CreateVideoCallResult {
  /** The URL to join the call: relative to the server for BigBlueButton, absolute for the others. */
  url: string;
}
