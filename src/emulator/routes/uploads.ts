/**
 * Uploaded files: `POST /user_uploads` (https://zulip.com/api/upload-file) stores the file's bytes
 * in the store, bounded by `max_file_upload_size_mib` and by the emulator's store limit (refused
 * as over the organization's quota); `GET /user_uploads/{realm_id_str}/{filename}` outside /api/v1
 * serves them to whoever may see them, and the same path under /api/v1 gives a temporary URL
 * (https://zulip.com/api/get-file-temporary-url) served without credentials for 60 s;
 * `GET /attachments`, `DELETE /attachments/{attachment_id}` and the thumbnail status.
 *
 * Who may see a file (Zulip's zerver/lib/attachments.py `validate_attachment_request`): its
 * uploader, and anyone who can read a message that links it; never another organization or an
 * anonymous request. Zulip answers a refused or missing file with an HTML page, as here.
 */
import { randomBytes } from 'node:crypto';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { type ApiError, badRequest } from '../errors.js';
import { addAttachment } from '../factory.js';
import type { Attachment, Store, User } from '../store.js';
import { serializeAttachment } from './messages/rules.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

const MIB = 1024 * 1024;

/** How long a temporary URL serves its file (Zulip's SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS). */
const TEMPORARY_URL_SECONDS = 60;

/** Zulip's zerver/lib/upload sanitize_name: word characters, dots and dashes; runs of spaces and dashes become one dash. */
export function sanitizeName(name: string): string {
  const cleaned = name
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_\s.-]/gu, '')
    .trim()
    .replace(/[-\s]+/g, '-');
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'uploaded-file' : cleaned;
}

/** Bytes the organization's uploads use in all (`upload_space_used`). */
function uploadSpaceUsed(store: Store): number {
  let used = 0;
  for (const a of store.attachments.values()) used += a.size;
  return used;
}

/** Bytes the store holds (files and emoji images). */
function storedBytes(store: Store): number {
  let used = 0;
  for (const f of store.uploadedFiles.values()) used += f.bytes.byteLength;
  return used;
}

/**
 * The one file part of an upload request, refused as Zulip refuses it (no file, several files, one
 * over `maxMib`, or one the store cannot hold).
 */
export async function uploadedFile(ctx: RouteContext, maxMib: number, errors: { none: string; many: string }): Promise<{ file: File; bytes: Uint8Array }> {
  const files = [...ctx.params.files.values()];
  if (files.length === 0) throw badRequest(errors.none);
  if (files.length > 1) throw badRequest(errors.many);
  const file = files[0]!;
  if (file.size > maxMib * MIB) throw badRequest(`Uploaded file is larger than the allowed limit of ${maxMib} MiB`);
  if (storedBytes(ctx.store) + file.size > ctx.settings.maxUploadStoreBytes) throw badRequest('Upload would exceed your organization\u2019s upload quota.');
  return { file, bytes: new Uint8Array(await file.arrayBuffer()) };
}

async function uploadFile(ctx: RouteContext) {
  const { store, user, settings } = ctx;
  const { file, bytes } = await uploadedFile(ctx, settings.maxFileUploadSizeMib, {
    none: 'You must specify a file to upload',
    many: 'You may only upload one file at a time',
  });
  const filename = sanitizeName(file.name);
  const pathId = `${store.realm.id}/${randomBytes(1).toString('hex')}/${randomBytes(12).toString('base64url')}/${filename}`;
  const attachment = addAttachment(store, { name: filename, owner_id: user.user_id, path_id: pathId, size: bytes.byteLength }, ctx.clock.now());
  store.uploadedFiles.set(pathId, { bytes, content_type: file.type || 'application/octet-stream' });
  ctx.events.notify([user.user_id], { type: 'attachment', op: 'add', attachment: serializeAttachment(store, attachment), upload_space_used: uploadSpaceUsed(store) });
  const url = `/user_uploads/${pathId.split('/').map(encodeURIComponent).join('/')}`;
  return {
    uri: url,
    // TODO(server-9): uploadUrlField (272); drop the older branch once every supported server has it.
    ...(settings.featureLevel >= featureLevels.uploadUrlField && { url }),
    // TODO(server-10): uploadFilenameField (285); drop the older branch once every supported server has it.
    ...(settings.featureLevel >= featureLevels.uploadFilenameField && { filename }),
  };
}

/** Whether `user` may see the file: its uploader, or a reader of a message that links it. */
function canSeeUpload(store: Store, user: User, attachment: Attachment): boolean {
  if (!attachment.path_id.startsWith(`${store.realm.id}/`)) return false;
  if (attachment.owner_id === user.user_id) return true;
  for (const id of attachment.message_ids) {
    const message = store.messages.get(id);
    if (message && store.canSeeMessage(user, message)) return true;
  }
  return false;
}

function attachmentByPath(store: Store, pathId: string): Attachment | undefined {
  for (const a of store.attachments.values()) if (a.path_id === pathId) return a;
  return undefined;
}

function html(status: number, body: string): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });
}

/** The file at the request's path, or Zulip's HTML refusal. */
function visibleFile(ctx: RouteContext): { attachment: Attachment } | { refused: Response } {
  const pathId = `${ctx.path.realm_id_str}/${ctx.path.filename}`;
  const attachment = attachmentByPath(ctx.store, pathId);
  if (!attachment) return { refused: html(404, '<p>File not found.</p>') };
  if (!canSeeUpload(ctx.store, ctx.user, attachment)) return { refused: html(403, '<p>You are not authorized to view this file.</p>') };
  return { attachment };
}

function fileResponse(store: Store, attachment: Attachment): Response {
  const stored = store.uploadedFiles.get(attachment.path_id);
  if (!stored) return html(404, '<p>File not found.</p>');
  return new Response(new Blob([stored.bytes as Uint8Array<ArrayBuffer>]), {
    headers: {
      'content-type': stored.content_type,
      'content-length': String(stored.bytes.byteLength),
      'content-disposition': `attachment; filename="${attachment.name}"`,
    },
  });
}

function serveFile(ctx: RouteContext): Response {
  const found = visibleFile(ctx);
  return 'refused' in found ? found.refused : fileResponse(ctx.store, found.attachment);
}

function temporaryUrl(ctx: RouteContext): Response | { url: string } {
  const found = visibleFile(ctx);
  if ('refused' in found) return found.refused;
  const now = ctx.clock.now();
  for (const [token, entry] of ctx.store.uploadTokens) if (entry.expires_ms <= now) ctx.store.uploadTokens.delete(token);
  const token = randomBytes(24).toString('hex');
  ctx.store.uploadTokens.set(token, { path_id: found.attachment.path_id, expires_ms: now + TEMPORARY_URL_SECONDS * 1000 });
  return { url: `/user_uploads/temporary/${token}/${encodeURIComponent(found.attachment.name)}` };
}

function serveTemporary(ctx: RouteContext): Response {
  const entry = ctx.store.uploadTokens.get(ctx.path.token ?? '');
  if (!entry || entry.expires_ms <= ctx.clock.now()) return html(403, '<p>Invalid or expired token.</p>');
  const attachment = attachmentByPath(ctx.store, entry.path_id);
  return attachment ? fileResponse(ctx.store, attachment) : html(404, '<p>File not found.</p>');
}

function invalidAttachment(): ApiError {
  return badRequest('Invalid attachment');
}

function thumbnailStatus(ctx: RouteContext) {
  const attachment = attachmentByPath(ctx.store, `${ctx.path.realm_id_str}/${ctx.path.filename}`);
  if (!attachment || !canSeeUpload(ctx.store, ctx.user, attachment)) throw invalidAttachment();
  const type = ctx.store.uploadedFiles.get(attachment.path_id)?.content_type ?? '';
  return { has_thumbnail: type.startsWith('image/') };
}

function getAttachments({ store, user }: RouteContext) {
  const mine = [...store.attachments.values()].filter((a) => a.owner_id === user.user_id);
  return { attachments: mine.map((a) => serializeAttachment(store, a)), upload_space_used: uploadSpaceUsed(store) };
}

function removeAttachment(ctx: RouteContext) {
  const { store, user } = ctx;
  const attachment = store.attachments.get(ctx.pathInt('attachment_id'));
  if (!attachment || attachment.owner_id !== user.user_id) throw invalidAttachment();
  store.attachments.delete(attachment.id);
  store.uploadedFiles.delete(attachment.path_id);
  ctx.events.notify([user.user_id], { type: 'attachment', op: 'remove', attachment: { id: attachment.id }, upload_space_used: uploadSpaceUsed(store) });
  return {};
}

export function initialState(ctx: StateContext): Record<string, unknown> {
  return ctx.wants('realm') ? { max_file_upload_size_mib: ctx.settings.maxFileUploadSizeMib } : {};
}

export const routes: Route[] = [
  { operation: ops.uploadFile, handler: uploadFile },
  { operation: ops.getFileTemporaryUrl, rest: true, handler: temporaryUrl },
  { method: 'GET', path: '/user_uploads/:realm_id_str/*filename', root: true, handler: serveFile },
  { method: 'GET', path: '/user_uploads/temporary/:token/*filename', root: true, auth: false, handler: serveTemporary },
  { operation: ops.checkThumbnailStatus, rest: true, handler: thumbnailStatus },
  { operation: ops.getAttachments, handler: getAttachments },
  { operation: ops.removeAttachment, handler: removeAttachment },
];
