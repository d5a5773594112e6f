/**
 * The Relay recipe's operations, as an application writes them: relay-compiler reads these
 * `graphql` tags (relay/relay.config.json) and writes relay/__generated__/. An application's
 * babel-plugin-relay replaces each tag with an import of its artifact; the test imports the
 * artifacts itself, so this file is read by the compiler and never run.
 */
import { graphql } from 'relay-runtime';

export const snippets = graphql`
  query operationsSnippetsQuery {
    savedSnippets { id title }
  }
`;

export const renameSnippet = graphql`
  mutation operationsRenameSnippetMutation($id: Long!, $title: String!) {
    editSavedSnippet(id: $id, title: $title) { savedSnippet { id title } }
  }
`;

export const moveTopic = graphql`
  mutation operationsMoveTopicMutation($id: Long!, $topic: String!) {
    editMessage(messageId: $id, topic: $topic, propagateMode: CHANGE_ALL) {
      __typename
      ... on EditMessagePayload { messageId }
      ... on MoveMessagesTimeLimitExceededError { code message totalMessagesAllowedToMove }
    }
  }
`;

export const channels = graphql`
  fragment operations_channels on Query {
    channels { id name }
  }
`;

export const deferred = graphql`
  query operationsDeferredQuery {
    me { id }
    ...operations_channels @defer
  }
`;

export const messages = graphql`
  subscription operationsMessagesSubscription {
    messages(narrow: { channelName: "general" }) {
      __typename
      ... on MessageEvent { message { id content } }
    }
  }
`;
