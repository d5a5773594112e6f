/**
 * Message content in the other format than a page was fetched in: `Message.renderedContent` of a
 * Markdown page, `Message.rawContent` of an HTML page. One batched `GET /messages?message_ids=`
 * per page (feature level 300); one `GET /messages/{id}` per message on older servers. Built per
 * request with the other loaders, so nothing crosses requests or credentials.
 */
import DataLoader from 'dataloader';
import type { ZulipConnection } from '../../zulip/connection.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import type { Message } from '../../zulip/model/messages.js';
import { getMessage, getMessages } from '../../zulip/routes/messages.js';
import { notFoundError } from '../errors.js';
import { getFeatureLevel, type FeatureLevelSource } from '../upstream/feature-level.js';

/** Zulip recommends at most 1000 messages per request. https://zulip.com/api/get-messages */
export const MESSAGES_PER_REQUEST = 1000;

export type ContentFormat = 'html' | 'markdown';

export class ContentLoaders {
  readonly #byFormat: Partial<Record<ContentFormat, DataLoader<number, string>>> = {};
  /** Markdown sources that came with a message (`GET /messages/{id}` returns `raw_content`). */
  readonly #rawContents = new WeakMap<Message, string>();

  constructor(
    private readonly connection: ZulipConnection,
    private readonly levels: FeatureLevelSource,
  ) {}

  /** The loader of message content as `format`, made on first use. */
  load(format: ContentFormat, messageId: number): Promise<string> {
    return (this.#byFormat[format] ??= this.#makeLoader(format === 'html')).load(messageId);
  }

  /** Keeps the Markdown source fetched with `message`, so its `rawContent` costs nothing. */
  setRawContent(message: Message, rawContent: string): void {
    this.#rawContents.set(message, rawContent);
  }

  /** The Markdown source fetched with this very message object, if any. */
  rawContentOf(message: Message): string | undefined {
    return this.#rawContents.get(message);
  }

  #makeLoader(applyMarkdown: boolean): DataLoader<number, string> {
    const { connection } = this;
    return new DataLoader<number, string>(
      async (ids) => {
        if ((await getFeatureLevel(this.levels)) >= featureLevels.messageIds) {
          const { messages } = await getMessages(connection, { messageIds: [...ids], applyMarkdown, clientGravatar: false });
          const byId = new Map(messages.map((m) => [m.id, m.content]));
          return ids.map((id) => byId.get(id) ?? notFoundError(`No message with ID ${id} exists or is visible to you.`));
        }
        // TODO(server-300): one request per message until message_ids is everywhere.
        return Promise.all(
          ids.map(async (messageId) => {
            const { message, raw_content } = await getMessage(connection, { messageId, applyMarkdown });
            return applyMarkdown || raw_content === undefined ? message.content : raw_content;
          }),
        );
      },
      { maxBatchSize: MESSAGES_PER_REQUEST },
    );
  }
}
