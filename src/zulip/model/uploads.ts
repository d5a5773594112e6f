/** Wire types of uploaded files and attachments (https://zulip.com/api/upload-file, https://zulip.com/api/get-attachments). */
import type { DetachedUpload } from './messages.js';

/** `POST /user_uploads` success body. */
export interface UploadFileResult {
  /** The file's path on the server, `/user_uploads/{path_id}` (feature level 272; `uri` before). */
  url?: string;
  /** The same path; deprecated alias of `url` (feature level 272). */
  uri: string;
  /** The name Zulip stored the file as (feature level 285). */
  filename?: string;
}

/** One file the user uploaded, with the messages that reference it (the shape `detached_uploads` uses). */
export type Attachment = DetachedUpload;

/** `GET /attachments` success body. */
export interface GetAttachmentsResult {
  attachments: Attachment[];
  /** Bytes the organization's uploads use in all. */
  upload_space_used: number;
}

/** `GET /user_uploads/{realm_id_str}/{filename}` success body. */
export interface FileTemporaryUrlResult {
  /** A path that serves the file without authentication for a short while (about 60 s). */
  url: string;
}

/** `GET /thumbnail/status/{realm_id_str}/{filename}` success body. */
export interface ThumbnailStatusResult {
  has_thumbnail: boolean;
}
