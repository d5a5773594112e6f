/**
 * Uploaded files: the streamed upload (`POST /user_uploads`, a multipart body the generated table's
 * `callOperation` refuses), temporary URLs, thumbnail status and the user's attachments.
 */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import * as uploads from '../generated/uploads.js';
import type {
  CheckThumbnailStatusParams,
  GetFileTemporaryUrlParams,
  RemoveAttachmentParams,
} from '../generated/uploads.js';
import type { FileTemporaryUrlResult, GetAttachmentsResult, ThumbnailStatusResult, UploadFileResult } from '../model/uploads.js';
import type { FilePart } from '../multipart.js';

/**
 * Uploads one file, streamed: its bytes are read from `file.stream` as the server takes them. The
 * server refuses a file over its `max_file_upload_size_mib` (register-queue); the caller bounds the
 * stream itself to stop sooner. https://zulip.com/api/upload-file
 */
export const uploadFile = (c: ZulipConnection, file: FilePart, call?: SendOptions): Promise<SendResult<UploadFileResult>> =>
  uploads.uploadFile(c, {}, file, call);

/**
 * A URL that serves an uploaded file without authentication for a short while.
 * https://zulip.com/api/get-file-temporary-url
 */
export const getFileTemporaryUrl = (c: ZulipConnection, p: GetFileTemporaryUrlParams, call?: SendOptions): Promise<SendResult<FileTemporaryUrlResult>> =>
  uploads.getFileTemporaryUrl(c, p, call);

/**
 * Whether the server has made a thumbnail of an uploaded image yet (feature level 479).
 * https://zulip.com/api/check-thumbnail-status
 */
export const checkThumbnailStatus = (c: ZulipConnection, p: CheckThumbnailStatusParams, call?: SendOptions): Promise<SendResult<ThumbnailStatusResult>> =>
  uploads.checkThumbnailStatus(c, p, call);

/**
 * The files the user uploaded, with the messages that reference each.
 * https://zulip.com/api/get-attachments
 */
export const getAttachments = (c: ZulipConnection, call?: SendOptions): Promise<SendResult<GetAttachmentsResult>> =>
  uploads.getAttachments(c, {}, call);

/**
 * Deletes one of the user's uploaded files; messages that link it keep a dead link.
 * https://zulip.com/api/remove-attachment
 */
export const removeAttachment = (c: ZulipConnection, p: RemoveAttachmentParams, call?: SendOptions): Promise<SendResult<Record<string, never>>> =>
  uploads.removeAttachment(c, p, call);
