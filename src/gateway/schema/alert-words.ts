/**
 * The caller's alert words: words or phrases that notify them like a mention, matched
 * case-insensitively. `Me.alertWords`, and the `addAlertWords` / `removeAlertWords` mutations,
 * each answering with the whole list after the change.
 * https://zulip.com/api/get-alert-words
 */
import { addAlertWords, getAlertWords, removeAlertWords } from '../../zulip/routes/alert-words.js';
import { builder } from '../builder.js';
import { badInput } from '../errors.js';
import { MeRef } from './users.js';

/** Zulip's limit on one alert word (AlertWord.MAX_WORD_LENGTH). */
const MAX_ALERT_WORD_LENGTH = 100;

builder.objectField(MeRef, 'alertWords', (t) =>
  t.field({
    zulip: { reaches: ['get-alert-words'] },
    type: ['String'],
    description: 'The caller\u2019s alert words, oldest first (one upstream request when selected).',
    resolve: async (_me, _args, ctx) => (await getAlertWords(ctx.connection)).alert_words,
  }),
);

const AlertWordsPayloadRef = builder.objectRef<{ alertWords: string[] }>('AlertWordsPayload').implement({
  description: 'The caller\u2019s alert words after a change.',
  fields: (t) => ({
    alertWords: t.exposeStringList('alertWords', { description: 'Every alert word of the caller, oldest first.' }),
  }),
});

/** Refuses a word over Zulip's limit before any upstream call. */
function checkWords(words: readonly string[]): string[] {
  words.forEach((word, i) => {
    if (word.length > MAX_ALERT_WORD_LENGTH) {
      throw badInput(`words[${i}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters).`, { argument: 'words', maxLength: MAX_ALERT_WORD_LENGTH });
    }
  });
  return [...words];
}

builder.mutationFields((t) => ({
  addAlertWords: t.field({
    zulip: { reaches: ['add-alert-words'], writes: ['alert_words'] },
    type: AlertWordsPayloadRef,
    description:
      'Adds alert words. The server trims each word, drops blank ones and skips a word already present in any case. ' +
      `A word over ${MAX_ALERT_WORD_LENGTH} characters is refused with BAD_USER_INPUT.`,
    args: { words: t.arg.stringList({ required: true, description: 'The words or phrases to add.' }) },
    resolve: async (_root, args, ctx) => {
      const alertWords = checkWords(args.words);
      return { alertWords: (await addAlertWords(ctx.connection, { alertWords })).alert_words };
    },
  }),
  removeAlertWords: t.field({
    zulip: { reaches: ['remove-alert-words'], writes: ['alert_words'] },
    type: AlertWordsPayloadRef,
    description: 'Removes alert words, matched case-insensitively; words the caller does not have are ignored.',
    args: { words: t.arg.stringList({ required: true, description: 'The words or phrases to remove.' }) },
    resolve: async (_root, args, ctx) => ({
      alertWords: (await removeAlertWords(ctx.connection, { alertWords: [...args.words] })).alert_words,
    }),
  }),
}));
