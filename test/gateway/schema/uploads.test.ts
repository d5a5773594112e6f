/**
 * Uploads end to end: a real multipart client (undici's fetch with a FormData and a Blob) uploads
 * through the gateway's HTTP listener to the emulator, the file is read back byte-exact, the
 * server's limit refuses a large file before anything goes upstream (or mid-stream when its length
 * was not declared), and the attachment fields link their messages.
 */
import { connect } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { basicAuth, setupHarness, type Harness } from '../../helpers/harness.js';
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
    const sent = await h.gql('mutation($c: String!, $m: String!) { sendMessage(channelName: $c, topic: "files", content: $m) { messageId } }', {
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

  it('refuses an anonymous upload with UNAUTHENTICATED before any upstream call', async () => {
    const h = setupHarness();
    await h.ready;
    h.resetUpstreamRequests();
    const { errors } = await postMultipart(h.url, UPLOAD, { bytes: testBytes(10), name: 'a.txt' });
    expect(errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(errors?.[0]?.extensions?.upstreamCode).toBeUndefined(); // the gateway's refusal, not the server's
    expect(h.upstreamRequests).toEqual([]);
    expect(h.emulator.store.attachments.size).toBe(0);
  });

  it('stores a UTF-8 filename as sent (Zulip\u2019s sanitizing aside: spaces become `-`)', async () => {
    const h = setupHarness();
    await h.ready;
    const { data, errors } = await postMultipart(h.url, UPLOAD, { bytes: testBytes(10), name: 'résumé 日本.txt', type: 'text/plain' }, { as: hamlet });
    expect(errors).toBeUndefined();
    expect(data!.uploadFile).toMatchObject({ filename: 'résumé-日本.txt' });
    expect([...h.emulator.store.attachments.values()].map((a) => a.name)).toEqual(['résumé-日本.txt']);
  });
});

describe('uploadFile timing: an idle timeout from the file\u2019s bytes, not the operation deadline', () => {
  /**
   * Sends a multipart upload over a raw socket, the file part in `chunks` pieces written `gapMs` apart
   * (the client's pace is the scenario), or stopping after `stallAfter` pieces; resolves with the
   * answer's status and JSON body.
   */
  async function slowUpload(url: string, bytes: Uint8Array, pace: { chunks: number; gapMs: number; stallAfter?: number }) {
    const { hostname, port, pathname } = new URL(url);
    const boundary = 'chatgraph-slow-boundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${JSON.stringify({ query: UPLOAD, variables: { file: null } })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n${JSON.stringify({ 0: ['variables.file'] })}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="slow.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const socket = connect(Number(port), hostname);
    onTestFinished(() => void socket.destroy());
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const answer = new Promise<{ status: number; body: { data?: Record<string, unknown> | null; errors?: { extensions?: Record<string, unknown> }[] } }>((resolve, reject) => {
      let received = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const text = received.toString('utf8');
        const end = text.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(text.slice(0, end));
        if (end < 0 || !length || received.byteLength < Buffer.byteLength(text.slice(0, end)) + 4 + Number(length[1])) return;
        resolve({ status: Number(text.split(' ')[1]), body: JSON.parse(text.slice(end + 4)) });
      });
      socket.once('error', reject);
    });
    socket.write(
      `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: ${basicAuth(hamlet)}\r\nx-graphql-yoga-csrf: 1\r\nAccept: application/json\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.byteLength + bytes.byteLength + tail.byteLength}\r\n\r\n`,
    );
    socket.write(head);
    const size = Math.ceil(bytes.byteLength / pace.chunks);
    let stalled = false;
    void (async () => {
      for (let i = 0; i < pace.chunks && !socket.destroyed; i++) {
        if (i === pace.stallAfter) return void (stalled = true);
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, pace.gapMs));
        socket.write(bytes.subarray(i * size, (i + 1) * size));
      }
      socket.write(tail);
    })();
    const result = await answer;
    return { ...result, stalled };
  }

  it('a 96 kB file sent over 13 operation deadlines succeeds, byte-exact', async () => {
    // Scaled down tenfold from 13 s against the 10 s default: a 100 ms operation deadline, the
    // file's 13 pieces 100 ms apart, an idle timeout of 1 s that no gap reaches.
    const h = setupHarness({ gateway: { upstreamDeadlineMs: 100, uploadIdleMs: 1000 } });
    await h.ready;
    await postMultipart(h.url, UPLOAD, { bytes: testBytes(10), name: 'warm.txt' }, { as: hamlet }); // reads the limit once
    const bytes = testBytes(96_000);
    const started = Date.now();
    const { status, body } = await slowUpload(h.url, bytes, { chunks: 13, gapMs: 100 });
    expect(Date.now() - started).toBeGreaterThan(1000);
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    const file = body.data!.uploadFile as { url: string; size: number };
    expect(file.size).toBe(96_000);
    expect(sha256(await (await readBack(h, file.url, hamlet)).arrayBuffer())).toBe(sha256(bytes));
  });

  it('a file that stops arriving fails with UPLOAD_IDLE_TIMEOUT once the idle timeout passed, and nothing is stored', async () => {
    const h = setupHarness({ gateway: { uploadIdleMs: 300 } });
    await h.ready;
    await postMultipart(h.url, UPLOAD, { bytes: testBytes(10), name: 'warm.txt' }, { as: hamlet });
    const stored = h.emulator.store.attachments.size;
    const started = Date.now();
    const { body, stalled } = await slowUpload(h.url, testBytes(96_000), { chunks: 13, gapMs: 10, stallAfter: 4 });
    expect(stalled).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'UPLOAD_IDLE_TIMEOUT', idleMs: 300 });
    expect(h.emulator.store.attachments.size).toBe(stored);
  });
});

describe('attachments, removeAttachment, fileTemporaryUrl, thumbnailStatus', () => {
  const upload = async (h: Harness, name: string, type: string) => {
    const { data } = await postMultipart(h.url, UPLOAD, { bytes: testBytes(500), name, type }, { as: hamlet });
    return data!.uploadFile as { path: string; pathId: string; url: string };
  };

  it('lists the caller\u2019s files with their messages linked, in one upstream call, and removes one', async () => {
    const h = setupHarness();
    await h.ready;
    const file = await upload(h, 'linked.txt', 'text/plain');
    await upload(h, 'lonely.txt', 'text/plain');
    const channel = [...h.emulator.store.channels.values()].find((c) => !c.invite_only && c.history_public_to_subscribers)!;
    const sent = await h.gql<{ sendMessage: { messageId: number } }>('mutation($c: String!, $m: String!) { sendMessage(channelName: $c, topic: "files", content: $m) { messageId } }', {
      c: channel.name,
      m: `[linked](${file.path})`,
    }, { as: hamlet.email });
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ attachments: { attachments: { zulipId: number; name: string; pathId: string; url: string; messageIds: number[]; messages: { zulipId: number; content: string }[] }[]; uploadSpaceUsed: number } }>(
      '{ attachments { attachments { zulipId name pathId url messageIds messages { zulipId content } } uploadSpaceUsed } }',
      {},
      { as: hamlet.email },
    );
    expect(errors).toBeUndefined();
    const linked = data!.attachments.attachments.find((a) => a.name === 'linked.txt')!;
    expect(linked).toMatchObject({ pathId: file.pathId, url: file.url, messageIds: [sent.data!.sendMessage.messageId] });
    expect(linked.messages).toHaveLength(1);
    expect(linked.messages[0]!.zulipId).toBe(sent.data!.sendMessage.messageId);
    expect(data!.attachments.attachments.find((a) => a.name === 'lonely.txt')!.messages).toEqual([]);
    expect(data!.attachments.uploadSpaceUsed).toBeGreaterThanOrEqual(1000);
    expect(h.upstreamRequests.filter((r) => r.path === 'attachments')).toHaveLength(1);

    const lonely = data!.attachments.attachments.find((a) => a.name === 'lonely.txt')!;
    const refused = await h.gql('mutation($id: Long!) { removeAttachment(id: $id) { attachmentId } }', { id: lonely.zulipId }, { as: cordelia.email });
    expect(refused.errors?.[0]).toMatchObject({ message: 'Invalid attachment', extensions: { code: 'BAD_REQUEST' } });
    h.resetUpstreamRequests();
    const removed = await h.gql('mutation($id: Long!) { removeAttachment(id: $id) { attachmentId } }', { id: lonely.zulipId }, { as: hamlet.email });
    expect(removed).toMatchObject({ data: { removeAttachment: { attachmentId: lonely.zulipId } } });
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`DELETE attachments/${lonely.zulipId}`]);
    expect(h.emulator.store.attachments.has(lonely.zulipId)).toBe(false);
    h.resetUpstreamRequests();
    const bad = await h.gql('mutation { removeAttachment(id: 0) { attachmentId } }', {}, { as: hamlet.email });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(h.upstreamRequests).toEqual([]);
  });

  it('gives a temporary URL that serves the file without credentials, from a path, URL or path ID', async () => {
    const h = setupHarness();
    await h.ready;
    const file = await upload(h, 'doc.txt', 'text/plain');
    for (const path of [file.path, file.url, file.pathId]) {
      h.resetUpstreamRequests();
      const { data, errors } = await h.gql<{ fileTemporaryUrl: string }>('query($p: String!) { fileTemporaryUrl(path: $p) }', { p: path }, { as: hamlet.email });
      expect(errors).toBeUndefined();
      expect(data!.fileTemporaryUrl.startsWith(new URL('/user_uploads/temporary/', h.zulipUrl).href)).toBe(true);
      expect(h.upstreamRequests.filter((r) => r.path.startsWith('user_uploads/'))).toHaveLength(1);
      expect((await readBack(h, data!.fileTemporaryUrl, null)).status).toBe(200);
    }
    h.resetUpstreamRequests();
    const bad = await h.gql('{ fileTemporaryUrl(path: "/user_uploads/../etc/passwd") }', {}, { as: hamlet.email });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'path' });
    expect(h.upstreamRequests).toEqual([]);
  });

  it('answers thumbnailStatus at feature level 479, and UNSUPPORTED_BY_SERVER below it without calling the endpoint', async () => {
    const h = setupHarness({ emulatorSettings: { featureLevel: 479 } });
    await h.ready;
    const image = await upload(h, 'pic.png', 'image/png');
    const text = await upload(h, 'notes.txt', 'text/plain');
    const status = async (path: string) => (await h.gql<{ thumbnailStatus: boolean }>('query($p: String!) { thumbnailStatus(path: $p) }', { p: path }, { as: hamlet.email })).data?.thumbnailStatus;
    expect(await status(image.path)).toBe(true);
    expect(await status(text.path)).toBe(false);
    const old = setupHarness({ emulatorSettings: { featureLevel: 478 } });
    await old.ready;
    const { errors } = await old.gql('{ thumbnailStatus(path: "/user_uploads/2/ab/cd/pic.png") }', {}, { as: hamlet.email });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 479, featureLevel: 478 });
    expect(old.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
  });
});
