/**
 * Uploads end to end: a real multipart client (undici's fetch with a FormData and a Blob) uploads
 * through the gateway's HTTP listener to the emulator, the file is read back byte-exact, the
 * server's limit refuses a large file before anything goes upstream (or mid-stream when its length
 * was not declared), and the attachment fields link their messages.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type Harness } from '../../helpers/harness.js';
import { postMultipart, postMultipartChunked, sha256, testBytes } from '../../helpers/uploads.js';

const UPLOAD = 'mutation($file: Upload!) { uploadFile(file: $file) { url path pathId filename size contentType } }';
const hamlet = demoUser('hamlet');
const cordelia = demoUser('cordelia');

/** The emulator's answer to GET of a file URL, as `who` (null: no credentials). */
async function readBack(h: Harness, url: string, who: { email: string; apiKey: string } | null): Promise<Response> {
  const headers: Record<string, string> = who ? { authorization: `Basic ${Buffer.from(`${who.email}:${who.apiKey}`).toString('base64')}` } : {};
  return h.emulator.fetch(new Request(url, { headers }));
}

describe('uploadFile', () => {
  it('streams a 25 MB file through the gateway to the emulator, which serves it back byte-exact to its uploader', async () => {
    const h = setupHarness();
    await h.ready;
    const bytes = testBytes(25_000_000);
    h.resetUpstreamRequests();
    const { status, data, errors } = await postMultipart(h.url, UPLOAD, { bytes, name: 'big report.bin' }, { as: hamlet });
    expect(errors).toBeUndefined();
    expect(status).toBe(200);
    const file = data!.uploadFile as { url: string; path: string; pathId: string; filename: string; size: number; contentType: string };
    expect(file).toMatchObject({ filename: 'big-report.bin', size: 25_000_000, contentType: 'application/octet-stream' });
    expect(file.path).toBe(`/user_uploads/${file.pathId}`);
    expect(file.url).toBe(new URL(file.path, h.zulipUrl).href);
    // The limit is read once per gateway (a registration made and deleted), then the one upload.
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST register', 'DELETE events', 'POST user_uploads']);
    const served = await readBack(h, file.url, hamlet);
    expect(served.status).toBe(200);
    expect(sha256(await served.arrayBuffer())).toBe(sha256(bytes));

    h.resetUpstreamRequests();
    const again = await postMultipart(h.url, UPLOAD, { bytes: testBytes(10), name: 'a.txt', type: 'text/plain' }, { as: hamlet });
    expect(again.data?.uploadFile).toMatchObject({ filename: 'a.txt', size: 10, contentType: 'text/plain' });
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['user_uploads']);
  });

  it('serves the file only to its uploader and to readers of a message that links it; never anonymously', async () => {
    const h = setupHarness();
    await h.ready;
    const bytes = testBytes(1000);
    const { data } = await postMultipart(h.url, UPLOAD, { bytes, name: 'notes.txt', type: 'text/plain' }, { as: hamlet });
    const file = data!.uploadFile as { url: string; path: string; filename: string };
    expect((await readBack(h, file.url, cordelia)).status).toBe(403);
    expect((await readBack(h, file.url, null)).status).toBe(401);
    expect((await readBack(h, new URL('/user_uploads/999/ab/cd/notes.txt', h.zulipUrl).href, hamlet)).status).toBe(404);
    const channel = [...h.emulator.store.channels.values()].find((c) => !c.invite_only && c.history_public_to_subscribers)!;
    const sent = await h.gql('mutation($c: String!, $m: String!) { sendMessage(channelName: $c, topic: "files", content: $m) { id } }', {
      c: channel.name,
      m: `[${file.filename}](${file.path})`,
    }, { as: hamlet.email });
    expect(sent.errors).toBeUndefined();
    const served = await readBack(h, file.url, cordelia);
    expect(served.status).toBe(200);
    expect(sha256(await served.arrayBuffer())).toBe(sha256(bytes));
  });

  it('refuses a file whose declared length is over max_file_upload_size_mib with UPLOAD_TOO_LARGE and no upstream call', async () => {
    const h = setupHarness({ emulatorSettings: { maxFileUploadSizeMib: 1 } });
    await h.ready;
    // A first upload reads the limit (once per gateway).
    expect((await postMultipart(h.url, UPLOAD, { bytes: testBytes(100), name: 'ok.bin' }, { as: hamlet })).errors).toBeUndefined();
    const before = h.emulator.store.uploadedFiles.size;
    h.resetUpstreamRequests();
    const { data, errors } = await postMultipart(h.url, UPLOAD, { bytes: testBytes(2 * 1024 * 1024), name: 'big.bin' }, { as: hamlet });
    expect(data).toBeNull();
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UPLOAD_TOO_LARGE', maxBytes: 1024 * 1024 });
    expect(h.upstreamRequests).toEqual([]);
    expect(h.emulator.store.uploadedFiles.size).toBe(before);
  });

  it('accepts a file of exactly the limit, and ends one of undeclared length as soon as its bytes pass the limit', async () => {
    const h = setupHarness({ emulatorSettings: { maxFileUploadSizeMib: 1 } });
    await h.ready;
    const exact = await postMultipart(h.url, UPLOAD, { bytes: testBytes(1024 * 1024), name: 'exact.bin' }, { as: hamlet });
    expect(exact.errors).toBeUndefined();
    expect(exact.data?.uploadFile).toMatchObject({ size: 1024 * 1024 });
    const stored = h.emulator.store.uploadedFiles.size;
    h.resetUpstreamRequests();
    const chunked = await postMultipartChunked(h.url, UPLOAD, 3 * 1024 * 1024, hamlet);
    expect(chunked.errors?.[0]?.extensions).toMatchObject({ code: 'UPLOAD_TOO_LARGE', maxBytes: 1024 * 1024 });
    // The upload started (the length was unknown) and was aborted: nothing stored.
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['user_uploads']);
    expect(h.emulator.store.uploadedFiles.size).toBe(stored);
  });

  it('refuses a malformed multipart request with BAD_REQUEST, and an Upload given inline with a validation error', async () => {
    const h = setupHarness();
    await h.ready;
    const response = await fetch(h.url, {
      method: 'POST',
      headers: { 'x-graphql-yoga-csrf': '1', 'content-type': 'multipart/form-data; boundary=x', authorization: `Basic ${Buffer.from(`${hamlet.email}:${hamlet.apiKey}`).toString('base64')}` },
      body: '--x\r\nContent-Disposition: form-data; name="map"\r\n\r\n{}\r\n--x--\r\n',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('BAD_REQUEST');
    const inline = await h.gql('mutation { uploadFile(file: "x") { url } }', {}, { as: hamlet.email });
    expect(inline.errors?.[0]?.message).toMatch(/Upload must be a file part/);
  });

  it('answers the emulator\u2019s error when the upload is not authenticated', async () => {
    const h = setupHarness();
    await h.ready;
    const { errors } = await postMultipart(h.url, UPLOAD, { bytes: testBytes(10), name: 'a.txt' });
    expect(errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
