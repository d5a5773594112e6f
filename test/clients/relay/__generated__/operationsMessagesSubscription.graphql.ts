/**
 * @generated SignedSource<<b5139507d55a1deb8a7659fcdc33614c>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type operationsMessagesSubscription$variables = Record<PropertyKey, never>;
export type operationsMessagesSubscription$data = {
  readonly messages: {
    readonly __typename: "MessageEvent";
    readonly message: {
      readonly content: string;
      readonly id: string;
    };
  } | {
    // This will never be '%other', but we need some
    // value in case none of the concrete values match.
    readonly __typename: "%other";
  };
};
export type operationsMessagesSubscription = {
  response: operationsMessagesSubscription$data;
  variables: operationsMessagesSubscription$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Literal",
        "name": "narrow",
        "value": {
          "channelName": "general"
        }
      }
    ],
    "concreteType": null,
    "kind": "LinkedField",
    "name": "messages",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "__typename",
        "storageKey": null
      },
      {
        "kind": "InlineFragment",
        "selections": [
          {
            "alias": null,
            "args": null,
            "concreteType": "Message",
            "kind": "LinkedField",
            "name": "message",
            "plural": false,
            "selections": [
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "id",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "content",
                "storageKey": null
              }
            ],
            "storageKey": null
          }
        ],
        "type": "MessageEvent",
        "abstractKey": null
      }
    ],
    "storageKey": "messages(narrow:{\"channelName\":\"general\"})"
  }
];
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "operationsMessagesSubscription",
    "selections": (v0/*:: as any*/),
    "type": "Subscription",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "operationsMessagesSubscription",
    "selections": (v0/*:: as any*/)
  },
  "params": {
    "cacheID": "ada7c79c44a21b2675c65815631d9078",
    "id": null,
    "metadata": {},
    "name": "operationsMessagesSubscription",
    "operationKind": "subscription",
    "text": "subscription operationsMessagesSubscription {\n  messages(narrow: {channelName: \"general\"}) {\n    __typename\n    ... on MessageEvent {\n      message {\n        id\n        content\n      }\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "eef665e927a7bf50ad84b2733b467c2a";

export default node;
