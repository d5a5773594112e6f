/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query CodegenSnippets {\n    savedSnippets { id title }\n  }\n": typeof types.CodegenSnippetsDocument,
    "\n  mutation CodegenRenameSnippet($id: Long!, $title: String!) {\n    editSavedSnippet(id: $id, title: $title) { savedSnippet { id title } }\n  }\n": typeof types.CodegenRenameSnippetDocument,
    "\n  mutation CodegenMoveTopic($id: Long!, $topic: String!) {\n    editMessage(messageId: $id, topic: $topic, propagateMode: CHANGE_ALL) {\n      __typename\n      ... on EditMessagePayload { messageId }\n      ... on MoveMessagesTimeLimitExceededError { code message totalMessagesAllowedToMove }\n    }\n  }\n": typeof types.CodegenMoveTopicDocument,
    "\n  query CodegenDeferred {\n    me { id }\n    ... @defer { channels { id name } }\n  }\n": typeof types.CodegenDeferredDocument,
    "\n  subscription CodegenMessages {\n    messages(narrow: { channelName: \"general\" }) {\n      __typename\n      ... on MessageEvent { message { id content timestamp } }\n    }\n  }\n": typeof types.CodegenMessagesDocument,
};
const documents: Documents = {
    "\n  query CodegenSnippets {\n    savedSnippets { id title }\n  }\n": types.CodegenSnippetsDocument,
    "\n  mutation CodegenRenameSnippet($id: Long!, $title: String!) {\n    editSavedSnippet(id: $id, title: $title) { savedSnippet { id title } }\n  }\n": types.CodegenRenameSnippetDocument,
    "\n  mutation CodegenMoveTopic($id: Long!, $topic: String!) {\n    editMessage(messageId: $id, topic: $topic, propagateMode: CHANGE_ALL) {\n      __typename\n      ... on EditMessagePayload { messageId }\n      ... on MoveMessagesTimeLimitExceededError { code message totalMessagesAllowedToMove }\n    }\n  }\n": types.CodegenMoveTopicDocument,
    "\n  query CodegenDeferred {\n    me { id }\n    ... @defer { channels { id name } }\n  }\n": types.CodegenDeferredDocument,
    "\n  subscription CodegenMessages {\n    messages(narrow: { channelName: \"general\" }) {\n      __typename\n      ... on MessageEvent { message { id content timestamp } }\n    }\n  }\n": types.CodegenMessagesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CodegenSnippets {\n    savedSnippets { id title }\n  }\n"): (typeof documents)["\n  query CodegenSnippets {\n    savedSnippets { id title }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CodegenRenameSnippet($id: Long!, $title: String!) {\n    editSavedSnippet(id: $id, title: $title) { savedSnippet { id title } }\n  }\n"): (typeof documents)["\n  mutation CodegenRenameSnippet($id: Long!, $title: String!) {\n    editSavedSnippet(id: $id, title: $title) { savedSnippet { id title } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CodegenMoveTopic($id: Long!, $topic: String!) {\n    editMessage(messageId: $id, topic: $topic, propagateMode: CHANGE_ALL) {\n      __typename\n      ... on EditMessagePayload { messageId }\n      ... on MoveMessagesTimeLimitExceededError { code message totalMessagesAllowedToMove }\n    }\n  }\n"): (typeof documents)["\n  mutation CodegenMoveTopic($id: Long!, $topic: String!) {\n    editMessage(messageId: $id, topic: $topic, propagateMode: CHANGE_ALL) {\n      __typename\n      ... on EditMessagePayload { messageId }\n      ... on MoveMessagesTimeLimitExceededError { code message totalMessagesAllowedToMove }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CodegenDeferred {\n    me { id }\n    ... @defer { channels { id name } }\n  }\n"): (typeof documents)["\n  query CodegenDeferred {\n    me { id }\n    ... @defer { channels { id name } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription CodegenMessages {\n    messages(narrow: { channelName: \"general\" }) {\n      __typename\n      ... on MessageEvent { message { id content timestamp } }\n    }\n  }\n"): (typeof documents)["\n  subscription CodegenMessages {\n    messages(narrow: { channelName: \"general\" }) {\n      __typename\n      ... on MessageEvent { message { id content timestamp } }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;