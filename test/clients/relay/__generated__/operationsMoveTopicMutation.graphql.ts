/**
 * @generated SignedSource<<807b567898aa80f260504269d469ca72>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type operationsMoveTopicMutation$variables = {
  id: number;
  topic: string;
};
export type operationsMoveTopicMutation$data = {
  readonly editMessage: {
    readonly __typename: "EditMessagePayload";
    readonly messageId: number;
  } | {
    readonly __typename: "MoveMessagesTimeLimitExceededError";
    readonly code: string;
    readonly message: string;
    readonly totalMessagesAllowedToMove: number;
  } | {
    // This will never be '%other', but we need some
    // value in case none of the concrete values match.
    readonly __typename: "%other";
  };
};
export type operationsMoveTopicMutation = {
  response: operationsMoveTopicMutation$data;
  variables: operationsMoveTopicMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "id"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "topic"
  }
],
v1 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "messageId",
        "variableName": "id"
      },
      {
        "kind": "Literal",
        "name": "propagateMode",
        "value": "CHANGE_ALL"
      },
      {
        "kind": "Variable",
        "name": "topic",
        "variableName": "topic"
      }
    ],
    "concreteType": null,
    "kind": "LinkedField",
    "name": "editMessage",
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
            "kind": "ScalarField",
            "name": "messageId",
            "storageKey": null
          }
        ],
        "type": "EditMessagePayload",
        "abstractKey": null
      },
      {
        "kind": "InlineFragment",
        "selections": [
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "code",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "message",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "totalMessagesAllowedToMove",
            "storageKey": null
          }
        ],
        "type": "MoveMessagesTimeLimitExceededError",
        "abstractKey": null
      }
    ],
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "operationsMoveTopicMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "operationsMoveTopicMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "2bd943c0781ef29ead9cc7798b702345",
    "id": null,
    "metadata": {},
    "name": "operationsMoveTopicMutation",
    "operationKind": "mutation",
    "text": "mutation operationsMoveTopicMutation(\n  $id: Long!\n  $topic: String!\n) {\n  editMessage(messageId: $id, topic: $topic, propagateMode: CHANGE_ALL) {\n    __typename\n    ... on EditMessagePayload {\n      messageId\n    }\n    ... on MoveMessagesTimeLimitExceededError {\n      code\n      message\n      totalMessagesAllowedToMove\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "1eb08629727bf0ae5fcec1f02099273e";

export default node;
