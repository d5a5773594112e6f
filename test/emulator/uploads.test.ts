/**
 * The emulator's uploads, driven through src/zulip/routes/uploads.ts (the streamed multipart body
 * included): Zulip's limits and refusals, who may see a file, attachments and their removal.
 */
import { describe, expect, it } from 'vitest';
import { getAttachments, getFileTemporaryUrl, removeAttachment, uploadFile } from '../../src/zulip/routes/uploads.js';
import { caughtApiError, EMULATOR_URL, setupEmulator } from '../helpers/emulator.js';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

describe('POST /user_uploads', () => {
  it('stores a streamed file and answers url, uri and filename (feature levels 272 and 285)', async () => {
    const t = setupEmulator({ settings: { featureLevel: 285 } });
    const body = await uploadFile(t.as('hamlet'), { filename: 'My notes (1).txt', contentType: 'text/plain', stream: chunks('hello ', 'world') });
    expect(body.filename).toBe('My-notes-1.txt');
    expect(body.url).toBe(body.uri);
    const pathId = body.url!.replace('/user_uploads/', '');
    expect(new TextDecoder().decode(t.store.uploadedFiles.get(pathId)!.bytes)).toBe('hello world');
    const old = setupEmulator({ settings: { featureLevel: 271 } });
    const legacy = await uploadFile(old.as('hamlet'), { filename: 'a.txt', stream: chunks('x') });
    expect(legacy.url).toBeUndefined();
    expect(legacy.filename).toBeUndefined();
    expect(legacy.uri).toMatch(/^\/user_uploads\/\d+\//);
  });

  it('refuses a file over max_file_upload_size_mib and a request without a file, as Zulip does', async () => {
    const t = setupEmulator({ settings: { maxFileUploadSizeMib: 1 } });
    const big = await caughtApiError(uploadFile(t.as('hamlet'), { filename: 'big.bin', stream: chunks('x'.repeat(1024 * 1024 + 1)) }));
    expect([big.code, big.message]).toEqual(['BAD_REQUEST', 'Uploaded file is larger than the allowed limit of 1 MiB']);
    const hamlet = t.store.users.get(t.userId('hamlet'))!;
    const form = new FormData();
    form.append('note', 'no file here');
    const response = await t.emulator.fetch(new Request(`${EMULATOR_URL}/api/v1/user_uploads`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${hamlet.delivery_email}:${hamlet.api_key}`).toString('base64')}` },
      body: form,
    }));
    expect(await response.json()).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'You must specify a file to upload' });
    expect(t.store.uploadedFiles.size).toBe(0);
  });

  it('refuses an upload the emulator\u2019s store cannot hold as over the organization\u2019s quota', async () => {
    const t = setupEmulator({ settings: { maxUploadStoreBytes: 10 } });
    const e = await caughtApiError(uploadFile(t.as('hamlet'), { filename: 'a.bin', stream: chunks('01234567890') }));
    expect(e.message).toMatch(/upload quota/);
  });
});

describe('attachments and temporary URLs', () => {
  it('lists only the caller\u2019s files; only the uploader removes one; others get Zulip\u2019s refusal for a temporary URL', async () => {
    const t = setupEmulator();
    const { url } = await uploadFile(t.as('hamlet'), { filename: 'mine.txt', stream: chunks('data') });
    const [realm, ...rest] = url!.replace('/user_uploads/', '').split('/');
    const listed = await getAttachments(t.as('hamlet'));
    expect(listed.attachments.map((a) => a.name)).toEqual(['mine.txt']);
    expect(listed.upload_space_used).toBe(4);
    expect((await getAttachments(t.as('cordelia'))).attachments).toEqual([]);
    const temporary = await getFileTemporaryUrl(t.as('hamlet'), { realmIdStr: Number(realm), filename: rest.join('/') });
    expect(temporary.url).toMatch(/^\/user_uploads\/temporary\//);
    // Zulip answers with an HTML page, which the client classifies by its status alone.
    const refused = await caughtApiError(getFileTemporaryUrl(t.as('cordelia'), { realmIdStr: Number(realm), filename: rest.join('/') }));
    expect(refused.httpStatus).toBe(403);
    const id = listed.attachments[0]!.id;
    expect((await caughtApiError(removeAttachment(t.as('cordelia'), { attachmentId: id }))).message).toBe('Invalid attachment');
    await removeAttachment(t.as('hamlet'), { attachmentId: id });
    expect((await getAttachments(t.as('hamlet'))).attachments).toEqual([]);
    expect(t.store.uploadedFiles.size).toBe(0);
  });
});
