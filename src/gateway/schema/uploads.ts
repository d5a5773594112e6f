/**
 * Uploaded files: `uploadFile` (a GraphQL multipart request, streamed to `POST /user_uploads`
 * without holding the file: plugins/uploads.ts, upload.ts), the caller's attachments and their
 * removal, temporary URLs and thumbnail status.
 * https://zulip.com/api/upload-file, https://zulip.com/api/get-attachments
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Attachment } from '../../zulip/model/uploads.js';
import {
  checkThumbnailStatus,
  getAttachments,
  getFileTemporaryUrl,
  removeAttachment,
  uploadFile,
} from '../../zulip/routes/uploads.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput } from '../errors.js';
import { requireFeatureLevel } from '../upstream/feature-level.js';
import { sendBounded } from '../upload.js';
import { reaches } from '../zulip-operations.js';
import { memoKey } from '../loaders/index.js';
import { foundOrNull, MessageRef } from './messages/message.js';
import { asNode, fromList } from './node.js';
import { fetchInitialState } from './settings.js';

const MIB = 1024 * 1024;

/**
 * Zulip's default `MAX_FILE_UPLOAD_SIZE`, for a server whose registration does not report
 * `max_file_upload_size_mib` (https://zulip.com/api/register-queue).
 */
export const DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB = 25;

/**
 * The organization's upload limit, in bytes: read once per gateway from a registration's `realm`
 * state (a queue made and deleted at once, as for the presence threshold). A failure is not kept,
 * so the next upload retries.
 */
export function maxFileUploadBytes(ctx: Context): Promise<number> {
  return ctx.server.uploadLimits
    .get(() =>
      fetchInitialState(ctx, { fetchEventTypes: ['realm'] }).then((state) => {
        const mib = (state as { max_file_upload_size_mib?: unknown }).max_file_upload_size_mib;
        return { maxFileUploadBytes: (typeof mib === 'number' && mib >= 0 ? mib : DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB) * MIB };
      }),
    )
    .then((limits) => limits.maxFileUploadBytes);
}

/** An uploaded file as `POST /user_uploads` answers it, with what the gateway streamed. */
interface UploadedFile {
  /** `/user_uploads/{path_id}` */
  path: string;
  filename: string;
  size: number;
  contentType: string;
}

const USER_UPLOADS = '/user_uploads/';

/** The `path_id` of an upload path (`/user_uploads/1/4e/x/a.txt` → `1/4e/x/a.txt`). */
function pathIdOf(path: string): string {
  return path.startsWith(USER_UPLOADS) ? path.slice(USER_UPLOADS.length) : path;
}

const UploadedFileRef = builder.objectRef<UploadedFile>('UploadedFile').implement({
  description:
    'A file just uploaded. Only its uploader can open it until a message links it: send `[filename](url)` ' +
    '(with `[` and `]` removed from the name) to share it.',
  fields: (t) => ({
    url: t.string({ description: 'The file, as an absolute URL on the chat server (it needs the caller\u2019s credentials).', resolve: (f, _a, ctx) => new URL(f.path, ctx.upstream.baseUrl).href }),
    path: t.exposeString('path', { description: 'The server-relative path, `/user_uploads/{pathId}`: what messages link.' }),
    pathId: t.string({ description: 'The path in the server\u2019s upload store, `{realmId}/{...}/{name}`.', resolve: (f) => pathIdOf(f.path) }),
    filename: t.exposeString('filename', { description: 'The name the server stored the file under (it may differ from the one sent).' }),
    size: t.field({ type: 'Long', description: 'Bytes uploaded.', resolve: (f) => f.size }),
    contentType: t.exposeString('contentType', { description: 'The media type the client sent for the file.' }),
  }),
});

builder.mutationField('uploadFile', (t) =>
  t.field({
    extensions: reaches('upload-file'),
    type: UploadedFileRef,
    description:
      'Uploads one file, sent as a GraphQL multipart request (`operations`, `map`, then the file part; header ' +
      '`x-graphql-yoga-csrf`). The file streams to the chat server as it arrives, bounded by the organization\u2019s ' +
      '`max_file_upload_size_mib`: UPLOAD_TOO_LARGE before anything is sent when the request\u2019s length is over it, ' +
      'or as soon as the bytes pass it. One upstream request (two more, once per gateway, to read the limit).',
    args: {
      file: t.arg({ type: 'Upload', required: true, description: 'The file part of the request, mapped to this variable.' }),
    },
    resolve: async (_root, args, ctx) => {
      const maxBytes = await maxFileUploadBytes(ctx);
      const sent = await sendBounded(args.file, maxBytes, (file) => uploadFile(ctx.connection, file));
      const path = sent.result.url ?? sent.result.uri;
      const filename = sent.result.filename ?? decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
      return { path, filename, size: sent.bytes, contentType: sent.file.mimeType };
    },
  }),
);

// ---- attachments -----------------------------------------------------------------------------------

const AttachmentRef = builder.objectRef<Attachment>('Attachment').implement({
  description: 'A file the caller uploaded, with the messages that link it.',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The attachment ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (a) => a.id }),
    name: t.exposeString('name', { description: 'The file name.' }),
    pathId: t.exposeString('path_id', { description: 'The path in the server\u2019s upload store.' }),
    url: t.string({ description: 'The file, as an absolute URL on the chat server.', resolve: (a, _args, ctx) => new URL(`${USER_UPLOADS}${a.path_id}`, ctx.upstream.baseUrl).href }),
    size: t.field({ type: 'Long', description: 'Size in bytes.', resolve: (a) => a.size }),
    createTime: t.field({ type: 'Long', description: 'When it was uploaded, in UNIX milliseconds.', resolve: (a) => a.create_time }),
    messageIds: t.field({ type: ['Long'], description: 'The messages that link it, by ID.', resolve: (a) => a.messages.map((m) => m.id) }),
    messages: t.field({
      type: [MessageRef],
      description: 'The messages that link it and the caller can still read (one batched fetch for every attachment of the query).',
      resolve: async (a, _args, ctx) => {
        const loaded = await ctx.loaders.messages.loadMany(a.messages.map((m) => m.id));
        return foundOrNull(loaded).filter((m) => m !== null);
      },
    }),
  }),
});

const callerAttachments = memoKey<Attachment[]>('caller attachments');

/** The caller's attachments, once per request (for `node`: an Attachment or a DetachedUpload). */
export function listAttachments(ctx: Context): Promise<Attachment[]> {
  return ctx.loaders.memo.get(callerAttachments, async () => (await getAttachments(ctx.connection)).attachments);
}

asNode(AttachmentRef, { key: (a) => a.id, load: fromList(listAttachments, (a) => a.id, 'attachment') });

interface AttachmentList {
  attachments: Attachment[];
  uploadSpaceUsed: number;
}

const AttachmentListRef = builder.objectRef<AttachmentList>('AttachmentList').implement({
  description: 'The caller\u2019s uploaded files.',
  fields: (t) => ({
    attachments: t.field({ type: [AttachmentRef], description: 'Every file the caller uploaded.', resolve: (l) => l.attachments }),
    uploadSpaceUsed: t.field({ type: 'Long', description: 'Bytes the whole organization\u2019s uploads use.', resolve: (l) => l.uploadSpaceUsed }),
  }),
});

builder.queryField('attachments', (t) =>
  t.field({
    extensions: reaches('get-attachments'),
    type: AttachmentListRef,
    description: 'The files the caller uploaded, with the messages that link each. One upstream request.',
    resolve: async (_root, _args, ctx) => {
      const result = await getAttachments(ctx.connection);
      return { attachments: result.attachments, uploadSpaceUsed: result.upload_space_used };
    },
  }),
);

const RemoveAttachmentPayloadRef = builder.objectRef<{ attachmentId: number }>('RemoveAttachmentPayload').implement({
  description: 'An uploaded file that was deleted.',
  fields: (t) => ({
    attachmentId: t.field({ type: 'Long', description: 'The deleted attachment\u2019s ID (evict it from a client cache).', resolve: (p) => p.attachmentId }),
  }),
});

builder.mutationField('removeAttachment', (t) =>
  t.field({
    extensions: reaches('remove-attachment'),
    type: RemoveAttachmentPayloadRef,
    description: 'Deletes one of the caller\u2019s uploaded files; messages that link it keep a dead link. One upstream request.',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The attachment ID.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.id <= 0) throw badInput('id must be a positive attachment ID.', { argument: 'id' });
      await removeAttachment(ctx.connection, { attachmentId: args.id });
      return { attachmentId: args.id };
    },
  }),
);

// ---- one uploaded file -----------------------------------------------------------------------------

/**
 * The realm part and the rest of an upload's path, from a `path_id`, a `/user_uploads/...` path or
 * an absolute URL on the chat server; a coded refusal otherwise.
 */
function uploadPathParts(ctx: Context, value: string): { realmIdStr: number; filename: string } {
  let path = value.trim();
  if (/^https?:\/\//i.test(path)) {
    const url = new URL(path);
    if (url.origin !== new URL(ctx.upstream.baseUrl).origin) throw badInput('path must be a file of this chat server.', { argument: 'path' });
    path = decodeURIComponent(url.pathname);
  }
  const match = /^(?:\/?user_uploads\/)?(\d+)\/(.+)$/.exec(path);
  if (!match || match[2]!.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw badInput('path must be an uploaded file\u2019s path, `/user_uploads/{realmId}/...`, or its path ID.', { argument: 'path' });
  }
  return { realmIdStr: Number(match[1]), filename: match[2]! };
}

const PATH_ARG_DESCRIPTION = 'The file: its `/user_uploads/...` path, absolute URL on the chat server, or path ID.';

builder.queryField('fileTemporaryUrl', (t) =>
  t.field({
    extensions: reaches('get-file-temporary-url'),
    type: 'String',
    description:
      'An absolute URL that serves an uploaded file without credentials for a short while (60 s by default): for ' +
      'an image tag or a download. Feature level 1. One upstream request.',
    args: { path: t.arg.string({ required: true, description: PATH_ARG_DESCRIPTION }) },
    resolve: async (_root, args, ctx) => {
      const parts = uploadPathParts(ctx, args.path);
      await requireFeatureLevel(ctx, featureLevels.fileTemporaryUrl, 'Temporary file URLs');
      const { url } = await getFileTemporaryUrl(ctx.connection, parts);
      return new URL(url, ctx.upstream.baseUrl).href;
    },
  }),
);

builder.queryField('thumbnailStatus', (t) =>
  t.field({
    extensions: reaches('check-thumbnail-status'),
    type: 'Boolean',
    description: 'Whether the server has made the thumbnail of an uploaded image yet (poll until true). Feature level 479. One upstream request.',
    args: { path: t.arg.string({ required: true, description: PATH_ARG_DESCRIPTION }) },
    resolve: async (_root, args, ctx) => {
      const parts = uploadPathParts(ctx, args.path);
      await requireFeatureLevel(ctx, featureLevels.thumbnailStatus, 'Thumbnail status');
      const { has_thumbnail } = await checkThumbnailStatus(ctx.connection, parts);
      return has_thumbnail;
    },
  }),
);
